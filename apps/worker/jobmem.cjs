const { Queue, Worker } = require('bullmq');
const Redis = require('ioredis');
const { randomUUID } = require('crypto');
(async () => {
  const prefix = 'memtest-' + Date.now();
  const conn = new Redis({ maxRetriesPerRequest: null });
  const used = async () => Number(/used_memory:(\d+)/.exec(await conn.info('memory'))[1]);
  const q = new Queue('notifications', { connection: conn, prefix });
  const before = await used();
  const N = 5000;
  for (let i = 0; i < N; i += 500) {
    await q.addBulk(Array.from({ length: 500 }, () => {
      const ids = Array.from({ length: 4 }, () => randomUUID());
      return { name: 'deliver', data: { notificationIds: ids }, opts: { jobId: `deliver-shared-${randomUUID()}`, attempts: 8, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: { age: 86400, count: 50000 }, removeOnFail: { age: 604800 } } };
    }));
  }
  let done = 0;
  await new Promise((resolve) => {
    const w = new Worker('notifications', async () => undefined, { connection: conn.duplicate(), prefix, concurrency: 100 });
    w.on('completed', () => { if (++done === N) { w.close().then(resolve); } });
  });
  const after = await used();
  console.log(`completed ${N} shared deliver jobs of 4 notifications: ${((after - before) / N).toFixed(0)} bytes each in Redis`);
  const keys = await conn.keys(prefix + '*');
  for (let i = 0; i < keys.length; i += 1000) await conn.del(...keys.slice(i, i + 1000));
  await q.close(); conn.disconnect();
})();
