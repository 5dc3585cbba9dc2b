const STATUS_KIND: Record<string, string> = {
  completed: 'success', sent: 'success', accepted: 'success', enabled: 'success', active: 'success',
  failed: 'danger', cancelled: 'danger', expired: 'warning', disabled: 'warning', partially_failed: 'warning', no_devices: 'warning',
  queued: 'info', processing: 'info', pending: 'info', scheduled: 'info', canceled: 'danger', held: 'info', halted: 'warning', validated: 'success',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${STATUS_KIND[status] ?? 'neutral'}`}>{status.replace(/_/g, ' ')}</span>;
}
