import { compileTemplate, createTemplateCompiler, LruCache, TemplateSyntaxError, templateVariables, validateTemplate } from './template';

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

  it('LruCache keeps at most max entries', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.get('a');
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.size]).toEqual([1, undefined, 3, 2]);
  });
});
