/**
 * Preloaded into the worker by `pnpm bench:delivery` (node --require): counts the statements the
 * process sends to PostgreSQL (every node-postgres `Client#query`, BEGIN and COMMIT included). On
 * SIGUSR2 it writes "<count> <answer number>" to $HERALD_BENCH_QUERY_COUNT, for the benchmark to read;
 * nothing is written otherwise, so the counting costs the worker next to nothing.
 */
const { renameSync, writeFileSync } = require('node:fs');
const { Client } = require('pg');

const file = process.env.HERALD_BENCH_QUERY_COUNT;
if (file) {
  let count = 0;
  let answers = 0;
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(...args) {
    count++;
    return query.apply(this, args);
  };
  // Written aside and renamed: the benchmark never reads a half-written answer.
  process.on('SIGUSR2', () => {
    writeFileSync(`${file}.tmp`, `${count} ${++answers}`);
    renameSync(`${file}.tmp`, file);
  });
}
