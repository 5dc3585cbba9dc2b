import { AppError } from '@herald/core';

/**
 * Deeper than any real payload (template data, variables for `{{a.b.c}}`), far below what
 * JSON.stringify, zod and Postgres can walk: V8's JSON.parse accepts 10,000 levels within 1 MiB, but
 * JSON.stringify (byte caps, Prisma) overflows the stack below 5,000 — a 500 instead of a 400.
 */
export const MAX_INPUT_DEPTH = 64;

interface Node {
  value: unknown;
  depth: number;
  key?: string;
  parent?: Node;
}

const pathOf = (node: Node) => {
  const keys: string[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.unshift(n.key);
  return keys.join('.');
};

function refuse(where: string, node: Node, message: string): AppError {
  const path = pathOf(node);
  return AppError.badRequest(`Invalid ${where}: ${path ? `${path}: ` : ''}${message}`, [{ path, message }]);
}

/**
 * A UTF-16 surrogate without its other half: valid in a JSON escape (`"\ud800"`) and in a JS string,
 * but not Unicode. Postgres's jsonb refuses it (`invalid input syntax for type json`), and text
 * would store it as U+FFFD.
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string of the input, if anything. */
function badString(s: string): string | undefined {
  if (s.includes('\u0000')) return 'NUL characters';
  if (UNPAIRED_SURROGATE.test(s)) return 'unpaired UTF-16 surrogates (\\ud800–\\udfff)';
  return undefined;
}

/**
 * Rejects input that no schema can make storable: NUL characters (Postgres text and jsonb refuse
 * them), unpaired surrogates (jsonb refuses them) and nesting deeper than MAX_INPUT_DEPTH.
 * Iterative, so that the check itself cannot overflow the stack.
 */
export function checkInput(value: unknown, where: string): void {
  const stack: Node[] = [{ value, depth: 0 }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const bad = badString(v);
      if (bad) throw refuse(where, node, `must not contain ${bad}`);
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (node.depth >= MAX_INPUT_DEPTH) throw refuse(where, node, `nested more than ${MAX_INPUT_DEPTH} levels deep`);
    for (const [key, child] of Object.entries(v)) {
      const next: Node = { value: child, depth: node.depth + 1, key, parent: node };
      const bad = badString(key);
      if (bad) throw refuse(where, next, `keys must not contain ${bad}`);
      stack.push(next);
    }
  }
}
