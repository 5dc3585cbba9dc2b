import { localClock } from '@herald/core';

/** A minute of the day (0–1439, or more: it wraps) as `HH:MM`. */
export const hhmm = (minute: number) => `${String(Math.floor(minute / 60) % 24).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/**
 * The next whole minute at least 6 seconds away, and its local `HH:MM` in `zone`: a `deliverAt` whose
 * moment comes a few seconds after the send (the local-time e2e suites bring "09:00" near this way).
 */
export async function nextMinute(zone: string) {
  if (60_000 - (Date.now() % 60_000) < 6_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
  const at = Math.ceil(Date.now() / 60_000) * 60_000;
  return { at, local: hhmm(localClock(zone, at).minute) };
}
