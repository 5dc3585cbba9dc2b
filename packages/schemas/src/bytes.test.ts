import fc from 'fast-check';
import { jsonBytes } from './bytes';

// The limits were counted with Node's Buffer.byteLength before these schemas had to run in browsers too.
it("counts a value's JSON in UTF-8 bytes, as Buffer.byteLength does", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
      expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value ?? {}), 'utf8'));
      expect(jsonBytes({ text })).toBe(Buffer.byteLength(JSON.stringify({ text }), 'utf8'));
    }),
  );
  expect(jsonBytes(undefined)).toBe(2);
  expect(jsonBytes({ a: 'é' })).toBe(10);
});
