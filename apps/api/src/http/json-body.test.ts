import express, { type Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler } from './errors';
import { jsonBody } from './json-body';

/**
 * The send path's JSON reader answers every body as express.json (body-parser) does: the same parsed
 * body, or the same error. Each request goes to an app with each of them.
 */
const LIMIT = 1024;
let servers: Server[] = [];
let urls: { reader: string; bodyParser: string };

function echoApp(parser: express.RequestHandler): Express {
  const app = express();
  app.use(parser);
  app.post('/echo', (req, res) => void res.json({ body: req.body ?? null }));
  app.use(errorHandler);
  return app;
}

async function listen(app: Express) {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
}

beforeAll(async () => {
  urls = { reader: await listen(echoApp(jsonBody(LIMIT))), bodyParser: await listen(echoApp(express.json({ limit: LIMIT }))) };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function answer(url: string, body: string | Buffer, contentType: string) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: res.status, body: await res.json() };
}

const BODIES: [string, string | Buffer][] = [
  ['an object', '{"userId":"u-1","variables":{"name":"Zoë"}}'],
  ['an array', '[1,2,3]'],
  ['leading whitespace', ' \n\t{"a":1}'],
  ['a byte-order mark', '\ufeff{"a":1}'],
  ['a string', '"text"'],
  ['null', 'null'],
  ['a number', '42'],
  ['malformed JSON', '{"a": '],
  ['whitespace only', '   '],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['exactly the limit', `{"a":"${'x'.repeat(LIMIT - 8)}"}`],
  ['one byte over the limit', `{"a":"${'x'.repeat(LIMIT - 7)}"}`],
];

it.each(BODIES)('%s: the same answer as express.json', async (_name, body) => {
  for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
    const mine = await answer(urls.reader, body, contentType);
    expect(mine).toEqual(await answer(urls.bodyParser, body, contentType));
  }
});

it('reads the body it parses: the object sent comes back', async () => {
  const res = await answer(urls.reader, '\ufeff{"userId":"u-1","n":[1,2]}', 'application/json');
  expect(res).toEqual({ status: 200, body: { body: { userId: 'u-1', n: [1, 2] } } });
});

it('a client that leaves before the end of its body: the server carries on', async () => {
  const { request } = await import('node:http');
  const status = await new Promise<number | undefined>((resolve) => {
    const req = request(urls.reader, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100' } }, (res) => resolve(res.statusCode));
    req.on('error', () => resolve(undefined));
    req.write('{"a":');
    setTimeout(() => req.destroy(), 50);
  });
  // The client left: nobody reads the answer, and the server carries on serving.
  expect(status).toBeUndefined();
  expect((await answer(urls.reader, '{"a":1}', 'application/json')).body).toEqual({ body: { a: 1 } });
});
