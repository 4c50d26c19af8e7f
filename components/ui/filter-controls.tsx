// The pieces every filter form of the dashboard shares: a UTC time range and Filter/Clear buttons.
import Link from "next/link";
import { buttonClass, TextField } from "./fields";

export function TimeRangeFields({ from, to, required }: { from?: string; to?: string; required?: boolean }) {
  return (
    <>
      <TextField label="From (UTC)" name="from" type="datetime-local" defaultValue={from} required={required} />
      <TextField label="To (UTC)" name="to" type="datetime-local" defaultValue={to} required={required} />
    </>
  );
}

export function FilterActions({ clearHref, submitLabel = "Filter", clearLabel = "Clear" }: { clearHref: string; submitLabel?: string; clearLabel?: string }) {
  return (
    <div className="flex items-end gap-2">
      <button type="submit" className={buttonClass.primary}>
        {submitLabel}
      </button>
      <Link href={clearHref} className={buttonClass.secondary}>
        {clearLabel}
      </Link>
    </div>
  );
}
