import { z } from 'zod';
import { isTimeZone, normalizeTimeZone } from './device-attributes';

/**
 * Local time: a project's settings (default zone, quiet hours) and a send's `deliverAt`. The
 * arithmetic over zones is in @herald/core (local-time.ts); the rules are in
 * docs/delivery.md#local-time-and-quiet-hours.
 */

/** `HH:MM`, 00:00–23:59. */
export const LOCAL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

const localTime = (field: string) => z.string({ error: `${field} must be a string HH:MM` }).regex(LOCAL_TIME, `${field} must be a local time HH:MM, 00:00–23:59 (e.g. 09:00)`);

/** A window in each device's local time; `start` after `end` wraps past midnight (22:00–08:00). */
export const quietHours = z
  .object({ start: localTime('quietHours.start'), end: localTime('quietHours.end') }, { error: 'quietHours must be { start: "HH:MM", end: "HH:MM" } or null' })
  .refine((w) => w.start !== w.end, { error: 'quietHours.start must differ from quietHours.end', path: ['end'] })
  .meta({ description: 'In each device\'s local time, `HH:MM`; `start` after `end` wraps past midnight. Deliveries that would land inside are held until it ends' });

export type QuietHoursWindow = z.infer<typeof quietHours>;

/** Everything a project's settings hold; a PUT may send any subset (what it leaves out keeps its value). */
export const projectSettingsShape = {
  defaultTimezone: z
    .string({ error: 'defaultTimezone must be a string' })
    .refine(isTimeZone, 'defaultTimezone must be an IANA time zone the server knows, e.g. Europe/Berlin or UTC')
    .transform(normalizeTimeZone)
    .describe('IANA zone for devices without a `timezone` (default `UTC`)'),
  quietHours: quietHours.nullable(),
  deliveryIdInData: z
    .boolean({ error: 'deliveryIdInData must be true or false' })
    .describe(
      "Whether each message carries its delivery's id in `data` under `herald_delivery_id` (default true), the id engagement events name. Off: the app cannot read it from the message; events can then only name ids the backend got elsewhere (GET /push/notifications/{id}/events). Takes effect from the next notification the worker starts delivering",
    ),
};

export const updateSettingsBody = z
  .object(Object.fromEntries(Object.entries(projectSettingsShape).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof projectSettingsShape]: z.ZodOptional<(typeof projectSettingsShape)[K]> })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { error: `Provide at least one of ${Object.keys(projectSettingsShape).join(', ')}` });

/** A send's `deliverAt`: each device at the next `localTime` in its own zone. */
export const deliverAt = z
  .object({ localTime: localTime('deliverAt.localTime') }, { error: 'deliverAt must be { localTime: "HH:MM" }' })
  .meta({ description: "Each device receives it at the next `localTime` in its own `timezone` (the project's `defaultTimezone` without one), within 24 hours" });
