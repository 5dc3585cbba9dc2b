import { LRUCache } from 'lru-cache';
import { analyse } from './analysis';
import { beginRender, chargeText, compileField, endRender, hasHash, HELPERS, isScoped, lookup, renderField, type FieldRenderer, type TemplateVariables } from './engine';

/**
 * Turning a template into something that renders: Handlebars' compiled code, or a plain renderer
 * for templates made only of text and placeholders, and a cache of compiled templates.
 */

export interface RenderedTemplate {
  title: string;
  body: string;
  /** The template's static payload, as stored: it is not rendered (docs/api.md#push-templates). */
  data: Record<string, unknown>;
}

export interface CompiledTemplate {
  variables: string[];
  /** `maxText`: characters of title and body together past which the render stops (RenderTooLongError). */
  render(variables?: TemplateVariables, options?: { maxText?: number }): RenderedTemplate;
  /**
   * The variables the template can read, of these: those whose top-level name it uses (all of them if
   * it reads the variables as a whole, e.g. `{{lookup this key}}`). Rendering them gives the same text.
   */
  used(variables: TemplateVariables): TemplateVariables;
  /** The variables that resolve to undefined or null in `variables`; they render empty. */
  missing(variables?: TemplateVariables): string[];
}

export interface TemplateSource {
  /** With `id` and `updatedAt`, the compiled template is cached until the template changes. */
  id?: string;
  updatedAt?: Date | string;
  title: string;
  body: string;
  data?: unknown;
}

/**
 * The renderer of a template made only of text and plain `{{name}}` / `{{a.b}}` placeholders (most
 * push templates), or undefined for any other. It gives the compiled template's output without
 * running Handlebars, whose every call copies and wraps its helpers: a tenth of what a worker
 * allocated per notification. A property test holds the two to the same output.
 */
function plainRenderer(program: hbs.AST.Program): ((variables: TemplateVariables) => string) | undefined {
  const pieces: (string | string[])[] = [];
  for (const node of program.body) {
    if (node.type === 'ContentStatement') {
      // Handlebars' compiler leaves out text that whitespace control emptied.
      const text = (node as hbs.AST.ContentStatement).value;
      if (text) pieces.push(text);
      continue;
    }
    if (node.type !== 'MustacheStatement') return undefined;
    const mustache = node as hbs.AST.MustacheStatement;
    if (mustache.path.type !== 'PathExpression' || mustache.params.length || hasHash(mustache)) return undefined;
    const path = mustache.path as hbs.AST.PathExpression;
    if (path.data || path.depth !== 0 || isScoped(path) || !path.parts.length || (path.parts.length === 1 && HELPERS.has(path.parts[0]))) return undefined;
    pieces.push(path.parts);
  }
  return (variables) => {
    let out = '';
    // Each placeholder as text, charged to the render in progress (see `chargeText`).
    for (const piece of pieces) out += chargeText(typeof piece === 'string' ? piece : (lookup(variables, piece) ?? ''));
    return out;
  };
}

function toData(data: unknown): Record<string, unknown> {
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

function build(source: TemplateSource): CompiledTemplate {
  const { variables, paths, programs, readsRoot } = analyse(source.title, source.body);
  const roots = new Set(paths.map((p) => p[0]));
  const data = toData(source.data);
  const title: FieldRenderer = plainRenderer(programs.title) ?? compileField('title', source.title);
  const body: FieldRenderer = plainRenderer(programs.body) ?? compileField('body', source.body);
  return {
    variables,
    render(vars = {}, options = {}) {
      const outer = beginRender(options.maxText);
      try {
        return { title: renderField('title', title, vars), body: renderField('body', body, vars), data: { ...data } };
      } finally {
        endRender(outer);
      }
    },
    used(vars) {
      if (readsRoot) return vars;
      return Object.fromEntries(Object.entries(vars).filter(([name]) => roots.has(name)));
    },
    missing(vars = {}) {
      return variables.filter((_, i) => lookup(vars, paths[i]) == null);
    },
  };
}

/** A cached compilation, with the source it was built from. */
export interface CachedTemplate {
  compiled: CompiledTemplate;
  title: string;
  body: string;
  data: string;
}

/**
 * What a compiled template is taken to weigh in memory: its source, and the compiled code and AST
 * Handlebars keeps for it, which measure at roughly 20 times the source's length.
 */
const cachedSize = (entry: CachedTemplate) => 1024 + 20 * (entry.title.length + entry.body.length) + entry.data.length;

/**
 * A compiler with its own cache of compiled templates, keyed by template id and `updatedAt`, so a
 * worker does not re-parse a template for every message and never renders a stale version. The
 * cache is bounded by entries and by memory (`maxBytes`, by `cachedSize`'s estimate).
 */
export function createTemplateCompiler(options: { cacheSize?: number; maxBytes?: number } = {}) {
  const cache = new LRUCache<string, CachedTemplate>({
    max: options.cacheSize ?? 1000,
    maxSize: options.maxBytes ?? 32 * 1024 * 1024,
    sizeCalculation: cachedSize,
  });
  return {
    cache,
    compile(source: TemplateSource): CompiledTemplate {
      if (!source.id || source.updatedAt === undefined) return build(source);
      const key = `${source.id}@${new Date(source.updatedAt).getTime()}`;
      const data = JSON.stringify(source.data ?? null);
      const hit = cache.get(key);
      // updatedAt has millisecond precision: two edits within one millisecond must not serve the first.
      if (hit && hit.title === source.title && hit.body === source.body && hit.data === data) return hit.compiled;
      const compiled = build(source);
      cache.set(key, { compiled, title: source.title, body: source.body, data });
      return compiled;
    },
  };
}

const defaultCompiler = createTemplateCompiler();

/** Compiles (or takes from the process's cache) a template. Throws TemplateSyntaxError. */
export function compileTemplate(source: TemplateSource): CompiledTemplate {
  return defaultCompiler.compile(source);
}
