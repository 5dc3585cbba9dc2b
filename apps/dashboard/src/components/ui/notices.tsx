import type { ReactNode } from 'react';
import { RequestError } from '../../api/client';

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
