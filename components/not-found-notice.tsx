import Link from "next/link";

// One wording for "not found" and "not yours": a district admin probing another district's ids
// must not learn whether they exist.
export function NotFoundNotice() {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6">
      <h1 className="text-lg font-semibold">Not found</h1>
      <p className="mt-1 text-sm text-slate-600">There is nothing here, or it is not yours to see.</p>
      <Link href="/overview" className="mt-3 inline-block text-sm underline">
        Back to the overview
      </Link>
    </div>
  );
}
