import express from 'express';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { expectError, PASSWORD, startApi, uniqueEmail, type Harness } from '@herald/testing';
import { errorHandler, notFoundHandler } from './errors';

/** The one error path (docs/api.md#errors): every status leaves with `{ statusCode, message, error }`. */
let h: Harness;
beforeAll(async () => {
  h = await startApi();
});
afterAll(() => h.close());

it('400: validation errors carry details with paths', async () => {
  const res = await h.post('/auth/signup', { body: { email: 'x', password: 'short', firstName: '', lastName: 'B' } });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
  expect(res.body.details).toEqual(
    expect.arrayContaining([
      { path: 'email', message: expect.any(String) },
      { path: 'password', message: expect.any(String) },
      { path: 'firstName', message: expect.any(String) },
    ]),
  );
});

it('400: malformed JSON', async () => {
  const res = await h.post('/auth/signin', { raw: '{"email": "a@b.c", ', contentType: 'application/json' });
  expect(res.body).toEqual({ statusCode: 400, message: 'Malformed JSON in request body', error: 'Bad Request' });
});

it('400: a JSON body that is not an object', async () => {
  for (const raw of ['[1,2]', '"text"', 'null', '42']) {
    const res = await h.post('/auth/signin', { raw, contentType: 'application/json' });
    expectError(res, 400);
    expect(res.body.error).toBe('Bad Request');
  }
});

it('401: the error body of docs/api.md#errors', async () => {
  const res = await h.get('/auth/me');
  expect(res.body).toEqual({ statusCode: 401, message: 'Missing or invalid authorization header', error: 'Unauthorized' });
});

it('404: unknown routes and methods', async () => {
  for (const [method, path] of [
    ['GET', '/nope'],
    ['DELETE', '/auth/signin'],
    ['POST', '/auth'],
  ]) {
    const res = await h.request(method, path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: expect.any(String), error: 'Not Found' });
  }
});

it('409: conflict', async () => {
  const email = uniqueEmail();
  await h.signup({ email });
  const res = await h.post('/auth/signup', { body: { email, password: PASSWORD, firstName: 'A', lastName: 'B' } });
  expect(res.body).toEqual({ statusCode: 409, message: 'An account with this email already exists', error: 'Conflict' });
});

it('413: bodies over 1 MiB', async () => {
  const res = await h.post('/auth/signin', { body: { email: 'a@b.co', password: 'x'.repeat(1024 * 1024 + 10) } });
  expect(res.body).toEqual({ statusCode: 413, message: 'Request body is too large', error: 'Payload Too Large' });
});

it('415: a body that is not JSON', async () => {
  const res = await h.post('/auth/signin', { raw: 'email=a@b.co&password=x', contentType: 'application/x-www-form-urlencoded' });
  expect(res.body).toEqual({ statusCode: 415, message: 'Content-Type must be application/json', error: 'Unsupported Media Type' });
});

it('415: a multipart body on a route that takes JSON (only the template import takes multipart)', async () => {
  const form = new FormData();
  form.append('email', 'a@b.co');
  form.append('password', 'x');
  const res = await h.post('/auth/signin', { raw: form });
  expect(res.body).toEqual({ statusCode: 415, message: 'Content-Type must be application/json', error: 'Unsupported Media Type' });
});

it('ids: any 8-4-4-4-12 hex UUID in any case is an id (unknown → 404, not 400); anything else is a 400', async () => {
  const u = await h.user();
  for (const id of ['11111111-1111-1111-1111-111111111111', '12345678-1234-1234-1234-123456789012', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11']) {
    expectError(await h.get(`/projects/${id}`, { token: u.accessToken }), 404);
  }
  for (const id of ['not-a-uuid', '11111111-1111-1111-1111-11111111111', '11111111111111111111111111111111']) {
    expectError(await h.get(`/projects/${id}`, { token: u.accessToken }), 400, /projectId must be a valid UUID/);
  }
  // The caller's own project in capitals is that project.
  const project = await h.post('/projects', { token: u.accessToken, body: { name: 'Caps' } });
  expect((await h.get(`/projects/${project.body.id.toUpperCase()}`, { token: u.accessToken })).body).toMatchObject({ id: project.body.id });
});

it('unknown body fields are ignored', async () => {
  const u = await h.signup();
  const res = await h.post('/auth/signin', { body: { email: u.email, password: PASSWORD, extra: { deep: true } } });
  expect(res.status).toBe(200);
});

it('every response carries a request id, echoed when the client sent a sane one', async () => {
  const res = await h.get('/health', { headers: { 'x-request-id': 'trace-123' } });
  expect(res.headers.get('x-request-id')).toBe('trace-123');
  const generated = await h.get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });
  expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
});

it('500: an unexpected exception is logged with the request id and answered without internals', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as { log: typeof logger }).log = logger.child({ reqId: 'req-42' });
    next();
  });
  app.get('/boom', () => {
    throw new Error('SELECT secret FROM internals');
  });
  app.use(notFoundHandler);
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect(text).not.toContain('SELECT');
    expect(lines.join('')).toContain('req-42');
    expect(lines.join('')).toContain('SELECT secret FROM internals');
  } finally {
    server.close();
  }
});

it('431 and 400 from the HTTP parser carry the error body too', async () => {
  const huge = await h.get('/health', { headers: { 'x-filler': 'x'.repeat(20_000) } });
  expect(huge.status).toBe(431);
  expect(huge.body).toEqual({ statusCode: 431, message: 'Request headers are too large', error: 'Request Header Fields Too Large' });
  const net = await import('node:net');
  const raw = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(new URL(h.url).port), '127.0.0.1', () => socket.write('GARBAGE\r\n\r\n'));
    let data = '';
    socket.on('data', (c) => (data += c));
    socket.on('close', () => resolve(data));
  });
  expect(raw).toMatch(/^HTTP\/1.1 400 Bad Request/);
  expect(JSON.parse(raw.split('\r\n\r\n')[1])).toEqual({ statusCode: 400, message: 'Malformed HTTP request', error: 'Bad Request' });
});
