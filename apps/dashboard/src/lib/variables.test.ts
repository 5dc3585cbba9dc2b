import { detectVariables, nestVariables } from './variables';

describe('template variables detected as you type', () => {
  it('lists names once, title first, in order of appearance, dotted paths included', () => {
    expect(detectVariables('Hi {{name}} {{ user.first }}', 'You have {{count}} messages, {{name}} {{{raw}}}')).toEqual(['name', 'user.first', 'count', 'raw']);
  });

  it('skips helpers, comments, partials, else, this, unfinished and empty mustaches', () => {
    expect(detectVariables('{{#if x}}a{{else}}b{{/if}} {{! note}} {{> part}} {{this}} {{@index}} {{}} {{open')).toEqual([]);
  });

  it('nests dotted names into the object the API renders', () => {
    expect(nestVariables({ name: 'Ada', 'user.first': 'A', 'user.last': 'L' })).toEqual({ name: 'Ada', user: { first: 'A', last: 'L' } });
  });
});
