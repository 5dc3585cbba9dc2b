/**
 * Preloaded into the worker by `pnpm bench:delivery` (node --require): counts the statements the
 * process sends to PostgreSQL (every node-postgres `Client#query`, BEGIN and COMMIT included), and
 * how long each kind of statement took from being sent to its answer (its prepared name, or its
 * first words). On SIGUSR2 it writes "<count> <answer number>" to $HERALD_BENCH_QUERY_COUNT and the
 * times, as JSON, to the same name with `.times`, for the benchmark to read; nothing is written
 * otherwise, so the counting costs the worker next to nothing.
 */
const { renameSync, writeFileSync } = require('node:fs');
const { Client } = require('pg');

const file = process.env.HERALD_BENCH_QUERY_COUNT;
if (file) {
  let count = 0;
  let answers = 0;
  /** By kind of statement: [count, ms in all, slowest ms]. */
  const times = {};
  const kindOf = (q) => (typeof q === 'string' ? q : (q?.name ?? q?.text ?? '?')).replace(/\s+/g, ' ').trim().slice(0, 60);
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(...args) {
    count++;
    const kind = kindOf(args[0]);
    const started = process.hrtime.bigint();
    const done = () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const t = (times[kind] ??= [0, 0, 0]);
      t[0]++;
      t[1] += ms;
      t[2] = Math.max(t[2], ms);
    };
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last];
      args[last] = function timed(...answer) {
        done();
        return callback.apply(this, answer);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result && typeof result.then === 'function') result.then(done, done);
    return result;
  };
  // Written aside and renamed: the benchmark never reads a half-written answer.
  process.on('SIGUSR2', () => {
    writeFileSync(`${file}.times.tmp`, JSON.stringify(times));
    renameSync(`${file}.times.tmp`, `${file}.times`);
    writeFileSync(`${file}.tmp`, `${count} ${++answers}`);
    renameSync(`${file}.tmp`, file);
  });
}
