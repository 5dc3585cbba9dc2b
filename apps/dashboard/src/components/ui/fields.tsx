import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldProps {
  /** Always visible: every field has a label of its own. */
  label: string;
  hint?: ReactNode;
  error?: string;
}

/** The label, the control, its hint and its error, tied together by ids for screen readers. */
function Field({ label, hint, error, children }: FieldProps & { children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode }) {
  const id = useId();
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint && <div className="hint" id={`${id}-hint`}>{hint}</div>}
      {error && <div className="field-error" id={`${id}-error`}>{error}</div>}
    </div>
  );
}

export function TextField({ label, hint, error, className = '', ...props }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return <Field label={label} hint={hint} error={error}>{(control) => <input className={`input ${className}`} {...control} {...props} />}</Field>;
}

export function TextArea({ label, hint, error, className = '', ...props }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <Field label={label} hint={hint} error={error}>{(control) => <textarea className={`textarea ${className}`} {...control} {...props} />}</Field>;
}

export function SelectField({ label, hint, error, children, ...props }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => (
        <select className="select" {...control} {...props}>
          {children}
        </select>
      )}
    </Field>
  );
}

/** A file input (JSON files here), labelled like the other fields. */
export function FileField({ label, hint, error, ...props }: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  return <Field label={label} hint={hint} error={error}>{(control) => <input type="file" {...control} {...props} />}</Field>;
}
