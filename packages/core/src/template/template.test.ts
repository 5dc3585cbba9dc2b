import {
  compileTemplate,
  createTemplateCompiler,
  RENDER_MAX_ITERATIONS,
  RenderTooLongError,
  TEMPLATE_MAX_DEPTH,
  TemplateRenderError,
  TemplateSyntaxError,
  templateVariables,
  validateTemplate,
} from './index';

const render = (title: string, vars: Record<string, unknown> = {}, body = '') => compileTemplate({ title, body }).render(vars);
const syntaxError = (title: string, body = '') => {
  try {
    validateTemplate(title, body);
  } catch (err) {
    return err as TemplateSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(title)} to be refused`);
};

describe('rendering', () => {
  it('never HTML-escapes: push text is plain text', () => {
    expect(render('Tom & Jerry <3 {{who}}', { who: `"Tom" & 'Jerry' <3` }).title).toBe(`Tom & Jerry <3 "Tom" & 'Jerry' <3`);
    expect(render('{{{who}}} {{&who}}', { who: '<b>' }).title).toBe('<b> <b>');
  });

  it('reads {{ name }} with spaces, and dotted paths from nested variables', () => {
    const t = compileTemplate({ title: 'Hi {{ name }}', body: '{{user.name}} from {{ user.address.city }}' });
    expect(t.render({ name: 'Ada', user: { name: 'Grace', address: { city: 'Arlington' } } })).toEqual({ title: 'Hi Ada', body: 'Grace from Arlington', data: {} });
  });

  it('renders missing variables empty and reports them', () => {
    const t = compileTemplate({ title: 'Hi {{name}}!', body: '{{user.name}} {{count}} {{flag}}' });
    const vars = { user: {}, count: 0, flag: false };
    expect(t.render(vars)).toEqual({ title: 'Hi !', body: ' 0 false', data: {} });
    expect(t.missing(vars)).toEqual(['name', 'user.name']);
    expect(t.missing({ name: null, user: null, count: 1, flag: true })).toEqual(['name', 'user.name']);
    expect(t.missing({ name: 'a', user: { name: 'b' }, count: 1, flag: true })).toEqual([]);
    expect(t.missing()).toEqual(['name', 'user.name', 'count', 'flag']);
  });

  it('returns the static data as stored, without rendering it', () => {
    const data = { link: 'app://x/{{id}}', n: 1, nested: { a: true } };
    const t = compileTemplate({ title: 't', body: 'b', data });
    const out = t.render({ id: 7 });
    expect(out.data).toEqual(data);
    out.data.link = 'changed';
    expect(t.render({}).data.link).toBe('app://x/{{id}}');
    expect(compileTemplate({ title: 't', body: 'b', data: null }).render().data).toEqual({});
  });

  it('supports the built-in block helpers', () => {
    const t = compileTemplate({
      title: '{{#if vip}}VIP {{/if}}{{#unless ok}}not ok{{/unless}}',
      body: '{{#each items}}{{@index}}:{{name}}{{#unless @last}}, {{/unless}}{{else}}none{{/each}}{{#with user as |u|}} {{u.name}}/{{name}}{{/with}} {{lookup map key}}',
    });
    expect(t.render({ vip: true, ok: false, items: [{ name: 'a' }, { name: 'b' }], user: { name: 'Z' }, map: { k: 'v' }, key: 'k' })).toEqual({
      title: 'VIP not ok',
      body: '0:a, 1:b Z/Z v',
      data: {},
    });
    expect(t.render({ ok: true, items: [] }).body).toBe('none ');
  });

  it('never reads prototype properties', () => {
    const warn = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const t = compileTemplate({ title: '[{{constructor}}][{{user.constructor.name}}][{{lookup user "__proto__"}}][{{toString}}]', body: '' });
    expect(t.render({ user: {} }).title).toBe('[][][][]');
    expect(warn).not.toHaveBeenCalled(); // and without a console warning per denied property
    warn.mockRestore();
    expect(t.variables).toEqual(['constructor', 'user.constructor.name', 'user', 'toString']);
    expect(t.missing({ user: {} })).toEqual(['constructor', 'user.constructor.name', 'toString']);
  });

  it('keeps {{log}} silent', () => {
    const spy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const info = jest.spyOn(console, 'info').mockImplementation(() => undefined);
    expect(render('{{log "secret" name}}ok', { name: 'x' }).title).toBe('ok');
    expect(spy).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    spy.mockRestore();
    info.mockRestore();
  });
});

describe('variables (read from the parsed template)', () => {
  it('lists unique names in first-appearance order, title then body', () => {
    expect(templateVariables('{{b}} {{a}} {{b}}', '{{c}} {{a}} {{ d }}')).toEqual(['b', 'a', 'c', 'd']);
    expect(templateVariables('no placeholders', '')).toEqual([]);
  });

  it('keeps dotted paths whole', () => {
    expect(templateVariables('{{user.name}} {{user}}', '{{user.address.city}} {{user.name}}')).toEqual(['user.name', 'user', 'user.address.city']);
  });

  it('excludes helpers, this and @data', () => {
    expect(templateVariables('{{#if premium}}{{this}}{{/if}}{{#unless opted}}x{{/unless}}', '{{lookup map key}} {{log "x" level="warn"}} {{@index}} {{this.plan}}')).toEqual([
      'premium',
      'opted',
      'map',
      'key',
      'plan',
    ]);
  });

  it('does not report loop-local names, but does report the list and outer names used in the loop', () => {
    expect(templateVariables('{{#each items}}{{name}} {{this.price}} {{@key}} {{../currency}} {{@root.user.name}}{{else}}{{emptyText}}{{/each}}', '')).toEqual([
      'items',
      'currency',
      'user.name',
      'emptyText',
    ]);
    expect(templateVariables('{{#each orders as |order i|}}{{order.id}} {{i}}{{/each}}', '')).toEqual(['orders']);
  });

  it('does not report a name read above the outermost scope, which renders empty', () => {
    expect(templateVariables('{{../x}} {{../../y}}', '{{#each items}}{{../../z}}{{/each}}')).toEqual(['items']);
    expect(compileTemplate({ id: 't', updatedAt: new Date(0), title: '{{../x}}!', body: '' }).render({ x: 'X' }).title).toBe('!');
  });

  it('reads names inside {{#with}} as paths under its argument', () => {
    expect(templateVariables('{{#with user}}{{name}}{{/with}}', '{{#with user.address as |a|}}{{a.city}}{{/with}}')).toEqual([
      'user',
      'user.name',
      'user.address',
      'user.address.city',
    ]);
  });

  it('handles else-if chains, sub-expressions and Mustache sections', () => {
    expect(templateVariables('{{#if a}}{{b}}{{else if c}}{{d}}{{else}}{{e}}{{/if}}', '{{lookup (lookup tables group) key}} {{#section}}{{inner}}{{/section}}')).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'tables',
      'group',
      'key',
      'section',
    ]);
  });

  it('is what compileTemplate reports', () => {
    expect(compileTemplate({ title: '{{ name }}', body: '{{user.name}}' }).variables).toEqual(['name', 'user.name']);
  });
});

describe('syntax errors', () => {
  it("refuses a template that does not parse, with the parser's message and the field", () => {
    const err = syntaxError('Hi {{name', '');
    expect(err).toBeInstanceOf(TemplateSyntaxError);
    expect(err.field).toBe('title');
    expect(err.reason).toMatch(/^Parse error on line 1/);
    expect(syntaxError('ok', '{{#if a}}x{{/each}}')).toMatchObject({ field: 'body', reason: "if doesn't match each - 1:3" });
  });

  it('refuses unknown helpers, partials, and built-in helpers used wrongly', () => {
    expect(syntaxError('{{uppercase name}}').reason).toMatch(/^unknown helper "uppercase"/);
    expect(syntaxError('{{> footer}}').reason).toMatch(/^partials are not supported/);
    expect(syntaxError('{{if a}}').reason).toMatch(/^the if helper must be used as a block/);
    expect(syntaxError('{{#if}}x{{/if}}').reason).toMatch(/^Parse error|#if requires exactly one argument/);
    expect(syntaxError('{{#with a b}}x{{/with}}').reason).toMatch(/^#with requires exactly one argument/);
    expect(syntaxError('x', '{{#each}}x{{/each}}').field).toBe('body');
    for (const t of ['{{lookup}}', '{{lookup a}}', '{{lookup a b c}}', '{{#lookup a}}x{{/lookup}}', '{{lookup a b x=1}}']) expect(syntaxError(t).reason).toMatch(/^lookup requires exactly two arguments/);
    expect(() => validateTemplate('{{lookup a b}} {{lookup (lookup a b) c}}', '')).not.toThrow();
  });

  it('accepts every template that renders', () => {
    expect(() => validateTemplate('Hi {{ name }} {{#if x}}{{x.y}}{{/if}}', '{{#each l}}{{this}}{{/each}}')).not.toThrow();
  });
});

describe('compiled template cache', () => {
  it('reuses a compiled template for the same id and updatedAt, and recompiles when it changes', () => {
    const compiler = createTemplateCompiler({ cacheSize: 10 });
    const at = new Date('2026-01-01T00:00:00Z');
    const a = compiler.compile({ id: 't1', updatedAt: at, title: 'A {{x}}', body: '' });
    expect(compiler.compile({ id: 't1', updatedAt: new Date(at), title: 'A {{x}}', body: '' })).toBe(a);
    const b = compiler.compile({ id: 't1', updatedAt: new Date(at.getTime() + 1), title: 'B {{y}}', body: '' });
    expect(b).not.toBe(a);
    expect(b.render({ y: 1 }).title).toBe('B 1');
    expect(compiler.compile({ title: 'no id', body: '' })).not.toBe(compiler.compile({ title: 'no id', body: '' }));
    // an edit within the same millisecond is not served from the cache
    const edited = compiler.compile({ id: 't1', updatedAt: at, title: 'A2 {{x}}', body: '' });
    expect(edited).not.toBe(a);
    expect(edited.render({ x: 1 }).title).toBe('A2 1');
    expect(compiler.compile({ id: 't1', updatedAt: at, title: 'A2 {{x}}', body: '', data: { k: 1 } }).render().data).toEqual({ k: 1 });
  });

  it('stays bounded, evicting the least recently used', () => {
    const compiler = createTemplateCompiler({ cacheSize: 2 });
    const at = new Date();
    const one = compiler.compile({ id: '1', updatedAt: at, title: '1', body: '' });
    compiler.compile({ id: '2', updatedAt: at, title: '2', body: '' });
    expect(compiler.compile({ id: '1', updatedAt: at, title: '1', body: '' })).toBe(one); // 1 is now the most recent
    compiler.compile({ id: '3', updatedAt: at, title: '3', body: '' }); // evicts 2
    expect(compiler.cache.size).toBe(2);
    expect(compiler.compile({ id: '1', updatedAt: at, title: '1', body: '' })).toBe(one);
  });

  it('is bounded by memory as well as by entries: a few large templates evict the rest', () => {
    const compiler = createTemplateCompiler({ cacheSize: 1000, maxBytes: 500_000 });
    const at = new Date();
    for (let i = 0; i < 100; i++) compiler.compile({ id: `t${i}`, updatedAt: at, title: `${i} {{x}}`, body: 'y'.repeat(4000) });
    // 100 templates of ~80 KB each by the cache's estimate: only a handful stay.
    expect(compiler.cache.size).toBeLessThanOrEqual(6);
    expect(compiler.cache.calculatedSize).toBeLessThanOrEqual(500_000);
  });
});

describe('render budget (a template or variables that would freeze the process)', () => {
  const quartic = '{{#each a}}{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}{{/each}}{{/each}}{{/each}}{{/each}}';

  it('stops nested loops over the variables once they exceed the iteration budget', () => {
    const template = compileTemplate({ title: 't', body: quartic });
    // 110⁴ = 146 million iterations unbounded; the budget stops it after RENDER_MAX_ITERATIONS.
    const err = (() => {
      try {
        template.render({ a: new Array(110).fill(0) });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect((err as Error).message).toMatch(`more than ${RENDER_MAX_ITERATIONS} iterations`);
    // The same template with a small list renders normally, and the budget is per render.
    expect(template.render({ a: [1, 2, 3] }).body).toBe('');
    expect(compileTemplate({ title: '{{#each a}}{{this}},{{/each}}', body: '{{#a}}[{{.}}]{{/a}}' }).render({ a: [1, 2] })).toMatchObject({ title: '1,2,', body: '[1][2]' });
  });

  it('counts Mustache sections over lists, and the text loops produce', () => {
    expect(() => compileTemplate({ title: 't', body: '{{#a}}{{#b}}{{#c}}x{{/c}}{{/b}}{{/a}}' }).render({ a: Array(50).fill({ b: Array(50).fill({ c: Array(50).fill(1) }) }) })).toThrow(TemplateRenderError);
    // Few iterations, but each repeats a 60 KB variable.
    expect(() => compileTemplate({ title: 't', body: '{{#each a}}{{@root.big}}{{/each}}' }).render({ a: Array(100).fill(1), big: 'x'.repeat(60_000) })).toThrow(/more than \d+ characters/);
    expect(() => compileTemplate({ title: 't', body: '{{big}}{{big}}' }).render({ big: 'x'.repeat(40_000) })).toThrow(/rendered body is longer than/);
  });

  it('answers a value that cannot become text in its own words, not the engine\'s', () => {
    const template = compileTemplate({ title: 'Hi {{a}}', body: 'b' });
    expect(() => template.render({ a: { toString: 'x' } })).toThrow(TemplateRenderError);
    expect(() => template.render({ a: { toString: 'x' } })).toThrow('The template cannot be rendered with these variables: a value used in the title cannot be turned into text');
    expect(template.render({ a: { b: 1 } }).title).toBe('Hi [object Object]');
  });

  it(`refuses blocks or sub-expressions nested more than ${TEMPLATE_MAX_DEPTH} deep, quickly`, () => {
    const nested = (depth: number) => '{{#each a}}'.repeat(depth) + 'x' + '{{/each}}'.repeat(depth);
    expect(() => validateTemplate('t', nested(TEMPLATE_MAX_DEPTH))).not.toThrow();
    expect(syntaxError('t', nested(TEMPLATE_MAX_DEPTH + 1)).reason).toMatch(`nested more than ${TEMPLATE_MAX_DEPTH} deep`);
    expect(syntaxError('t', nested(180)).reason).toMatch(`nested more than ${TEMPLATE_MAX_DEPTH} deep`);
    const sub = (depth: number) => '{{lookup ' + '(lookup '.repeat(depth) + 'a' + ' b)'.repeat(depth) + ' c}}';
    expect(syntaxError('t', sub(TEMPLATE_MAX_DEPTH + 1)).reason).toMatch('nested more than');
    expect(() => validateTemplate('t', sub(3))).not.toThrow();
  });

  it('never answers with engine internals', () => {
    const reasons = ['{{#each}}{{/each}}', '{{lookup}}', '{{#lookup a b}}x{{/lookup}}', '{{#with}}x{{/with}}', '{{{{raw}}}}x{{{{/raw}}}}', '{{#if a}}'.repeat(600)].map((t) => {
      try {
        validateTemplate('t', t);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    });
    for (const reason of reasons) expect(reason).not.toMatch(/Cannot read properties|Maximum call stack|is not a function|undefined \(reading/);
  });
});

describe('what the save-time check accepts, the engine compiles', () => {
  it('any template built from helpers with any number of arguments: accepted ⇒ compiles and renders (or a TemplateRenderError)', () => {
    const fc = require('fast-check') as typeof import('fast-check');
    const arg = fc.constantFrom('a', 'b.c', '"s"', '1', 'this', '@root.a', '(lookup a b)', 'x=1');
    const call = fc.tuple(fc.constantFrom('lookup', 'log', 'each', 'with', 'if', 'unless', 'a', 'a.b'), fc.array(arg, { maxLength: 3 }), fc.boolean());
    const piece = call.map(([name, args, asBlock]) => {
      const inner = [name, ...args].join(' ');
      return asBlock ? `{{#${inner}}}x{{else}}y{{/${name}}}` : `{{${inner}}}`;
    });
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }), (pieces) => {
        const body = pieces.join(' ');
        try {
          validateTemplate('t', body);
        } catch (err) {
          expect(err).toBeInstanceOf(TemplateSyntaxError);
          return;
        }
        const template = compileTemplate({ title: 't', body });
        for (const vars of [{}, { a: { b: 1 }, b: 'b' }, { a: [1, 2], b: { c: [3] } }]) {
          try {
            template.render(vars);
          } catch (err) {
            expect(err).toBeInstanceOf(TemplateRenderError);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('plain templates (text and {{name}} placeholders) render without Handlebars, to the same text', () => {
  const fc = require('fast-check') as typeof import('fast-check');
  const names = ['a', 'b', 'a.b', 'a.length', 'a.0', 'b.c.d', 'constructor', 'toString', 'valueOf', '__proto__', 'a.constructor', '[x y]'];
  const forms = ['{{%}}', '{{ % }}', '{{~%}}', '{{%~}}', '{{{%}}}', '{{& %}}'];
  /** Plain templates made of the given placeholder forms and bits of text. */
  const templates = (placeholderForms: string[]) => {
    const placeholder = fc.tuple(fc.constantFrom(...names), fc.constantFrom(...placeholderForms)).map(([name, form]) => form.replace('%', name));
    const text = fc.stringMatching(/^[a-z \n\t.!]{0,6}$/);
    return fc.array(fc.oneof(placeholder, text), { maxLength: 6 }).map((pieces) => pieces.join(''));
  };
  /** Variables as the API hands them over: parsed from JSON, so `__proto__` can be an own key. */
  const variables = (string: import('fast-check').Arbitrary<string>) => {
    const key = fc.constantFrom('a', 'b', 'c', 'x y', 'constructor', 'toString', 'valueOf', '__proto__', 'length', '0', 'd');
    return fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, string, fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }), tie('object')),
      object: fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as unknown),
    })).object;
  };
  const outcome = (render: () => string) => {
    try {
      return { text: render() };
    } catch {
      return { error: true };
    }
  };
  const ours = (title: string, vars: unknown) => outcome(() => compileTemplate({ title, body: '' }).render(vars as Record<string, unknown>).title);
  /** The same template through Handlebars: a helper that renders nothing makes it other than plain. */
  const throughHandlebars = (title: string, vars: unknown) => ours(`${title}{{lookup this "~"}}`, vars);

  it('renders as the Handlebars-compiled template does, on any such template and any JSON variables, errors included', () => {
    fc.assert(
      fc.property(templates(forms), variables(fc.string({ maxLength: 3 })), (title, vars) => {
        expect(ours(title, vars)).toEqual(throughHandlebars(title, vars));
      }),
      { numRuns: 2000 },
    );
  });

  it('renders each placeholder as Handlebars does when it escapes, minus the escaping', () => {
    // Handlebars' escaping also makes each value text; with nothing to escape in the values, its output is the reference.
    const Handlebars = require('handlebars') as typeof import('handlebars');
    const reference = Handlebars.create();
    const unescaped = fc.stringMatching(/^[a-z .!]{0,3}$/);
    fc.assert(
      fc.property(templates(forms.slice(0, 4)), variables(unescaped), (title, vars) => {
        const theirs = outcome(() => reference.compile(title, { strict: false, knownHelpersOnly: true })(vars, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false }));
        expect(ours(title, vars)).toEqual(theirs);
        expect(throughHandlebars(title, vars)).toEqual(theirs);
      }),
      { numRuns: 1000 },
    );
  });

  it('renders numbers side by side as text (not their sum), and reads own properties only', () => {
    for (const [title, vars, text] of [
      ['{{a}}{{b}}', { a: 1, b: 2 }, '12'],
      ['{{{a}}}{{& b}}', { a: 1, b: 2 }, '12'],
      ['{{a}}{{b}}', { a: true, b: 0 }, 'true0'],
      ['{{#if a}}{{a}}{{/if}}{{b}}', { a: 1, b: 2 }, '12'],
      ['{{#each a}}{{this}}{{/each}}', { a: [1, 2, 3] }, '123'],
      ['{{a}} {{b}}', { a: 1, b: 2 }, '1 2'],
      ['{{a}}{{b}}', { a: [1, 2], b: { c: 1 } }, '1,2[object Object]'],
      ['{{constructor}}{{a.length}}{{b.length}}', { a: 'abc', b: 4 }, '3'],
    ] as const) {
      expect(render(title, vars).title).toBe(text);
      expect(throughHandlebars(title, vars)).toEqual({ text });
    }
  });
});

describe('maxText: a render stops as soon as it has produced too much', () => {
  /** Variables whose `a` counts how often the render read it: the work done, by the pieces produced. */
  const counting = (value: string) => {
    const reads = { n: 0 };
    const vars = {};
    Object.defineProperty(vars, 'a', { enumerable: true, get: () => (reads.n++, value) });
    return { vars, reads };
  };

  it.each([
    ['plain placeholders', '{{a}}'.repeat(809)],
    ['placeholders through Handlebars', '{{#with this}}{{/with}}' + '{{a}}'.repeat(809)],
    ['inside a block', '{{#if 1}}' + '{{a}}'.repeat(40) + '{{/if}}' + '{{a}}'.repeat(769)],
  ])('%s: 809 × 81 characters stop after about 4096 of them', (_, body) => {
    const { vars, reads } = counting('x'.repeat(81));
    expect(() => compileTemplate({ title: 't', body }).render(vars, { maxText: 4096 })).toThrow(RenderTooLongError);
    // 4096 / 81 ≈ 51 pieces, and at most one block's worth more; never the 809 of the whole render.
    expect(reads.n).toBeLessThanOrEqual(51 + 41);
    expect(reads.n).toBeGreaterThanOrEqual(50);
  });

  it('title and body count together; a render within it is whole, and without it nothing changes', () => {
    const template = compileTemplate({ title: '{{a}}', body: '{{#each list}}{{this}}{{/each}}{{a}}' });
    expect(template.render({ a: 'x'.repeat(10), list: [1, 2] }, { maxText: 22 })).toMatchObject({ title: 'xxxxxxxxxx', body: '12xxxxxxxxxx' });
    expect(() => template.render({ a: 'x'.repeat(10), list: [1, 2] }, { maxText: 21 })).toThrow(RenderTooLongError);
    expect(template.render({ a: 'x'.repeat(5000), list: [] }).body).toHaveLength(5000);
    // A variable named like the engine's own piece counter is just a variable.
    expect(compileTemplate({ title: '{{__heraldText}}{{#if 1}}!{{/if}}', body: '' }).render({ __heraldText: 'v' }, { maxText: 10 }).title).toBe('v!');
  });
});
