import { toCsv } from './csv';

it('writes RFC 4180: quotes what needs it, doubles quotes, CRLF line ends, empty for null', () => {
  expect(toCsv(['a', 'b', 'c'], [['plain', 'with, comma', 'say "hi"'], [1, null, 'two\nlines']])).toBe('a,b,c\r\nplain,"with, comma","say ""hi"""\r\n1,,"two\nlines"\r\n');
});

it('defuses text a spreadsheet would run as a formula', () => {
  expect(toCsv(['x'], [['=HYPERLINK("http://evil")'], ['+1'], ['-2'], ['@SUM(A1)'], ['user-1']])).toBe(`x\r\n"'=HYPERLINK(""http://evil"")"\r\n'+1\r\n'-2\r\n'@SUM(A1)\r\nuser-1\r\n`);
});

it('numbers stay numbers, negative ones too', () => {
  expect(toCsv(['n'], [[-3], [0.25]])).toBe('n\r\n-3\r\n0.25\r\n');
});
