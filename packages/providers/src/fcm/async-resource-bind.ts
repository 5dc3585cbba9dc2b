import { AsyncResource } from 'node:async_hooks';

/**
 * Every `http2` client request in Node 20, 22 and 24 calls `AsyncResource#bind`, which gives the bound
 * function a deprecated `asyncResource` accessor (DEP0172) made of two `util.deprecate` wrappers; in
 * Node 20 each wrapper also changes a fresh function's prototype. At thousands of requests a second
 * this was a fifth of the worker's CPU per delivery on Node 20 (less on Node 22, where the prototype
 * change is gone; Node 26 has no accessor: nodejs/node#58218, #58618).
 *
 * `leanAsyncResourceBind()` replaces the method, for this process, with one that behaves the same —
 * the function runs in the resource's async context, with the same `this`, arguments, result and
 * `length` — and carries `asyncResource` as a plain property. It changes nothing on a Node whose
 * bound functions have no such accessor. Returns a function that puts the original back.
 */
export function leanAsyncResourceBind(): () => void {
  const proto = AsyncResource.prototype as unknown as { bind: unknown };
  const original = proto.bind;
  if (original === leanBind || !hasDeprecatedAccessor()) return () => undefined;
  proto.bind = leanBind;
  return () => {
    if (proto.bind === leanBind) proto.bind = original;
  };
}

function hasDeprecatedAccessor(): boolean {
  const probe = new AsyncResource('HeraldProbe', { requireManualDestroy: true });
  const descriptor = Object.getOwnPropertyDescriptor(probe.bind(() => undefined), 'asyncResource');
  probe.emitDestroy();
  return typeof descriptor?.get === 'function';
}

function leanBind(this: AsyncResource, fn: (...args: unknown[]) => unknown, thisArg?: unknown) {
  if (typeof fn !== 'function') throw Object.assign(new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`), { code: 'ERR_INVALID_ARG_TYPE' });
  const resource = this;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : resource.runInAsyncScope.bind(resource, fn, thisArg);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
  (bound as { asyncResource?: AsyncResource }).asyncResource = resource;
  return bound;
}
