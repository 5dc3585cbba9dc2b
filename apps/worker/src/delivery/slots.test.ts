import { Slots } from './slots';

const flush = () => new Promise((r) => setImmediate(r));

it('grants by weight in order, and a weight above the capacity runs alone', async () => {
  const slots = new Slots(10);
  const order: string[] = [];
  const a = await slots.acquire(6);
  const b = slots.acquire(6).then((release) => (order.push('b'), release));
  const c = slots.acquire(1).then((release) => (order.push('c'), release));
  await flush();
  // c would fit, but waits behind b: first come, first served.
  expect(order).toEqual([]);
  a();
  const releaseB = await b;
  const releaseC = await c;
  expect(order).toEqual(['b', 'c']);
  const big = slots.acquire(50).then((release) => (order.push('big'), release));
  await flush();
  expect(order).toEqual(['b', 'c']);
  releaseB();
  releaseC();
  releaseC(); // a second call gives nothing back twice
  (await big)();
  expect(order).toEqual(['b', 'c', 'big']);
  const again = await slots.acquire(10);
  again();
});
