import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { leanAsyncResourceBind } from './async-resource-bind';

type Bindable = { bind(fn: (...args: unknown[]) => unknown, thisArg?: unknown): ((...args: unknown[]) => unknown) & { asyncResource?: unknown } };

/** What a bound function sees when it is called later, from another async context. */
function observe(thisArg?: object) {
  const store = new AsyncLocalStorage<string>();
  const resource = store.run('where it was bound', () => new AsyncResource('HeraldTest'));
  const receiver = { name: 'receiver' };
  const bound = (resource as unknown as Bindable).bind(function (this: unknown, a: unknown, b: unknown) {
    return { store: store.getStore(), self: this, sum: (a as number) + (b as number) };
  }, thisArg);
  const result = store.run('where it is called', () => bound.call(receiver, 1, 2));
  return { result, receiver, length: bound.length, resource, bound };
}

describe('leanAsyncResourceBind', () => {
  let restore: () => void = () => undefined;
  afterEach(() => restore());

  it("replaces Node's bind where bound functions carry the deprecated accessor (Node 20, 22, 24), and puts it back", () => {
    const accessor = () => Object.getOwnPropertyDescriptor(new AsyncResource('HeraldTest').bind(() => undefined), 'asyncResource');
    const nodeHasAccessor = typeof accessor()?.get === 'function';
    const original = AsyncResource.prototype.bind;
    restore = leanAsyncResourceBind();
    // Replaced only where there is something to save (Node 26 has no accessor).
    expect(AsyncResource.prototype.bind === original).toBe(!nodeHasAccessor);
    expect(accessor()?.get).toBeUndefined();
    // Installing it again changes nothing, and its undo is a no-op.
    const installed = AsyncResource.prototype.bind;
    leanAsyncResourceBind()();
    expect(AsyncResource.prototype.bind).toBe(installed);
    restore();
    expect(AsyncResource.prototype.bind).toBe(original);
  });

  it('a bound function runs as before: in the async context of its resource, with the same this, arguments, result and length', () => {
    const before = observe();
    const beforeWithThis = observe({ name: 'fixed' });
    restore = leanAsyncResourceBind();
    const after = observe();
    const afterWithThis = observe({ name: 'fixed' });

    expect(after.result).toEqual({ store: 'where it was bound', self: after.receiver, sum: 3 });
    expect(after.result).toEqual({ ...(before.result as object), self: after.receiver });
    expect(afterWithThis.result).toEqual({ store: 'where it was bound', self: { name: 'fixed' }, sum: 3 });
    expect(afterWithThis.result).toEqual(beforeWithThis.result);
    expect(after.length).toBe(2);
    expect(after.length).toBe(before.length);
    // The resource stays reachable, as a plain property.
    expect(after.bound.asyncResource).toBe(after.resource);
  });

  it('refuses what is not a function, as Node does', () => {
    restore = leanAsyncResourceBind();
    expect(() => (new AsyncResource('HeraldTest') as unknown as { bind(fn: unknown): unknown }).bind('not a function')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('node:http2 requests work with it, including those made while the session still connects', async () => {
    const server = http2.createServer();
    server.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('answered');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    restore = leanAsyncResourceBind();
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const get = () =>
      new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':path': '/' });
        let body = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve(body));
        stream.on('error', reject);
      });
    try {
      // The first request is made before the session has connected: Node defers it through the bound function.
      expect(session.connecting).toBe(true);
      expect(await Promise.all([get(), get()])).toEqual(['answered', 'answered']);
      expect(await get()).toBe('answered');
    } finally {
      session.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
