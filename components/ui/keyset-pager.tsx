// "First page" / "Next page" links for a keyset-paginated list: the filters stay in the query,
// the cursor is the only thing that moves.
import Link from "next/link";
import { buttonClass } from "./fields";

export function KeysetPager({
  basePath,
  query,
  cursorParam,
  nextCursor,
}: {
  basePath: string;
  query: string;
  cursorParam?: string;
  nextCursor: string | null;
}) {
  const next = new URLSearchParams(query);
  if (nextCursor) next.set("cursor", nextCursor);
  return (
    <div className="mt-4 flex gap-2">
      {cursorParam ? (
        <Link className={buttonClass.secondary} href={`${basePath}${query ? `?${query}` : ""}`}>
          First page
        </Link>
      ) : null}
      {nextCursor ? (
        <Link className={buttonClass.secondary} href={`${basePath}?${next}`}>
          Next page
        </Link>
      ) : null}
    </div>
  );
}
