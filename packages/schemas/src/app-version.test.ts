import fc from 'fast-check';
import { appVersionKey } from './app-version';

/** The keys' byte order, as Postgres compares them under COLLATE "C" (all keys are ASCII). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A reference comparison written from the rules in words, independently of the key: numeric parts
 * by value with missing parts as 0; then a pre-release before its release; pre-release identifiers
 * one by one, numbers by value and before words, words by ASCII; fewer identifiers first.
 */
function reference(a: string, b: string): number {
  const parse = (v: string) => {
    const [main, pre] = v.replace(/^[vV]/, '').split('+')[0].split(/-(.*)/s);
    return { numbers: main.split('.').map(BigInt), pre: pre === undefined ? undefined : pre.split('.') };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.numbers.length, y.numbers.length); i++) {
    const p = x.numbers[i] ?? 0n;
    const q = y.numbers[i] ?? 0n;
    if (p !== q) return p < q ? -1 : 1;
  }
  if (!x.pre || !y.pre) return x.pre ? -1 : y.pre ? 1 : 0;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) {
      if (BigInt(p) !== BigInt(q)) return BigInt(p) < BigInt(q) ? -1 : 1;
    } else if (pn !== qn) return pn ? -1 : 1;
    else if (p !== q) return p < q ? -1 : 1;
  }
  return Math.sign(x.pre.length - y.pre.length);
}

describe('appVersionKey', () => {
  it.each([
    ['10.0', '9.2'],
    ['1.2.10', '1.2.9'],
    ['1.10', '1.9.9'],
    ['2', '1.99.99'],
    ['1.0.0', '1.0.0-rc.1'],
    ['1.0.0-rc.1', '1.0.0-beta.11'],
    ['1.0.0-beta.11', '1.0.0-beta.2'],
    ['1.0.0-beta.2', '1.0.0-beta'],
    ['1.0.0-beta', '1.0.0-alpha.beta'],
    ['1.0.0-alpha.beta', '1.0.0-alpha.1'],
    ['1.0.0-alpha.1', '1.0.0-alpha'],
    ['1.0.0-alpha-x', '1.0.0-alpha.1'],
    ['1.0.0-alpha', '0.9.9'],
    ['0.1', '0'],
    ['12345678901234567890.1', '9999999999999999999.9'],
  ])('%s sorts after %s', (later, earlier) => {
    expect(byteOrder(appVersionKey(later)!, appVersionKey(earlier)!)).toBe(1);
  });

  it.each([
    ['1.2', '1.2.0'],
    ['1.2', '1.2.0.0'],
    ['v1.2.3', '1.2.3'],
    ['V1.2.3', '1.2.3'],
    ['1.02.3', '1.2.3'],
    ['1.2.3+456', '1.2.3'],
    ['1.2.3-beta.1+exp.sha.5114f85', '1.2.3-beta.1'],
    ['1.0.0-beta.01', '1.0.0-beta.1'],
  ])('%s is the same version as %s', (a, b) => {
    expect(appVersionKey(a)).toBe(appVersionKey(b));
  });

  it.each(['', 'beta', '1.', '.1', '1..2', '1.2.3-', '1.2.3+', '1.2.3 (456)', '1,2', 'v', '1.2-beta_1', `1.${'9'.repeat(61)}`])('%j has no key (compared only as the string it is)', (v) => {
    expect(appVersionKey(v)).toBeNull();
  });

  const numbers = fc.array(fc.oneof(fc.integer({ min: 0, max: 12 }), fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String)), { minLength: 1, maxLength: 5 });
  const identifier = fc.oneof(fc.integer({ min: 0, max: 30 }).map(String), fc.stringMatching(/^[0-9A-Za-z-]{1,6}$/).filter((s) => !/^\d+$/.test(s)));
  const version = fc
    .record({ v: fc.boolean(), numbers, pre: fc.option(fc.array(identifier, { minLength: 1, maxLength: 4 }), { nil: undefined }), build: fc.option(fc.stringMatching(/^[0-9A-Za-z]{1,5}$/), { nil: undefined }) })
    .map(({ v, numbers, pre, build }) => `${v ? 'v' : ''}${numbers.join('.')}${pre ? `-${pre.join('.')}` : ''}${build ? `+${build}` : ''}`);

  it('orders any two versions as the rules in words do', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect([a, b, byteOrder(appVersionKey(a)!, appVersionKey(b)!)]).toEqual([a, b, reference(a, b)]);
      }),
      { numRuns: 2000 },
    );
  });

  it('keys hold no character that a text column could not store or a byte order could misplace', () => {
    fc.assert(
      fc.property(version, (v) => {
        expect(appVersionKey(v)).toMatch(/^[\x20-\x7e]*$/);
      }),
    );
  });
});
