import { Link } from 'react-router';
import { TextField } from './ui';

/** When a send is delivered: now, or at a local time in each device's zone; and whether quiet hours hold it. */
export interface Timing {
  atLocalTime: boolean;
  /** `HH:MM`, as a time input gives it. */
  localTime: string;
  ignoreQuietHours: boolean;
}

export const NOW: Timing = { atLocalTime: false, localTime: '09:00', ignoreQuietHours: false };

/** The request fields of a timing: only what the user asked for is sent. */
export const timingFields = (t: Timing) => ({
  ...(t.atLocalTime ? { deliverAt: { localTime: t.localTime } } : {}),
  ...(t.ignoreQuietHours ? { ignoreQuietHours: true } : {}),
});

/** The "deliver at local time" and "ignore quiet hours" fields of the send and broadcast forms. */
export function LocalTimeFields({ projectId, value, onChange, errors }: { projectId: string; value: Timing; onChange: (t: Timing) => void; errors: Record<string, string | undefined> }) {
  return (
    <fieldset className="stack-sm">
      <legend>Delivery time</legend>
      <label className="check-row">
        <input type="checkbox" checked={value.atLocalTime} onChange={(e) => onChange({ ...value, atLocalTime: e.target.checked })} /> Deliver at a local time
      </label>
      {value.atLocalTime && (
        <div className="grid-2">
          <TextField
            label="Local time"
            type="time"
            required
            value={value.localTime}
            onChange={(e) => onChange({ ...value, localTime: e.target.value })}
            error={errors.deliverAt}
            hint="Each device receives it at the next such time in its own time zone (within 24 hours); a device without one follows the project's default zone."
          />
        </div>
      )}
      <label className="check-row">
        <input type="checkbox" checked={value.ignoreQuietHours} onChange={(e) => onChange({ ...value, ignoreQuietHours: e.target.checked })} /> Ignore quiet hours
      </label>
      {errors.ignoreQuietHours && <div className="field-error">{errors.ignoreQuietHours}</div>}
      <span className="hint">
        The default time zone and quiet hours are in the project&rsquo;s <Link to={`/p/${projectId}/settings`}>settings</Link>. A high-priority send is never held.
      </span>
    </fieldset>
  );
}
