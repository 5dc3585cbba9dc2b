import Handlebars from 'handlebars';

/**
 * The Handlebars environment Herald renders with, and the limits of one render: what the engine
 * offers (its helpers), what it costs at most (the render budget), and what its errors say.
 */

export type TemplateField = 'title' | 'body';

export type TemplateVariables = Record<string, unknown>;

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
 * A render that went past the text it was allowed (`maxText`): stopped there, before the rest was
 * produced. A send allows FCM's 4 KB: a message with more characters than that is refused anyway.
 */
export class RenderTooLongError extends TemplateRenderError {
  override name = 'RenderTooLongError';
  constructor(readonly limit: number) {
    super(`the rendered title and body are longer than ${limit} characters`);
  }
}

/** Whether an error is one the template or its variables caused (the caller's to fix, a 400), not Herald's. */
export const isTemplateError = (err: unknown): err is TemplateSyntaxError | TemplateRenderError => err instanceof TemplateSyntaxError || err instanceof TemplateRenderError;

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

export interface RenderBudget {
  iterations: number;
  output: number;
  /** Characters the render (title and body together) may still produce; see `RenderTooLongError`. */
  text: number;
  maxText: number;
}

/** The budget of the render in progress; rendering is synchronous, so one at a time per process. */
let budget: RenderBudget | undefined;

/**
 * Starts one render (title and body together) with a fresh budget, and answers the budget it
 * replaces, which `endRender` puts back.
 */
export function beginRender(maxText = Infinity): RenderBudget | undefined {
  const outer = budget;
  budget = { iterations: RENDER_MAX_ITERATIONS, output: RENDER_MAX_LOOP_OUTPUT, text: maxText, maxText };
  return outer;
}

/**
 * A piece of a field's text, charged to the render in progress: past its `maxText` the render stops
 * (`'' +` throws, as Handlebars does, for a value that cannot become text).
 */
export function chargeText(value: unknown): string {
  const text = '' + (value as string);
  if (budget && (budget.text -= text.length) < 0) throw new RenderTooLongError(budget.maxText);
  return text;
}

export function endRender(outer: RenderBudget | undefined): void {
  budget = outer;
}

type HelperOptions = Handlebars.HelperOptions;

/** An isolated Handlebars environment: nobody else's helpers or partials, and a `log` that stays silent. */
const hb = Handlebars.create();
// `{{log}}` would write template content to the process's console.
hb.registerHelper('log', () => '');
// The generated code's way to `chargeText` (below). Templates cannot call it: they are compiled with
// `knownHelpersOnly`, so `{{__heraldText}}` is a variable like any other.
const CHARGE_HELPER = '__heraldText';
hb.registerHelper(CHARGE_HELPER, chargeText);
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
 * each piece a string before it is joined ("12"), as escaping does, without the escaping. The pieces
 * of a field's own program (not a block's, whose whole text is a piece of the field) are charged to the
 * render's `maxText`, so that a render stops as soon as it has produced too much.
 */
const engine = hb as unknown as { JavaScriptCompiler: new () => object };
const handlebarsCodeGenerator = engine.JavaScriptCompiler.prototype as CodeGenerator;
class TextCodeGenerator extends engine.JavaScriptCompiler {}
const textCodeGenerator = TextCodeGenerator.prototype as CodeGenerator;
textCodeGenerator.compiler = TextCodeGenerator;
textCodeGenerator.appendToBuffer = function (source, location, explicit) {
  // Helpers are called through Handlebars' wrapper, which expects an options object last: `{}`.
  const [open, close] = (this as { isChild?: boolean }).isChild ? ['"" + (', ')'] : [`container.helpers.${CHARGE_HELPER}(`, ', {})'];
  return handlebarsCodeGenerator.appendToBuffer.call(this, [open, ...(Array.isArray(source) ? source : [source]), close], location, explicit);
};
engine.JavaScriptCompiler = TextCodeGenerator;

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;
type RuntimeOptions = Handlebars.RuntimeOptions;

const COMPILE_OPTIONS: CompileOptions = { noEscape: true, strict: false, knownHelpersOnly: true };
/**
 * Prototype access stays disabled (Handlebars' defaults). Saying so explicitly also stops Handlebars
 * from logging a warning for each denied property, e.g. `{{constructor}}`.
 */
const RUNTIME_OPTIONS: RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

/** Built-in helpers that take a block and exactly one argument. */
export const BLOCK_HELPERS = new Set(['if', 'unless', 'with', 'each']);
/** Built-in helpers usable inline: `{{lookup user key}}`, `{{log "x"}}`. */
export const INLINE_HELPERS = new Set(['lookup', 'log']);
export const HELPERS = new Set([...BLOCK_HELPERS, ...INLINE_HELPERS, 'helperMissing', 'blockHelperMissing']);

export const hasHash = (node: { hash?: hbs.AST.Hash }) => (node.hash?.pairs.length ?? 0) > 0;

/** Handlebars' own test for `this.x` / `./x`, which bypass helpers and block params. */
export const isScoped = (path: hbs.AST.PathExpression) => /^\.|this\b/.test(path.original);

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

export function parse(field: TemplateField, source: string): hbs.AST.Program {
  try {
    return hb.parse(source);
  } catch (err) {
    throw new TemplateSyntaxError(field, engineReason(err));
  }
}

/** A title's or body's text from the variables. */
export type FieldRenderer = (variables: TemplateVariables, options?: RuntimeOptions) => string;

/** Compiles one field with Handlebars. Throws TemplateSyntaxError. */
export function compileField(field: TemplateField, text: string): FieldRenderer {
  const template = hb.compile(text, COMPILE_OPTIONS);
  try {
    // Handlebars compiles lazily; render once now so that a compile error is a syntax error here,
    // not a failure at send time.
    template({}, RUNTIME_OPTIONS);
  } catch (err) {
    throw new TemplateSyntaxError(field, engineReason(err));
  }
  return template;
}

/** Renders one field (within the budget of the render in progress). Throws TemplateRenderError. */
export function renderField(field: TemplateField, template: FieldRenderer, vars: TemplateVariables): string {
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
}

/**
 * Reads a dotted path from the variables the way Handlebars does with prototype access disabled:
 * own properties only, so `constructor` or `__proto__` never resolve to something inherited.
 */
export function lookup(variables: unknown, parts: string[]): unknown {
  let value: unknown = variables;
  for (const part of parts) {
    if (value === null || value === undefined) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
