// The pieces every filter form of the dashboard shares: a UTC time range and Filter/Clear buttons.
import Link from "next/link";
import { buttonClass, TextField } from "./fields";
import { formatTimeInput } from "./format";

// Plain text in the tables' own format, not datetime-local: the browser would show its locale's
// format and zone next to tables in ISO UTC. lib/views/listing/query-filters.ts parses it.
const UTC_PATTERN = "\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2})?)?( ?(Z|UTC))?";

function TimeField({
  label,
  name,
  value,
  placeholder = "YYYY-MM-DD HH:MM:SS",
  required,
}: {
  label: string;
  name: string;
  value?: Date | string;
  placeholder?: string;
  required?: boolean;
}) {
  return (
    <TextField
      label={`${label} (UTC)`}
      name={name}
      defaultValue={value instanceof Date ? formatTimeInput(value) : value}
      placeholder={placeholder}
      pattern={UTC_PATTERN}
      title="UTC, as in the tables: YYYY-MM-DD HH:MM:SS"
      required={required}
    />
  );
}

export function TimeRangeFields({
  from,
  to,
  required,
  toPlaceholder,
}: {
  from?: Date | string;
  to?: Date | string;
  required?: boolean;
  toPlaceholder?: string;
}) {
  return (
    <>
      <TimeField label="From" name="from" value={from} required={required} />
      <TimeField label="To" name="to" value={to} required={required} placeholder={toPlaceholder} />
    </>
  );
}

export function FilterActions({
  clearHref,
  submitLabel = "Filter",
  clearLabel = "Clear",
}: {
  clearHref: string;
  submitLabel?: string;
  clearLabel?: string;
}) {
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
