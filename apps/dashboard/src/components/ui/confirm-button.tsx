import { AlertDialog } from 'radix-ui';
import { useId, useState, type ReactNode } from 'react';
import { Button } from './button';
import { ErrorNotice } from './notices';

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
