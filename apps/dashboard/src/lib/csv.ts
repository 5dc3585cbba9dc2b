/**
 * CSV as RFC 4180 writes it: fields with a comma, quote or line break are quoted, quotes doubled,
 * lines end in CRLF. A text field that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, tab,
 * CR: OWASP's CSV injection list) is prefixed with `'`: user ids come from customers' apps.
 */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

function field(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
