import { ScrollRegion } from "./scroll-region";

// Tables scroll sideways inside their card on a phone instead of stretching the page, with a cue
// while columns are out of view (scroll-region.tsx). A table
// whose rows carry actions stacks instead (`stack`): below the md breakpoint every row becomes a
// two-column grid of labelled cells (the first and last, usually the name and the actions, span
// both), so no button ends up beyond a scroll edge.
export function Table({
  children,
  label,
  stack = false,
  fixed = false,
}: {
  children: React.ReactNode;
  label: string;
  stack?: boolean;
  fixed?: boolean;
}) {
  const stacked = stack
    ? "max-md:block max-md:[&_tbody]:block max-md:[&_thead]:hidden max-md:[&_tr]:grid max-md:[&_tr]:grid-cols-2 max-md:[&_tr]:py-2 max-md:[&_td]:block max-md:[&_td]:min-w-0 max-md:[&_td]:py-1 max-md:[&_td:first-child]:col-span-2 max-md:[&_td:last-child]:col-span-2"
    : "";
  return (
    <ScrollRegion label={label} className={stack ? "px-4 sm:px-0 md:overflow-x-auto" : "overflow-x-auto px-4 sm:px-0"}>
      <table
        aria-label={label}
        className={`w-full min-w-full divide-y divide-slate-200 text-sm ${fixed ? "md:table-fixed" : ""} ${stacked}`}
      >
        {children}
      </table>
    </ScrollRegion>
  );
}

export function Th({ children, className = "" }: { children?: React.ReactNode; className?: string }) {
  return (
    <th
      scope="col"
      className={`whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500 ${className}`}
    >
      {children}
    </th>
  );
}

/** `label`: the column's name, shown before the cell only when the table is stacked. */
export function Td({
  children,
  className = "",
  label,
}: {
  children?: React.ReactNode;
  className?: string;
  label?: string;
}) {
  return (
    <td className={`px-3 py-2 align-top ${className}`}>
      {label ? (
        <span className="mb-0.5 block text-xs font-semibold uppercase tracking-wide text-slate-500 md:hidden">
          {label}
        </span>
      ) : null}
      {children}
    </td>
  );
}
