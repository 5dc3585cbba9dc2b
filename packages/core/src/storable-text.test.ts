import { storableText } from './storable-text';

describe('storableText', () => {
  it('replaces NULs and lone surrogates, keeps pairs and everything else', () => {
    expect(storableText('abc\0def')).toBe('abc\uFFFDdef');
    expect(storableText('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('\uDC00\uD800')).toBe('\uFFFD\uFFFD');
    expect(storableText('ok 😀 é')).toBe('ok 😀 é');
  });

  it('cuts at maxChars without leaving half a pair', () => {
    expect(storableText('ab😀', 3)).toBe('ab');
    expect(storableText('ab😀', 4)).toBe('ab😀');
    expect(storableText('x'.repeat(2000), 1024)).toHaveLength(1024);
  });

  it('any bytes decoded as UTF-8 come out without NUL or lone surrogate', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.from(Array.from({ length: 64 }, () => Math.floor(Math.random() * 256)));
      const kept = storableText(bytes.toString('utf8') + bytes.toString('latin1'), 100);
      expect(kept).not.toMatch(/\0/);
      expect(Buffer.from(kept, 'utf8').toString('utf8')).toBe(kept);
    }
  });
});
