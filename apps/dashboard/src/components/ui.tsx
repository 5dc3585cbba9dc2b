import { AlertDialog, Dialog, Switch as RadixSwitch } from 'radix-ui';
import { useId, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { RequestError } from '../api/client';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export function Button({ variant = 'secondary', size, className = '', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: 'sm' }) {
  const classes = ['btn', variant !== 'secondary' && `btn-${variant}`, size && `btn-${size}`, className].filter(Boolean).join(' ');
  return <button type="button" className={classes} {...props} />;
}

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string;
}

function Field({ id, label, hint, error, children }: FieldProps & { id: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <div className="hint" id={`${id}-hint`}>{hint}</div>}
      {error && <div className="field-error" id={`${id}-error`}>{error}</div>}
    </div>
  );
}

const describedBy = (id: string, { hint, error }: FieldProps) => [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;

export function TextField({ label, hint, error, className = '', ...props }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <input id={id} className={`input ${className}`} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, { label, hint, error })} {...props} />
    </Field>
  );
}

export function TextArea({ label, hint, error, className = '', ...props }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <textarea id={id} className={`textarea ${className}`} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, { label, hint, error })} {...props} />
    </Field>
  );
}

export function SelectField({ label, hint, error, children, ...props }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      <select id={id} className="select" aria-describedby={describedBy(id, { label, hint, error })} {...props}>
        {children}
      </select>
    </Field>
  );
}

export function Switch({ label, checked, onCheckedChange, disabled, showLabel = false }: { label: string; checked: boolean; onCheckedChange: (v: boolean) => void; disabled?: boolean; showLabel?: boolean }) {
  const id = useId();
  return (
    <span className="switch-row">
      <RadixSwitch.Root id={id} className="switch" checked={checked} onCheckedChange={onCheckedChange} disabled={disabled} aria-label={showLabel ? undefined : label}>
        <RadixSwitch.Thumb className="switch-thumb" />
      </RadixSwitch.Root>
      {showLabel && <label htmlFor={id}>{label}</label>}
    </span>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p>{description}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

export function Card({ title, description, actions, children, bodyless }: { title?: ReactNode; description?: ReactNode; actions?: ReactNode; children: ReactNode; bodyless?: boolean }) {
  return (
    <section className="card">
      {(title || actions) && (
        <div className="card-header">
          <div>
            {title && <h2>{title}</h2>}
            {description && <p className="small">{description}</p>}
          </div>
          {actions && <div className="actions">{actions}</div>}
        </div>
      )}
      {bodyless ? children : <div className="card-body">{children}</div>}
    </section>
  );
}

/** An API error as the user should read it: the API's own message, a 403 said plainly. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof RequestError ? error.status : 0;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="notice notice-error" role="alert">
      {status === 403 ? <strong>You do not have permission to do this. </strong> : null}
      {message}
    </div>
  );
}

export function Notice({ kind = 'info', children }: { kind?: 'info' | 'success' | 'warning'; children: ReactNode }) {
  return <div className={`notice notice-${kind}`} role={kind === 'success' ? 'status' : undefined}>{children}</div>;
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return <p className="muted" role="status" style={{ padding: 20 }}>{label}</p>;
}

const STATUS_KIND: Record<string, string> = {
  completed: 'success', sent: 'success', accepted: 'success', enabled: 'success', active: 'success',
  failed: 'danger', cancelled: 'danger', expired: 'warning', disabled: 'warning', partially_failed: 'warning', no_devices: 'warning',
  queued: 'info', processing: 'info', pending: 'info', scheduled: 'info', canceled: 'danger',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${STATUS_KIND[status] ?? 'neutral'}`}>{status.replace(/_/g, ' ')}</span>;
}

export function Pagination({ page, totalPages, total, onPage, noun }: { page: number; totalPages: number; total: number; onPage: (p: number) => void; noun: string }) {
  if (total === 0) return null;
  return (
    <nav className="pagination" aria-label={`${noun} pages`}>
      <span>
        Page {page} of {Math.max(totalPages, 1)} · {total} {noun}
      </span>
      <div className="actions">
        <Button size="sm" onClick={() => onPage(page - 1)} disabled={page <= 1}>
          Previous
        </Button>
        <Button size="sm" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
          Next
        </Button>
      </div>
    </nav>
  );
}

export function Modal({ open, onOpenChange, title, description, children, wide }: { open: boolean; onOpenChange: (o: boolean) => void; title: string; description?: ReactNode; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className={`dialog${wide ? ' wide' : ''}`}>
          <Dialog.Title asChild>
            <h2>{title}</h2>
          </Dialog.Title>
          {description ? (
            <Dialog.Description asChild>
              <p className="dialog-desc">{description}</p>
            </Dialog.Description>
          ) : (
            <Dialog.Description className="visually-hidden">{title}</Dialog.Description>
          )}
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/**
 * A destructive action's confirmation (Radix AlertDialog). With `typed`, the user types that text
 * (e.g. the project's name) before the button is enabled.
 */
export function ConfirmButton({ label, title, description, confirmLabel, typed, onConfirm, disabled, size = 'sm', ariaLabel }: { label: string; title: string; description: ReactNode; confirmLabel: string; typed?: string; onConfirm: () => Promise<unknown>; disabled?: boolean; size?: 'sm'; ariaLabel?: string }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  const confirm = async () => {
    setPending(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(e);
    } finally {
      setPending(false);
    }
  };
  return (
    <AlertDialog.Root open={open} onOpenChange={(o) => { setOpen(o); setText(''); setError(null); }}>
      <AlertDialog.Trigger asChild>
        <Button variant="ghost" size={size} disabled={disabled} aria-label={ariaLabel} className="btn-danger-text">
          {label}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="overlay" />
        <AlertDialog.Content className="dialog">
          <AlertDialog.Title asChild>
            <h2>{title}</h2>
          </AlertDialog.Title>
          <AlertDialog.Description asChild>
            <p className="dialog-desc">{description}</p>
          </AlertDialog.Description>
          {typed !== undefined && (
            <div className="field" style={{ marginBottom: 12 }}>
              <label htmlFor={id}>
                Type <strong>{typed}</strong> to confirm
              </label>
              <input id={id} className="input" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" />
            </div>
          )}
          <ErrorNotice error={error} />
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <Button variant="danger" onClick={confirm} disabled={pending || (typed !== undefined && text !== typed)}>
              {pending ? 'Working…' : confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** A secret shown once (a new API key): copy button and the warning that it will not be shown again. */
export function OnceSecret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="stack-sm">
      <Notice kind="warning">
        <strong>Copy this key now: you will not see it again.</strong> Herald stores only its hash; a lost key means creating a new one.
      </Notice>
      <span className="label">{label}</span>
      <div className="secret">
        <code data-testid="once-secret" aria-label={label}>{value}</code>
        <Button variant="primary" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <span className="small muted" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: select the key and copy it by hand.' : ''}
      </span>
    </div>
  );
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—');
export const formatDay = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
