import { BLOCK_HELPERS, hasHash, HELPERS, INLINE_HELPERS, isScoped, parse, TEMPLATE_MAX_DEPTH, TemplateSyntaxError, type TemplateField } from './engine';

/**
 * Reading a template: its variables and whether it uses only what Herald offers. The variables are
 * read from the parsed AST, never with a regex, so that helpers, `this`, `@data` and loop-local names
 * are not mistaken for variables.
 */

type Node = hbs.AST.Node;
type Expression = hbs.AST.Expression;
type PathExpression = hbs.AST.PathExpression;
type Program = hbs.AST.Program;

/**
 * Where names resolve inside a block: `base` is the path of the block's context from the root
 * variables (`[]` at the root, `['user']` inside `{{#with user}}`), or null where the context is
 * loop-local or unknown (inside `{{#each}}`), whose names are not template variables.
 */
interface Scope {
  base: string[] | null;
  blockParams: Map<string, string[] | null>;
}

class VariableCollector {
  /** Unique variables in first-appearance order, by dotted name, with their path segments. */
  readonly found = new Map<string, string[]>();
  /** Whether an expression reads the root variables as a whole (`this` at the root, `@root`, `../` up to it): any of them may be used. */
  readsRoot = false;
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

  /** The root-variable path an expression reads, or null when it reads no template variable (or the root itself: `readsRoot`). */
  private resolve(path: PathExpression, scopes: Scope[]): string[] | null {
    const parts = this.resolvePath(path, scopes);
    if (parts && !parts.length) this.readsRoot = true;
    return parts?.length ? parts : null;
  }

  private resolvePath(path: PathExpression, scopes: Scope[]): string[] | null {
    if (path.data) {
      // `@root.user.name` is the root variable `user.name`; `@index`, `@key`, … are loop data.
      return path.parts[0] === 'root' ? path.parts.slice(1) : null;
    }
    const current = scopes[scopes.length - 1];
    if (path.depth === 0 && !isScoped(path) && path.parts.length && current.blockParams.has(path.parts[0])) {
      const base = current.blockParams.get(path.parts[0]);
      return base ? [...base, ...path.parts.slice(1)] : null;
    }
    // `../` above the outermost scope reads nothing (Handlebars renders it empty).
    const target = scopes[scopes.length - 1 - path.depth];
    if (!target?.base) return null;
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

export interface Analysis {
  variables: string[];
  paths: string[][];
  /** The root variables may be read as a whole: which of them are used is not known. */
  readsRoot: boolean;
  programs: Record<TemplateField, Program>;
}

/** Parses and reads a template's title and body. Throws TemplateSyntaxError. */
export function analyse(title: string, body: string): Analysis {
  const collector = new VariableCollector();
  const programs = { title: parse('title', title), body: parse('body', body) };
  collector.collect('title', programs.title);
  collector.collect('body', programs.body);
  return { variables: [...collector.found.keys()], paths: [...collector.found.values()], readsRoot: collector.readsRoot, programs };
}

/** The variables of a template: unique names in first-appearance order, title then body. Throws TemplateSyntaxError. */
export function templateVariables(title: string, body: string): string[] {
  return analyse(title, body).variables;
}

/**
 * Throws TemplateSyntaxError when the title or body is not a template Herald can render. Parsing and
 * reading the template (its helpers, their arguments, its nesting) is the check: compiling it too
 * cost four times as much, which a 1,000-template import multiplies, and refuses nothing more.
 */
export function validateTemplate(title: string, body: string): void {
  analyse(title, body);
}
