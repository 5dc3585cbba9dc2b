import { useState, type ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';
import { Form } from './form';
import { ErrorNotice } from './notices';

export interface FormDialogProps {
  /** The label of the button that opens it. */
  trigger: string;
  triggerVariant?: 'primary' | 'secondary';
  triggerSize?: 'sm';
  /** The trigger's accessible name when its label alone is ambiguous (an "Edit" in every row). */
  triggerAriaLabel?: string;
  title: string;
  description?: ReactNode;
  wide?: boolean;
  submitLabel: string;
  /** The request the form sends (a TanStack mutation): the button waits while it runs, its error is shown, it is reset on close. */
  request: { isPending: boolean; error: unknown; reset: () => void };
  /** The form's state, cleared on close. */
  form?: { reset: () => void };
  /** False while the form cannot be sent yet (a file still to choose). */
  canSubmit?: boolean;
  /** The form was submitted; `close` ends the dialog (on success, typically). */
  onSubmit: (close: () => void) => void;
  /** The dialog closed: clear what else the form keeps. */
  onClose?: () => void;
  /** What to show instead of the form once it has done its work (a key shown once, an import's counts). */
  result?: (close: () => void) => ReactNode;
  children: ReactNode;
}

/** A button that opens a dialog with a form: the one shape of every "create" and "add" in the dashboard. */
export function FormDialog({ trigger, triggerVariant = 'primary', triggerSize, triggerAriaLabel, title, description, wide, submitLabel, request, form, canSubmit = true, onSubmit, onClose, result, children }: FormDialogProps) {
  const [open, setOpen] = useState(false);
  const change = (next: boolean) => {
    setOpen(next);
    if (next) return;
    request.reset();
    form?.reset();
    onClose?.();
  };
  const close = () => change(false);
  const done = result?.(close);
  return (
    <>
      <Button variant={triggerVariant} size={triggerSize} aria-label={triggerAriaLabel} onClick={() => setOpen(true)}>
        {trigger}
      </Button>
      <Dialog open={open} onOpenChange={change} title={title} description={description} wide={wide}>
        {done ?? (
          <Form
            className="stack"
            onSubmit={() => {
              onSubmit(close);
            }}
          >
            {children}
            <ErrorNotice error={request.error} />
            <div className="dialog-actions">
              <Button onClick={close}>Cancel</Button>
              <Button variant="primary" type="submit" disabled={request.isPending || !canSubmit}>
                {submitLabel}
              </Button>
            </div>
          </Form>
        )}
      </Dialog>
    </>
  );
}
