// Form controls with their label, sized for a thumb on a phone. Inside an ActionForm an error
// the action names this field for appears under it (field-state.tsx).
import { FieldError, FieldInput, FieldSelect } from "./field-state";

const control =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-sky-500 focus:outline-none focus:ring-1 focus:ring-sky-500 aria-invalid:border-rose-500";

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
  const hintId = hint ? `field-hint-${name}` : undefined;
  return (
    <div>
      <label className="block text-sm font-medium text-slate-700">
        {label}
        <FieldInput
          aria-describedby={hintId}
          className={control}
          name={name}
          type={type}
          defaultValue={defaultValue}
          placeholder={placeholder}
          required={required}
          pattern={pattern}
          title={title}
        />
        {hint ? (
          <span id={hintId} className="mt-1 block text-xs font-normal text-slate-500">
            {hint}
          </span>
        ) : null}
      </label>
      <FieldError name={name} />
    </div>
  );
}

export function SelectField({
  label,
  name,
  defaultValue,
  options,
  required,
  onChange,
}: {
  label: string;
  name: string;
  defaultValue?: string;
  /** An option with value "" and `disabled` is a placeholder the person must replace. */
  options: { value: string; label: string; disabled?: boolean }[];
  required?: boolean;
  /** Only from a client component (a form whose fields depend on this one). */
  onChange?: (value: string) => void;
}) {
  return (
    <div>
      <label className="block text-sm font-medium text-slate-700">
        {label}
        <FieldSelect
          className={control}
          name={name}
          defaultValue={defaultValue ?? ""}
          required={required}
          onChange={onChange ? (event) => onChange(event.currentTarget.value) : undefined}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ))}
        </FieldSelect>
      </label>
      <FieldError name={name} />
    </div>
  );
}

export function CheckboxField({ label, name, hint }: { label: string; name: string; hint?: string }) {
  return (
    <div>
      <label className="flex min-h-10 items-start gap-2 text-sm font-medium text-slate-700">
        <input type="checkbox" name={name} className="mt-1 h-4 w-4 rounded border-slate-300" />
        <span>
          {label}
          {hint ? <span className="block text-xs font-normal text-slate-500">{hint}</span> : null}
        </span>
      </label>
      <FieldError name={name} />
    </div>
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
