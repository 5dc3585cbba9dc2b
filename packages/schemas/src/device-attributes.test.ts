import { z } from 'zod';
import { canonicalLocale, deviceAttributesPatch, isTimeZone, normalizeTimeZone, setsAttributes } from './device-attributes';

const patch = z.object(deviceAttributesPatch);
const problems = (input: unknown) => patch.safeParse(input).error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

describe('time zones: the names the runtime knows', () => {
  it.each(['UTC', 'Etc/UTC', 'GMT', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Asia/Calcutta', 'US/Eastern', 'Etc/GMT+5', 'Australia/Lord_Howe', ...Intl.supportedValuesOf('timeZone')])('%s is accepted', (zone) => {
    expect(isTimeZone(zone)).toBe(true);
  });

  it.each(['', 'Mars/Olympus_Mons', 'Europe/Berlin ', '+05:00', 'UTC+1', 'Z', '../etc/passwd', 'Europe/'.padEnd(70, 'x')])('%j is refused', (zone) => {
    expect(isTimeZone(zone)).toBe(false);
  });

  it("a listed zone is stored in its canonical spelling, an alias as it was sent", () => {
    expect(['europe/berlin', 'utc', 'UTC', 'US/Eastern'].map(normalizeTimeZone)).toEqual(['Europe/Berlin', 'UTC', 'UTC', 'US/Eastern']);
  });
});

describe('locales: BCP 47, stored canonical', () => {
  it.each([
    ['en-us', 'en-US'],
    ['EN-gb', 'en-GB'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['pt-BR', 'pt-BR'],
    ['de', 'de'],
    ['sr-Latn-RS', 'sr-Latn-RS'],
  ])('%s → %s', (tag, canonical) => {
    expect(canonicalLocale(tag)).toBe(canonical);
  });

  it.each(['', 'en_US', 'en--US', 'en-', '123', 'x'.repeat(65)])('%j is refused', (tag) => {
    expect(canonicalLocale(tag)).toBeUndefined();
  });
});

describe('a write of attributes', () => {
  it('parses each attribute, null clearing it', () => {
    expect(patch.parse({ tags: { plan: 'pro', seats: 3, trial: false, old: null }, timezone: 'europe/berlin', locale: 'en-us', appVersion: ' 2.1.0 ' })).toEqual({
      tags: { plan: 'pro', seats: 3, trial: false, old: null },
      timezone: 'Europe/Berlin',
      locale: 'en-US',
      appVersion: '2.1.0',
    });
    expect(patch.parse({ timezone: null, locale: null, appVersion: null })).toEqual({ timezone: null, locale: null, appVersion: null });
  });

  it('names each bad field', () => {
    expect(
      problems({ tags: { 'bad key': 1, plan: 'x'.repeat(257), nested: { a: 1 }, list: [1] }, timezone: 'Nowhere/City', locale: 'en_US', appVersion: '1'.repeat(33) }).map(([path]) => path),
    ).toEqual(['tags.bad key', 'tags.plan', 'tags.nested', 'tags.list', 'timezone', 'locale', 'appVersion']);
    expect(problems({ tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) })).toEqual([['tags', 'at most 50 tags (51 given)']]);
    expect(problems({ appVersion: '   ' })).toEqual([['appVersion', 'appVersion must not be empty']]);
    expect(problems({ tags: 'plan=pro' })).toEqual([['tags', 'tags must be an object of key → value']]);
  });

  it('setsAttributes: whether anything would change', () => {
    expect(setsAttributes({})).toBe(false);
    expect(setsAttributes({ timezone: null })).toBe(true);
    expect(setsAttributes({ tags: {} })).toBe(true);
  });
});
