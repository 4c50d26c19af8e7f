export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Keyhook</h1>
      <p className="mt-2 text-slate-600">
        Provider webhooks arrive at <code>POST /api/webhooks/keys</code>. Health: <a className="underline" href="/api/health">/api/health</a>.
      </p>
    </main>
  );
}
