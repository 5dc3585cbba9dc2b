/**
 * The variables of a template as the user types it: the names inside `{{ }}` in the title, then the
 * body, each once, in order of first appearance (what the API's variables endpoint answers for a
 * saved template). Block helpers, comments, partials, `else`, `this` and `@data` names are not variables.
 */
const MUSTACHE = /\{\{\{?~?\s*([^{}]*?)\s*~?\}?\}\}/g;
const NAME = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/;

export function detectVariables(...texts: string[]): string[] {
  const seen = new Set<string>();
  for (const text of texts) {
    for (const [, inner] of text.matchAll(MUSTACHE)) {
      const name = inner.trim();
      if (/^[#/^>!&]/.test(name) || name === 'else' || name === 'this') continue;
      if (NAME.test(name)) seen.add(name);
    }
  }
  return [...seen];
}

/** `{ 'user.name': 'Ada' }` → `{ user: { name: 'Ada' } }`, what the API renders dotted names from. */
export function nestVariables(flat: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(flat)) {
    const parts = path.split('.');
    let node = out;
    parts.slice(0, -1).forEach((part) => {
      if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    });
    node[parts[parts.length - 1]] = value;
  }
  return out;
}
