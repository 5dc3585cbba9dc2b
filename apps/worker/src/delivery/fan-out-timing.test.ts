import { nextLocalTime } from '@herald/core';
import { timePage } from './fan-out';

/** A timed broadcast's page: one moment per zone of the page, held unless due now or a dry run. */
const acceptedAt = Date.UTC(2026, 6, 1, 6, 0); // 08:00 in Berlin, 02:00 in New York
const timing = { localTime: '09:00', defaultTimezone: 'Asia/Tokyo', quietHours: null };

it('gives the devices of a zone one shared moment, follows the default zone for devices without one, and counts them', () => {
  const page = timePage({ timing, createdAt: new Date(acceptedAt), dryRun: false }, ['Europe/Berlin', null, 'America/New_York', 'Europe/Berlin', 'Not/AZone'], acceptedAt);
  const berlin = nextLocalTime('Europe/Berlin', '09:00', acceptedAt);
  const tokyo = nextLocalTime('Asia/Tokyo', '09:00', acceptedAt);
  const newYork = nextLocalTime('America/New_York', '09:00', acceptedAt);
  expect(page.notBefore.map((d) => d?.getTime())).toEqual([berlin, tokyo, newYork, berlin, tokyo]);
  expect(page.hold).toEqual([true, true, true, true, true]);
  expect(page.defaulted).toBe(2);
  expect(new Set(page.moments)).toEqual(new Set([berlin, tokyo, newYork]));
  expect(page.moments).toHaveLength(3);
});

it('holds nothing in a dry run or for a moment already come, and times nothing without timing', () => {
  const later = nextLocalTime('Europe/Berlin', '09:00', acceptedAt) + 1000;
  const dry = timePage({ timing, createdAt: new Date(acceptedAt), dryRun: true }, ['Europe/Berlin'], acceptedAt);
  expect(dry).toMatchObject({ hold: [false], moments: [] });
  expect(dry.notBefore[0]).not.toBeNull();
  const due = timePage({ timing: { ...timing, localTime: undefined, quietHours: { start: '22:00', end: '07:00' } }, createdAt: new Date(acceptedAt), dryRun: false }, ['Europe/Berlin'], later);
  expect(due).toMatchObject({ hold: [false], moments: [] });
  expect(timePage({ timing: null, createdAt: new Date(acceptedAt), dryRun: false }, ['Europe/Berlin', null], acceptedAt)).toEqual({ notBefore: [null, null], hold: [false, false], defaulted: 0, moments: [] });
});
