// How a harness of faults/ reads its knobs: a flag (`--events 500`) or its environment variable
// (FAULTS_EVENTS=500), a flag winning, over the profile's defaults (`--quick`: the CI profile).
// `--help` prints the usage and exits.
import { parseArgs } from "node:util";
import type { z } from "zod";

export type RunOptionsSpec<S extends z.ZodType> = {
  /** The npm script, for the usage line. */
  command: string;
  schema: S;
  /** flag name → environment variable. */
  flags: Record<string, string>;
  /** The environment variable that turns on the quick profile, like --quick. */
  quickVariable: string;
  full: Record<string, unknown>;
  quick: Record<string, unknown>;
  /** Defaults of both profiles (ports, folder, a random seed). */
  fixed: Record<string, unknown>;
};

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function usageOf(spec: Pick<RunOptionsSpec<z.ZodType>, "command" | "flags">): string {
  const [firstFlag, firstVariable] = Object.entries(spec.flags)[0]!;
  return `usage: npm run ${spec.command} -- [--quick] ${Object.keys(spec.flags)
    .map((f) => `[--${f} N]`)
    .join(" ")}
  (each flag also reads from its environment variable, e.g. ${firstVariable}=500 for --${firstFlag})`;
}

export function readRunOptions<S extends z.ZodType>(
  spec: RunOptionsSpec<S>,
  argv: string[],
  env: Record<string, string | undefined>,
): z.output<S> {
  const usage = usageOf(spec);
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean" },
      help: { type: "boolean" },
      ...Object.fromEntries(Object.keys(spec.flags).map((flag) => [flag, { type: "string" as const }])),
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const quick = values.quick === true || env[spec.quickVariable] === "1";
  const given: Record<string, unknown> = {};
  for (const [flag, variable] of Object.entries(spec.flags)) {
    const value = (values as Record<string, unknown>)[flag] ?? env[variable];
    if (value !== undefined && value !== "") given[camel(flag)] = value;
  }
  const parsed = spec.schema.safeParse({
    ...spec.full,
    ...(quick ? spec.quick : {}),
    ...spec.fixed,
    ...given,
    quick,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid option ${String(issue.path[0])}: ${issue.message}\n${usage}`);
  }
  return parsed.data;
}
