/**
 * Wall-clock arithmetic in IANA zones, with the runtime's own time-zone data (`Intl.DateTimeFormat`):
 * the next local `HH:MM` in a zone, and when a quiet-hours window ends there. No offsets are written
 * down here; every offset is read from the runtime at the instant it applies to.
 *
 * Daylight-saving days follow what a person expects: a local time that does not exist that day (a
 * spring-forward gap) resolves to the first instant after the gap; one that happens twice (a
 * fall-back overlap) resolves to its first occurrence only.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A local time of day in minutes after midnight (`"09:30"` → 570). */
export type MinuteOfDay = number;

/** `HH:MM`, 00:00–23:59, two digits each. */
export const LOCAL_TIME_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an `HH:MM` string; throws RangeError for anything else. */
export function minuteOfDay(hhmm: string): MinuteOfDay {
  const match = LOCAL_TIME_PATTERN.exec(hhmm);
  if (!match) throw new RangeError(`not a local time HH:MM: ${hhmm}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, found);
  }
  return found;
}

/** The wall clock of `zone` at `instant` (ms), as if it were a UTC instant (seconds kept, ms dropped). */
function wallClock(zone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The zone's offset from UTC at `instant`, in minutes (Berlin in summer → 120, Lord Howe in summer → 660). */
export function offsetMinutes(zone: string, instant: number | Date): number {
  const at = Math.floor(Number(instant) / 1000) * 1000;
  return Math.round((wallClock(zone, at) - at) / MINUTE);
}

/** The local calendar date and minute of day of `zone` at `instant`. */
export function localClock(zone: string, instant: number | Date): { date: { year: number; month: number; day: number }; minute: MinuteOfDay } {
  const wall = new Date(wallClock(zone, Number(instant)));
  return {
    date: { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() },
    minute: wall.getUTCHours() * 60 + wall.getUTCMinutes(),
  };
}

/**
 * The instant at which `zone`'s clock shows `minute` on the local date `date`: the first of two in a
 * fall-back overlap, the first instant after the gap in a spring-forward gap.
 */
export function resolveLocal(zone: string, date: { year: number; month: number; day: number }, minute: MinuteOfDay): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day) + minute * MINUTE;
  // The instant lies within ±14 h of the wall clock read as UTC, and no zone changes its offset twice in
  // two days: the offsets a day either side are the only ones it can have.
  const offsets = [...new Set([offsetMinutes(zone, wall - 24 * HOUR), offsetMinutes(zone, wall + 24 * HOUR)])];
  const candidates = offsets.map((offset) => wall - offset * MINUTE).filter((instant) => wallClock(zone, instant) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // A gap: the clock jumps over `wall`. Before the jump the wall clock is behind it, after it ahead:
  // find the jump (offsets change on whole minutes) between the two readings.
  let before = Math.min(...offsets.map((offset) => wall - offset * MINUTE));
  let after = Math.max(...offsets.map((offset) => wall - offset * MINUTE));
  while (after - before > MINUTE) {
    const middle = before + Math.floor((after - before) / 2 / MINUTE) * MINUTE;
    if (wallClock(zone, middle) < wall) before = middle;
    else after = middle;
  }
  return after;
}

const nextDate = (date: { year: number; month: number; day: number }, days: number) => {
  const next = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
};

/**
 * The next instant at or after `from` (to the minute: a time of day is due through its whole minute)
 * at which `zone`'s clock shows `hhmm` — today's if it is still ahead, otherwise tomorrow's. It is
 * within 24 hours of `from`, except across a fall-back night, whose day has 25 hours.
 */
export function nextLocalTime(zone: string, hhmm: string | MinuteOfDay, from: number | Date): number {
  const minute = typeof hhmm === 'number' ? hhmm : minuteOfDay(hhmm);
  const start = Math.floor(Number(from) / MINUTE) * MINUTE;
  const today = localClock(zone, start).date;
  for (const days of [0, 1, 2]) {
    const instant = resolveLocal(zone, nextDate(today, days), minute);
    if (instant >= start) return Math.max(instant, Number(from));
  }
  throw new Error(`no ${hhmm} in ${zone} after ${new Date(from).toISOString()}`);
}

/** A quiet-hours window in local time: from `start` to `end` (`start` > `end` wraps past midnight). */
export interface QuietHours {
  start: string;
  end: string;
}

/** Whether a local minute of day falls in the window (its `start` included, its `end` not). */
export function inQuietHours(window: QuietHours, minute: MinuteOfDay): boolean {
  const start = minuteOfDay(window.start);
  const end = minuteOfDay(window.end);
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/**
 * When a delivery due at `at` may go out in `zone` under `window`: `at` itself when its local time is
 * outside the window, otherwise the instant the window ends there (the next local `end`).
 */
export function afterQuietHours(zone: string, window: QuietHours | null, at: number | Date): number {
  const instant = Number(at);
  if (!window || !inQuietHours(window, localClock(zone, instant).minute)) return instant;
  return nextLocalTime(zone, window.end, instant);
}

/** The local hour (0–23) of `zone` at `instant`. */
export const localHour = (zone: string, instant: number | Date) => Math.floor(localClock(zone, instant).minute / 60);

/**
 * How a notification's deliveries are timed, fixed when it is accepted (the `timing` of its row):
 * the local time it asked for, the project's default zone and quiet hours then (null when the send
 * is exempt from them: `priority: "high"` or `ignoreQuietHours`).
 */
export interface Timing {
  localTime?: string;
  defaultTimezone: string;
  quietHours: QuietHours | null;
}

/** The timing of a send, or null when every delivery simply goes when planned. */
export function timingOf(send: { localTime?: string; exempt: boolean }, settings: { defaultTimezone: string; quietHours: QuietHours | null }): Timing | null {
  const quietHours = send.exempt ? null : settings.quietHours;
  if (!send.localTime && !quietHours) return null;
  return { ...(send.localTime ? { localTime: send.localTime } : {}), defaultTimezone: settings.defaultTimezone, quietHours };
}

/** When the devices of one zone (`null`: devices without one) are due, and whether that zone is the default's. */
export interface ZoneDue {
  zone: string | null;
  /** Epoch ms: at or before `now` means at once. */
  due: number;
  /** Computed in the project's default zone (the device has none, or one the runtime does not know). */
  defaulted: boolean;
}

/**
 * When deliveries are due in each of the zones of a notification's devices: at the next local time
 * after `acceptedAt` (or `now` without one), then past quiet hours there. One computation per zone,
 * never per device: the devices of a zone share it (and the delayed job that sends them).
 */
export function dueByZone(timing: Timing, zones: readonly (string | null)[], acceptedAt: number, now: number): ZoneDue[] {
  return zones.map((zone) => {
    const own = zone !== null && isKnownZone(zone);
    const effective = own ? zone : timing.defaultTimezone;
    const planned = Math.max(timing.localTime ? nextLocalTime(effective, timing.localTime, acceptedAt) : now, now);
    return { zone, due: afterQuietHours(effective, timing.quietHours, planned), defaulted: !own };
  });
}

function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * How many devices a timed send would reach in each hour (UTC start, ISO), and how many of them had
 * their moment computed in the project's default zone: from the devices counted per zone.
 */
export function deliveryHours(timing: Timing, zoneCounts: readonly { zone: string | null; devices: number }[], acceptedAt: number, now = acceptedAt) {
  const dues = dueByZone(timing, zoneCounts.map((z) => z.zone), acceptedAt, now);
  const byHour = new Map<number, number>();
  let defaultZoneDevices = 0;
  dues.forEach((d, i) => {
    const { devices } = zoneCounts[i];
    if (d.defaulted) defaultZoneDevices += devices;
    const hour = Math.floor(d.due / HOUR) * HOUR;
    byHour.set(hour, (byHour.get(hour) ?? 0) + devices);
  });
  const hours = [...byHour].sort(([a], [b]) => a - b).map(([hour, devices]) => ({ hour: new Date(hour).toISOString(), devices }));
  return { defaultZoneDevices, hours };
}
