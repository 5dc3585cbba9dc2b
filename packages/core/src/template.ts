import Handlebars from 'handlebars';
import { LRUCache } from 'lru-cache';

/**
 * Herald's one template engine: the API uses it to validate templates, list their variables and
 * preview them; the worker uses it to render each notification.
 *
 * Templates are Handlebars (docs/api.md#push-templates). Push text is plain text, so nothing is HTML-escaped. The
 * variables are read from the parsed AST, never with a regex, so that helpers, `this`, `@data` and
 * loop-local names are not mistaken for variables.
 */

type Node = hbs.AST.Node;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type Program = hbs.AST.Program;

export type TemplateField = 'title' | 'body';

/** A template that does not parse, or uses Handlebars features Herald does not offer. */
export class TemplateSyntaxError extends Error {
  override name = 'TemplateSyntaxError';
  constructor(
    readonly field: TemplateField,
    readonly reason: string,
  ) {
    super(`Invalid template ${field}: ${reason}`);
  }
}

/**
 * Variables that cannot be rendered within the render budget, or at all (e.g. an object whose
 * `toString` is not a function). The message is Herald's, never the engine's.
 */
export class TemplateRenderError extends Error {
  override name = 'TemplateRenderError';
  constructor(readonly reason: string) {
    super(`The template cannot be rendered with these variables: ${reason}`);
  }
}

/**
 * What one render may cost. Loops are the only way a template multiplies work (there are no
 * partials, so no recursion): `{{#each a}}{{#each @root.a}}…` nested four deep over 110 items is
 * 146 million iterations. The budget bounds the iterations of all loops of one render (title and
 * body together) and the text they produce; FCM refuses a message over 4 KB, so nothing near these
 * bounds is ever useful.
 */
export const RENDER_MAX_ITERATIONS = 10_000;
/** Characters all loop iterations of one render may produce (an inner loop's text counts again in each enclosing loop). */
export const RENDER_MAX_LOOP_OUTPUT = 256 * 1024;
/** Characters of a rendered title or body. */
export const RENDER_MAX_OUTPUT = 64 * 1024;
/** Blocks (`{{#each}}`, `{{#if}}`, …) and sub-expressions nested in one another. */
export const TEMPLATE_MAX_DEPTH = 16;

interface RenderBudget {
  iterations: number;
  output: number;
}

/** The budget of the render in progress; rendering is synchronous, so one at a time per process. */
let budget: RenderBudget | undefined;

type HelperOptions = Handlebars.HelperOptions;

/** An isolated Handlebars environment: nobody else's helpers or partials, and a `log` that stays silent. */
const hb = Handlebars.create();
// `{{log}}` would write template content to the process's console.
hb.registerHelper('log', () => '');
// Every loop goes through `each` (a Mustache section over a list too, through blockHelperMissing),
// so charging each of its iterations to the budget bounds every render.
const builtinEach = hb.helpers.each as (this: unknown, context: unknown, options: HelperOptions) => string;
hb.registerHelper('each', function (this: unknown, context: unknown, options: HelperOptions) {
  const current = budget;
  if (!current || !options?.fn) return builtinEach.call(this, context, options);
  const fn = options.fn;
  const charged = (value: unknown, frame?: unknown) => {
    if (--current.iterations < 0) throw new TemplateRenderError(`its loops run more than ${RENDER_MAX_ITERATIONS} iterations`);
    const text = fn(value, frame as never);
    current.output -= text.length;
    if (current.output < 0) throw new TemplateRenderError(`its loops produce more than ${RENDER_MAX_LOOP_OUTPUT} characters`);
    return text;
  };
  return builtinEach.call(this, context, { ...options, fn: charged as HelperOptions['fn'] });
});

/** What Herald changes of Handlebars' code generator, which its environments let one replace (not in its type declarations). */
interface CodeGenerator {
  compiler: unknown;
  appendToBuffer(this: object, source: unknown, location?: unknown, explicit?: boolean): unknown;
}
/**
 * Each placeholder renders as text. Handlebars' generated code joins a template's pieces with
 * JavaScript's `+` and makes the whole a string only at the end, so without escaping two numbers side
 * by side would add up (`{{a}}{{b}}` with 1 and 2 gave "3"). This environment's code generator makes
 * each piece a string before it is joined ("12"), as escaping does, without the escaping.
 */
const engine = hb as unknown as { JavaScriptCompiler: new () => object };
const handlebarsCodeGenerator = engine.JavaScriptCompiler.prototype as CodeGenerator;
class TextCodeGenerator extends engine.JavaScriptCompiler {}
const textCodeGenerator = TextCodeGenerator.prototype as CodeGenerator;
textCodeGenerator.compiler = TextCodeGenerator;
textCodeGenerator.appendToBuffer = function (source, location, explicit) {
  return handlebarsCodeGenerator.appendToBuffer.call(this, ['"" + (', ...(Array.isArray(source) ? source : [source]), ')'], location, explicit);
};
engine.JavaScriptCompiler = TextCodeGenerator;

const COMPILE_OPTIONS: CompileOptions = { noEscape: true, strict: false, knownHelpersOnly: true };
/**
 * Prototype access stays disabled (Handlebars' defaults). Saying so explicitly also stops Handlebars
 * from logging a warning for each denied property, e.g. `{{constructor}}`.
 */
const RUNTIME_OPTIONS: RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

/** Built-in helpers that take a block and exactly one argument. */
const BLOCK_HELPERS = new Set(['if', 'unless', 'with', 'each']);
/** Built-in helpers usable inline: `{{lookup user key}}`, `{{log "x"}}`. */
const INLINE_HELPERS = new Set(['lookup', 'log']);
const HELPERS = new Set([...BLOCK_HELPERS, ...INLINE_HELPERS, 'helperMissing', 'blockHelperMissing']);

/**
 * Where names resolve inside a block: `base` is the path of the block's context from the root
 * variables (`[]` at the root, `['user']` inside `{{#with user}}`), or null where the context is
 * loop-local or unknown (inside `{{#each}}`), whose names are not template variables.
 */
interface Scope {
  base: string[] | null;
  blockParams: Map<string, string[] | null>;
}

const hasHash = (node: { hash?: hbs.AST.Hash }) => (node.hash?.pairs.length ?? 0) > 0;

/** Handlebars' own test for `this.x` / `./x`, which bypass helpers and block params. */
const isScoped = (path: PathExpression) => /^\.|this\b/.test(path.original);

class VariableCollector {
  /** Unique variables in first-appearance order, by dotted name, with their path segments. */
  readonly found = new Map<string, string[]>();
  private field: TemplateField = 'title';

  collect(field: TemplateField, program: Program) {
    this.field = field;
    this.depth = 0;
    this.program(program, [{ base: [], blockParams: new Map() }]);
  }

  private fail(reason: string, node: Node): never {
    const loc = node.loc ? ` (line ${node.loc.start.line}, column ${node.loc.start.column + 1})` : '';
    throw new TemplateSyntaxError(this.field, `${reason}${loc}`);
  }

  private add(parts: string[]) {
    if (!parts.length) return;
    const name = parts.join('.');
    if (!this.found.has(name)) this.found.set(name, parts);
  }

  /** The root-variable path an expression reads, or null when it reads no template variable. */
  private resolve(path: PathExpression, scopes: Scope[]): string[] | null {
    if (path.data) {
      // `@root.user.name` is the root variable `user.name`; `@index`, `@key`, … are loop data.
      return path.parts[0] === 'root' && path.parts.length > 1 ? path.parts.slice(1) : null;
    }
    const current = scopes[scopes.length - 1];
    if (path.depth === 0 && !isScoped(path) && path.parts.length && current.blockParams.has(path.parts[0])) {
      const base = current.blockParams.get(path.parts[0]);
      return base ? [...base, ...path.parts.slice(1)] : null;
    }
    // `../` above the outermost scope reads nothing (Handlebars renders it empty).
    const target = scopes[scopes.length - 1 - path.depth];
    if (!target?.base || !path.parts.length) return null;
    return [...target.base, ...path.parts];
  }

  private program(program: Program | undefined, scopes: Scope[]) {
    for (const statement of program?.body ?? []) this.statement(statement, scopes);
  }

  /** Blocks and sub-expressions currently open around the node being read. */
  private depth = 0;

  private nested(node: Node, visit: () => void) {
    if (++this.depth > TEMPLATE_MAX_DEPTH) this.fail(`blocks and sub-expressions are nested more than ${TEMPLATE_MAX_DEPTH} deep`, node);
    try {
      visit();
    } finally {
      this.depth--;
    }
  }

  private statement(node: Node, scopes: Scope[]) {
    switch (node.type) {
      case 'MustacheStatement':
        return this.mustache(node as hbs.AST.MustacheStatement, scopes);
      case 'BlockStatement':
        return this.nested(node, () => this.block(node as hbs.AST.BlockStatement, scopes));
      case 'PartialStatement':
      case 'PartialBlockStatement':
        return this.fail('partials are not supported', node);
      case 'DecoratorBlock':
      case 'Decorator':
        return this.fail('decorators are not supported', node);
      default:
        return; // content and comments
    }
  }

  private expression(node: Expression, scopes: Scope[]) {
    if (node.type === 'PathExpression') {
      const parts = this.resolve(node as PathExpression, scopes);
      if (parts) this.add(parts);
    } else if (node.type === 'SubExpression') {
      const sub = node as hbs.AST.SubExpression;
      this.nested(sub, () => {
        this.helperCall(sub.path, sub, false);
        this.arguments(sub, scopes);
      });
    }
  }

  private arguments(call: { params: Expression[]; hash: hbs.AST.Hash }, scopes: Scope[]) {
    for (const param of call.params) this.expression(param, scopes);
    for (const pair of call.hash?.pairs ?? []) this.expression(pair.value, scopes);
  }

  /** Checks a helper call against the helpers Herald offers, with a message better than Handlebars' runtime one. */
  private helperCall(path: PathExpression, node: Node & { params: Expression[]; hash?: hbs.AST.Hash }, asBlock: boolean) {
    const name = path.original;
    if (BLOCK_HELPERS.has(name)) {
      if (!asBlock) this.fail(`the ${name} helper must be used as a block: {{#${name} …}}…{{/${name}}}`, node);
      if (node.params.length !== 1) {
        this.fail(`#${name} requires exactly one argument`, node);
      }
      return;
    }
    if (!INLINE_HELPERS.has(name)) this.fail(`unknown helper "${name}"`, node);
    if (name === 'lookup' && (node.params.length !== 2 || hasHash(node))) this.fail('lookup requires exactly two arguments: {{lookup object key}}', node);
  }

  private mustache(node: hbs.AST.MustacheStatement, scopes: Scope[]) {
    const hasArguments = node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;
    if (node.path.type !== 'PathExpression') {
      // `{{"first name"}}` / `{{12}}` look the literal up as a name in the context.
      const value = (node.path as hbs.AST.StringLiteral | hbs.AST.NumberLiteral).value;
      if (!hasArguments && (typeof value === 'string' || typeof value === 'number')) {
        const parts = this.resolve({ type: 'PathExpression', data: false, depth: 0, parts: [String(value)], original: String(value), loc: node.loc }, scopes);
        if (parts) this.add(parts);
      }
      return;
    }
    const path = node.path as PathExpression;
    const helperName = !path.data && path.depth === 0 && path.parts.length === 1 && !isScoped(path) ? path.parts[0] : undefined;
    if (hasArguments) {
      this.helperCall(path, node, false);
      this.arguments(node, scopes);
    } else if (helperName && HELPERS.has(helperName) && !scopes[scopes.length - 1].blockParams.has(helperName)) {
      if (BLOCK_HELPERS.has(helperName) || helperName === 'lookup') this.helperCall(path, node, false);
    } else {
      this.expression(path, scopes);
    }
  }

  private block(node: hbs.AST.BlockStatement, scopes: Scope[]) {
    const path = node.path;
    const name = path.original;
    const current = scopes[scopes.length - 1];
    const hasArguments = node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0;
    const inner = (base: string[] | null, params: (string[] | null)[] = []): Scope[] => {
      const blockParams = new Map(current.blockParams);
      (node.program.blockParams ?? []).forEach((p, i) => blockParams.set(p, params[i] ?? null));
      return [...scopes, { base, blockParams }];
    };

    if (!HELPERS.has(name) && !hasArguments) {
      // A Mustache-style section, `{{#user}}…{{/user}}`: the value is a variable; inside, the context
      // is that value, an object or each item of a list, so its names are not root variables.
      this.expression(path, scopes);
      this.program(node.program, inner(null));
      this.program(node.inverse, scopes);
      return;
    }
    this.helperCall(path, node, true);
    this.arguments(node, scopes);
    if (name === 'with') {
      const first = node.params[0];
      const base = first.type === 'PathExpression' ? this.resolve(first as PathExpression, scopes) : null;
      this.program(node.program, inner(base, [base]));
    } else if (name === 'each') {
      this.program(node.program, inner(null));
    } else {
      // if / unless (and the inline helpers, used as a block) keep the context.
      this.program(node.program, scopes);
    }
    this.program(node.inverse, scopes);
  }
}

/**
 * The engine's own words only where they help the author: its parser's and compiler's messages
 * (Handlebars' Exception, e.g. "Parse error on line 1: …", "if doesn't match each"). Anything else
 * it throws is an engine internal ("Cannot read properties of undefined", "Maximum call stack size
 * exceeded") and is answered in Herald's words.
 */
function engineReason(err: unknown): string {
  if (err instanceof Handlebars.Exception) return (err as Error).message;
  // The parser's errors are plain Errors.
  if (err instanceof Error && /^(Parse|Lexical) error on line \d+/.test(err.message)) return err.message;
  if (err instanceof RangeError) return 'the template is nested too deeply';
  return 'the template uses Handlebars in a way Herald does not support';
}

function parse(field: TemplateField, source: string): Program {
  try {
    return hb.parse(source);
  } catch (err) {
    throw new TemplateSyntaxError(field, engineReason(err));
  }
}

interface Analysis {
  variables: string[];
  paths: string[][];
  programs: Record<TemplateField, Program>;
}

function analyse(title: string, body: string): Analysis {
  const collector = new VariableCollector();
  const programs = { title: parse('title', title), body: parse('body', body) };
  collector.collect('title', programs.title);
  collector.collect('body', programs.body);
  return { variables: [...collector.found.keys()], paths: [...collector.found.values()], programs };
}

/**
 * The renderer of a template made only of text and plain `{{name}}` / `{{a.b}}` placeholders (most
 * push templates), or undefined for any other. It gives the compiled template's output without
 * running Handlebars, whose every call copies and wraps its helpers: a tenth of what a worker
 * allocated per notification. A property test holds the two to the same output.
 */
function plainRenderer(program: Program): ((variables: TemplateVariables) => string) | undefined {
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
    const path = mustache.path as PathExpression;
    if (path.data || path.depth !== 0 || isScoped(path) || !path.parts.length || (path.parts.length === 1 && HELPERS.has(path.parts[0]))) return undefined;
    pieces.push(path.parts);
  }
  return (variables) => {
    let out = '';
    // Each placeholder as text (`'' +` throws, as Handlebars does, for a value that cannot become text).
    for (const piece of pieces) out += typeof piece === 'string' ? piece : '' + (lookup(variables, piece) ?? '');
    return out;
  };
}

/** The variables of a template: unique names in first-appearance order, title then body. Throws TemplateSyntaxError. */
export function templateVariables(title: string, body: string): string[] {
  return analyse(title, body).variables;
}

export type TemplateVariables = Record<string, unknown>;

/**
 * Reads a dotted path from the variables the way Handlebars does with prototype access disabled:
 * own properties only, so `constructor` or `__proto__` never resolve to something inherited.
 */
function lookup(variables: unknown, parts: string[]): unknown {
  let value: unknown = variables;
  for (const part of parts) {
    if (value === null || value === undefined) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

export interface RenderedTemplate {
  title: string;
  body: string;
  /** The template's static payload, as stored: it is not rendered (docs/api.md#push-templates). */
  data: Record<string, unknown>;
}

export interface CompiledTemplate {
  variables: string[];
  render(variables?: TemplateVariables): RenderedTemplate;
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

function toData(data: unknown): Record<string, unknown> {
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

function build(source: TemplateSource): CompiledTemplate {
  const { variables, paths, programs } = analyse(source.title, source.body);
  const data = toData(source.data);
  const compile = (field: TemplateField, text: string) => {
    const template = hb.compile(text, COMPILE_OPTIONS);
    try {
      // Handlebars compiles lazily; render once now so that a compile error is a syntax error here,
      // not a failure at send time.
      template({}, RUNTIME_OPTIONS);
    } catch (err) {
      throw new TemplateSyntaxError(field, engineReason(err));
    }
    return template;
  };
  const title = plainRenderer(programs.title) ?? compile('title', source.title);
  const body = plainRenderer(programs.body) ?? compile('body', source.body);
  const renderField = (field: TemplateField, template: (vars: TemplateVariables, options?: RuntimeOptions) => string, vars: TemplateVariables) => {
    let text: string;
    try {
      text = template(vars, RUNTIME_OPTIONS);
    } catch (err) {
      if (err instanceof TemplateRenderError) throw err;
      // e.g. `{"a": {"toString": "x"}}` rendered as `{{a}}`: a value that cannot become text.
      if (err instanceof RangeError) throw new TemplateRenderError(`the ${field} nests too deeply`);
      throw new TemplateRenderError(`a value used in the ${field} cannot be turned into text`);
    }
    if (text.length > RENDER_MAX_OUTPUT) throw new TemplateRenderError(`the rendered ${field} is longer than ${RENDER_MAX_OUTPUT} characters`);
    return text;
  };
  return {
    variables,
    render(vars = {}) {
      const outer = budget;
      budget = { iterations: RENDER_MAX_ITERATIONS, output: RENDER_MAX_LOOP_OUTPUT };
      try {
        return { title: renderField('title', title, vars), body: renderField('body', body, vars), data: { ...data } };
      } finally {
        budget = outer;
      }
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

/**
 * Throws TemplateSyntaxError when the title or body is not a template Herald can render. Parsing and
 * reading the template (its helpers, their arguments, its nesting) is the check: compiling it too
 * cost four times as much, which a 1,000-template import multiplies, and refuses nothing more.
 */
export function validateTemplate(title: string, body: string): void {
  analyse(title, body);
}

/** Whether an error is one the template or its variables caused (the caller's to fix, a 400), not Herald's. */
export const isTemplateError = (err: unknown): err is TemplateSyntaxError | TemplateRenderError => err instanceof TemplateSyntaxError || err instanceof TemplateRenderError;

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;
type RuntimeOptions = Handlebars.RuntimeOptions;
