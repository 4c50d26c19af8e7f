// Form controls with their label, sized for a thumb on a phone. Inside an ActionForm, an error
// about a field shows under it.
import { FieldError } from "../field-error";

const fieldHintId = (name: string) => `field-hint-${name}`;
const fieldErrorId = (name: string) => `field-error-${name}`;

const control =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-1 focus:ring-sky-500";

export function TextField({
  label,
  name,
  defaultValue,
  type = "text",
  placeholder,
  required,
  pattern,
  title,
  hint,
}: {
  label: string;
  name: string;
  defaultValue?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  pattern?: string;
  title?: string;
  /** A line under the field: what it accepts and why. */
  hint?: string;
}) {
  return (
    <label className="block text-sm font-medium text-slate-700">
      {label}
      <input
        className={control}
        name={name}
        type={type}
        defaultValue={defaultValue}
        placeholder={placeholder}
        required={required}
        pattern={pattern}
        title={title}
        aria-describedby={hint ? `${fieldHintId(name)} ${fieldErrorId(name)}` : fieldErrorId(name)}
      />
      {hint ? (
        <span id={fieldHintId(name)} className="mt-1 block text-xs font-normal text-slate-500">
          {hint}
        </span>
      ) : null}
      <FieldError name={name} id={fieldErrorId(name)} />
    </label>
  );
}

export function SelectField({
  label,
  name,
  defaultValue,
  options,
}: {
  label: string;
  name: string;
  defaultValue?: string;
  options: { value: string; label: string }[];
}) {
  return (
    <label className="block text-sm font-medium text-slate-700">
      {label}
      <select className={control} name={name} defaultValue={defaultValue ?? ""}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export const buttonClass = {
  primary:
    "inline-flex min-h-10 items-center justify-center rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50",
  secondary:
    "inline-flex min-h-10 items-center justify-center rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50",
  danger:
    "inline-flex min-h-10 items-center justify-center rounded-md bg-rose-700 px-4 py-2 text-sm font-medium text-white hover:bg-rose-600 disabled:opacity-50",
};
