import { afterQuietHours, deliveryHours, dueByZone, inQuietHours, timingOf, localHour, minuteOfDay, nextLocalTime, offsetMinutes, resolveLocal } from './local-time';

// Every offset below is read by the code from the runtime's time-zone data; the expected instants are
// the published transitions of 2026, written as UTC.
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('offsets come from the runtime', () => {
  it('reads summer and winter offsets, half hours and quarter hours', () => {
    expect(offsetMinutes('Europe/Berlin', at('2026-01-15T12:00:00Z'))).toBe(60);
    expect(offsetMinutes('Europe/Berlin', at('2026-07-15T12:00:00Z'))).toBe(120);
    expect(offsetMinutes('Australia/Lord_Howe', at('2026-07-15T12:00:00Z'))).toBe(630);
    expect(offsetMinutes('Australia/Lord_Howe', at('2026-01-15T12:00:00Z'))).toBe(660);
    expect(offsetMinutes('Asia/Kathmandu', at('2026-07-15T12:00:00Z'))).toBe(345);
    expect(offsetMinutes('America/New_York', at('2026-11-26T12:00:00Z'))).toBe(-300);
  });
});

describe('Europe/Berlin, spring forward on 2026-03-29 (02:00 → 03:00 at 01:00Z)', () => {
  it('a time inside the gap resolves to the first instant after it', () => {
    expect(iso(resolveLocal('Europe/Berlin', { year: 2026, month: 3, day: 29 }, minuteOfDay('02:30')))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(nextLocalTime('Europe/Berlin', '02:30', at('2026-03-28T22:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(nextLocalTime('Europe/Berlin', '02:00', at('2026-03-28T22:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('times either side of the gap keep their own offsets', () => {
    expect(iso(nextLocalTime('Europe/Berlin', '01:59', at('2026-03-28T22:00:00Z')))).toBe('2026-03-29T00:59:00.000Z');
    expect(iso(nextLocalTime('Europe/Berlin', '09:00', at('2026-03-28T22:00:00Z')))).toBe('2026-03-29T07:00:00.000Z');
    // Asked on the evening before at 09:30 local (08:30Z): the next 09:00 is 23 hours away.
    expect(iso(nextLocalTime('Europe/Berlin', '09:00', at('2026-03-28T08:30:00Z')))).toBe('2026-03-29T07:00:00.000Z');
  });
});

describe('Europe/Berlin, fall back on 2026-10-25 (03:00 → 02:00 at 01:00Z)', () => {
  it('a time that happens twice is delivered once, at its first occurrence', () => {
    expect(iso(nextLocalTime('Europe/Berlin', '02:30', at('2026-10-24T22:00:00Z')))).toBe('2026-10-25T00:30:00.000Z');
    // Asked during the second 02:xx hour (01:10Z = 02:10 CET): the first 02:30 was already today, so tomorrow's.
    expect(iso(nextLocalTime('Europe/Berlin', '02:30', at('2026-10-25T01:10:00Z')))).toBe('2026-10-26T01:30:00.000Z');
  });

  it('09:00 after the change is in winter time', () => {
    expect(iso(nextLocalTime('Europe/Berlin', '09:00', at('2026-10-24T22:00:00Z')))).toBe('2026-10-25T08:00:00.000Z');
  });
});

describe('America/New_York, fall back on 2026-11-01 (02:00 EDT → 01:00 EST at 06:00Z)', () => {
  it('01:30 happens twice and resolves to its first (EDT) occurrence', () => {
    expect(iso(nextLocalTime('America/New_York', '01:30', at('2026-11-01T00:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
  });

  it('09:00 that day is EST', () => {
    expect(iso(nextLocalTime('America/New_York', '09:00', at('2026-11-01T00:00:00Z')))).toBe('2026-11-01T14:00:00.000Z');
  });

  it('a 25-hour day: asked just after 09:00 on the Saturday, the next 09:00 is on the Sunday', () => {
    expect(iso(nextLocalTime('America/New_York', '09:00', at('2026-10-31T13:01:00Z')))).toBe('2026-11-01T14:00:00.000Z');
  });
});

describe('Australia/Lord_Howe, a half-hour shift', () => {
  it('spring forward on 2026-10-04: 02:00 → 02:30 local (15:30Z), 02:15 resolves to 02:30', () => {
    expect(iso(nextLocalTime('Australia/Lord_Howe', '02:15', at('2026-10-03T12:00:00Z')))).toBe('2026-10-03T15:30:00.000Z');
    expect(iso(nextLocalTime('Australia/Lord_Howe', '02:30', at('2026-10-03T12:00:00Z')))).toBe('2026-10-03T15:30:00.000Z');
    expect(iso(nextLocalTime('Australia/Lord_Howe', '09:00', at('2026-10-03T12:00:00Z')))).toBe('2026-10-03T22:00:00.000Z');
  });

  it('fall back on 2026-04-05: 02:00 → 01:30 local (15:00Z), 01:45 resolves to its first occurrence', () => {
    expect(iso(nextLocalTime('Australia/Lord_Howe', '01:45', at('2026-04-04T12:00:00Z')))).toBe('2026-04-04T14:45:00.000Z');
    expect(iso(nextLocalTime('Australia/Lord_Howe', '09:00', at('2026-04-04T12:00:00Z')))).toBe('2026-04-04T22:30:00.000Z');
  });
});

describe('a zone without daylight saving (Asia/Kolkata, +05:30)', () => {
  it('every day has the same 09:00', () => {
    expect(iso(nextLocalTime('Asia/Kolkata', '09:00', at('2026-03-29T00:00:00Z')))).toBe('2026-03-29T03:30:00.000Z');
    expect(iso(nextLocalTime('Asia/Kolkata', '09:00', at('2026-03-29T03:31:00Z')))).toBe('2026-03-30T03:30:00.000Z');
  });

  it('the current minute still counts, and it is never more than 24 hours ahead', () => {
    const from = at('2026-06-01T03:30:40Z');
    expect(nextLocalTime('Asia/Kolkata', '09:00', from)).toBe(from);
    for (let minute = 0; minute < 24 * 60; minute += 7) {
      const asked = at('2026-06-01T00:00:00Z') + minute * 60_000;
      const due = nextLocalTime('UTC', '09:00', asked);
      expect(due - asked).toBeGreaterThanOrEqual(0);
      expect(due - asked).toBeLessThan(24 * 3600_000);
      expect(new Date(due).getUTCHours()).toBe(9);
    }
  });
});

describe('quiet hours', () => {
  const night = { start: '22:00', end: '08:00' };

  it('a window past midnight holds 22:00–07:59 and lets 08:00 through', () => {
    expect(inQuietHours(night, minuteOfDay('22:00'))).toBe(true);
    expect(inQuietHours(night, minuteOfDay('03:00'))).toBe(true);
    expect(inQuietHours(night, minuteOfDay('07:59'))).toBe(true);
    expect(inQuietHours(night, minuteOfDay('08:00'))).toBe(false);
    expect(inQuietHours(night, minuteOfDay('21:59'))).toBe(false);
    expect(inQuietHours({ start: '12:00', end: '14:00' }, minuteOfDay('13:00'))).toBe(true);
    expect(inQuietHours({ start: '12:00', end: '14:00' }, minuteOfDay('14:00'))).toBe(false);
  });

  it('a delivery due at 03:00 local waits for the window to end in its zone', () => {
    // 03:00 in New York (EST) is 08:00Z; the window ends at 08:00 EST = 13:00Z.
    expect(iso(afterQuietHours('America/New_York', night, at('2026-11-26T08:00:00Z')))).toBe('2026-11-26T13:00:00.000Z');
    // Outside the window, or without one, it goes when due.
    expect(afterQuietHours('America/New_York', night, at('2026-11-26T15:00:00Z'))).toBe(at('2026-11-26T15:00:00Z'));
    expect(afterQuietHours('America/New_York', null, at('2026-11-26T08:00:00Z'))).toBe(at('2026-11-26T08:00:00Z'));
  });

  it('a window ending inside a spring-forward gap ends at the first instant after it', () => {
    expect(iso(afterQuietHours('Europe/Berlin', { start: '22:00', end: '02:30' }, at('2026-03-29T00:30:00Z')))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('reports the local hour', () => {
    expect(localHour('Australia/Lord_Howe', at('2026-07-15T12:00:00Z'))).toBe(22);
    expect(localHour('Asia/Kolkata', at('2026-07-15T12:00:00Z'))).toBe(17);
  });
});

describe('due by zone', () => {
  const now = at('2026-11-26T12:00:00Z');

  it('each zone at its next local time; devices without a zone (or an unknown one) in the default', () => {
    const timing = { localTime: '09:00', defaultTimezone: 'America/New_York', quietHours: null };
    expect(dueByZone(timing, ['Europe/Berlin', 'Asia/Tokyo', null, 'Nowhere/Atlantis'], now, now).map((z) => [z.zone, iso(z.due), z.defaulted])).toEqual([
      ['Europe/Berlin', '2026-11-27T08:00:00.000Z', false],
      ['Asia/Tokyo', '2026-11-27T00:00:00.000Z', false],
      [null, '2026-11-26T14:00:00.000Z', true],
      ['Nowhere/Atlantis', '2026-11-26T14:00:00.000Z', true],
    ]);
  });

  it('without a local time, now, or when quiet hours end', () => {
    const timing = { defaultTimezone: 'UTC', quietHours: { start: '22:00', end: '08:00' } };
    // 12:00Z is 21:00 in Tokyo (outside), 04:00 in Los Angeles (inside: until 08:00 PST = 16:00Z).
    expect(dueByZone(timing, ['Asia/Tokyo', 'America/Los_Angeles'], now, now).map((z) => iso(z.due))).toEqual(['2026-11-26T12:00:00.000Z', '2026-11-26T16:00:00.000Z']);
  });

  it('a local time already past when planned goes at once; a time inside quiet hours waits for their end', () => {
    const late = { localTime: '11:59', defaultTimezone: 'UTC', quietHours: null };
    expect(dueByZone(late, [null], at('2026-11-26T11:58:00Z'), now)[0].due).toBe(now);
    const night = { localTime: '23:00', defaultTimezone: 'UTC', quietHours: { start: '22:00', end: '08:00' } };
    expect(iso(dueByZone(night, ['UTC'], now, now)[0].due)).toBe('2026-11-27T08:00:00.000Z');
  });

  it('a send exempt from quiet hours, or with neither, has no timing', () => {
    const settings = { defaultTimezone: 'UTC', quietHours: { start: '22:00', end: '08:00' } };
    expect(timingOf({ exempt: true }, settings)).toBeNull();
    expect(timingOf({ exempt: false }, { ...settings, quietHours: null })).toBeNull();
    expect(timingOf({ localTime: '09:00', exempt: true }, settings)).toEqual({ localTime: '09:00', defaultTimezone: 'UTC', quietHours: null });
    expect(timingOf({ exempt: false }, settings)).toEqual({ defaultTimezone: 'UTC', quietHours: settings.quietHours });
  });
});

it('delivery hours: devices per hour of their moment, and those in the default zone', () => {
  const timing = { localTime: '09:00', defaultTimezone: 'Asia/Tokyo', quietHours: null };
  const counted = deliveryHours(timing, [{ zone: 'Europe/Berlin', devices: 3 }, { zone: 'Europe/Paris', devices: 2 }, { zone: null, devices: 4 }, { zone: 'Asia/Tokyo', devices: 1 }], at('2026-11-26T12:00:00Z'));
  expect(counted).toEqual({
    defaultZoneDevices: 4,
    hours: [
      { hour: '2026-11-27T00:00:00.000Z', devices: 5 },
      { hour: '2026-11-27T08:00:00.000Z', devices: 5 },
    ],
  });
});
