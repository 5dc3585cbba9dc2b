import { nextPath } from './next-path';

const ORIGIN = 'https://herald.example.com';
const next = (value: string) => nextPath(new URLSearchParams({ next: value }), ORIGIN);

describe('nextPath', () => {
  it('keeps a path of this site, with its query and fragment', () => {
    expect(next('/projects/1/devices?page=2#top')).toBe('/projects/1/devices?page=2#top');
    expect(nextPath(new URLSearchParams(''), ORIGIN)).toBe('/');
  });

  it.each(['//evil.example', '/\\evil.example', '/\t/evil.example', '/\n/evil.example', '\\\\evil.example', 'https://evil.example/', 'javascript:alert(1)', ' //evil.example'])(
    '%j goes home instead',
    (value) => {
      expect(next(value)).toBe('/');
    },
  );

  it('decodes the query once, as the browser does: next=/%09/evil.example is a tab, another site', () => {
    expect(nextPath(new URLSearchParams('next=/%09/evil.example'), ORIGIN)).toBe('/');
    expect(nextPath(new URLSearchParams('next=%2F%5Cevil.example'), ORIGIN)).toBe('/');
  });
});
