/**
 * FCM data values must be strings: strings stay as they are, anything else is JSON-encoded. Later
 * layers win (the template's static data, then the send's).
 */
export function stringifyData(...layers: (Record<string, unknown> | null | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      out[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return out;
}
