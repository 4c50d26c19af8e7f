// Bench-only preload: prints this process's own memory every 500 ms to stderr, so a benchmark can
// tell V8 heap growth (heapTotal, old space) from ArrayBuffers/external memory and from native
// (malloc) memory: rss minus what V8 accounts for. Loaded into the app under test with
//   BENCH_APP_NODE_OPTIONS="--import ./bench/support/memory-sampler.mjs" npm run bench:export
// One line per sample: `memsample pid=… rss=… heapTotal=… heapUsed=… old=… newSpace=… lo=… external=… arrayBuffers=…` (MiB).
import v8 from "node:v8";

const mib = (bytes) => (bytes / 1048576).toFixed(1);
const timer = setInterval(() => {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  process.stderr.write(
    `memsample pid=${process.pid} t=${Date.now()} rss=${mib(usage.rss)} heapTotal=${mib(usage.heapTotal)} ` +
      `heapUsed=${mib(usage.heapUsed)} old=${mib(spaces.old_space ?? 0)} newSpace=${mib(spaces.new_space ?? 0)} ` +
      `lo=${mib((spaces.large_object_space ?? 0) + (spaces.new_large_object_space ?? 0))} ` +
      `external=${mib(usage.external)} arrayBuffers=${mib(usage.arrayBuffers)}\n`,
  );
}, 500);
timer.unref();
