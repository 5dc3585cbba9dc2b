import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startFcmEmulator, type FcmEmulator } from '@herald/fcm-emulator';
import type { RouteDefinition } from '../apps/api/src/http/define-route';
import { apiRoutes } from '../apps/api/src/routes';
import { WebhookDispatcher } from '../apps/worker/src/webhooks/webhook.service';
import { addMember, createApiKey, createProject } from './fixtures';
import { PASSWORD, startApi, unique, uniqueEmail, type Harness, type Session } from './harness';
import { serviceAccount, type ServiceAccount } from './credentials';
import { startReceiver } from './webhook-receiver';

/**
 * Bad input never reaches a 500 (docs/api.md#status-codes). Every route that `apiRoutes()` mounts — so a new
 * route is fuzzed without anyone touching this file — gets random and mutated bodies, queries, path
 * parameters and headers, as a signed-in owner of a real project, as that project's API key, and
 * unauthenticated. Every answer must be below 500, and every 4xx must carry exactly the error
 * body of docs/api.md#errors. Then: no free-text field stores 100 KB.
 *
 * The runs are bounded (RUNS random requests per route plus a fixed corpus of nasty inputs); a
 * failing property prints fast-check's seed, so `FUZZ_SEED=<seed> npx jest test/fuzz.test.ts`
 * replays it, and FUZZ_RUNS raises the count for a longer local hunt.
 */
jest.setTimeout(180_000);

const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Under Node's 16 KB limit of a request head: a longer URL is refused by Node itself (431) before Express. */
const LONG = 'x'.repeat(6000);
const HUGE = 'x'.repeat(100 * 1024);
const DEPTH = 10_000;

let h: Harness;
let emulator: FcmEmulator;
let account: ServiceAccount;
let routes: RouteDefinition[];

beforeAll(async () => {
  // Provider tests reach "FCM": the local emulator, never Google.
  emulator = await startFcmEmulator({ port: 0, open: true });
  h = await startApi({ QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-fuzz`, FCM_EMULATOR_HOST: emulator.host, LOG_LEVEL: 'warn' });
  account = serviceAccount();
  routes = apiRoutes(h.container);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await emulator?.close();
});

// ---------------------------------------------------------------------------------------------
// A world of real resources per route, so that destructive requests (delete the project, disable
// the key) of one route's run never blind the runs of the others.

interface World {
  owner: Session;
  projectId: string;
  apiKey: string;
  /** Another key of the project, for the key routes' :keyId (the caller's own key stays usable). */
  keyId: string;
  memberId: string;
  templateId: string;
  providerId: string;
  inviteId: string;
  customerId: string;
  deviceToken: string;
  notificationId: string;
  webhookId: string;
  segmentId: string;
}

async function makeWorld(): Promise<World> {
  const owner = await h.user();
  const project = await createProject(h, owner);
  const key = await createApiKey(h, project.id);
  const spare = await createApiKey(h, project.id);
  const member = await h.user();
  await addMember(h, project.id, member);
  const auth = { token: owner.accessToken, query: { projectId: project.id } };
  const ok = (res: { status: number; text: string; body: any }, what: string) => {
    if (res.status >= 300) throw new Error(`fuzz setup: ${what} answered ${res.status} ${res.text}`);
    return res;
  };
  const template = ok(await h.post('/push-templates', { token: owner.accessToken, body: { projectId: project.id, name: unique('tpl'), title: 'Hi {{name}}', body: 'Body', data: { screen: 'home' } } }), 'template');
  ok(await h.post('/push-config', { ...auth, body: {} }), 'push config');
  const provider = ok(
    await h.post('/push-config/providers', {
      ...auth,
      body: { provider: 'fcm', name: 'primary', priority: 1, config: { projectId: account.projectId, clientEmail: account.clientEmail, privateKey: account.privateKey } },
    }),
    'provider',
  );
  const invite = ok(await h.post('/projects/invite', { token: owner.accessToken, body: { email: uniqueEmail('invitee'), projectId: project.id } }), 'invite');
  const customerId = unique('customer');
  const deviceToken = unique('token');
  ok(await h.post('/push/register-device', { apiKey: key.key, body: { userId: customerId, deviceToken, provider: 'fcm', platform: 'android' } }), 'device');
  const sent = ok(await h.post('/push/send', { apiKey: key.key, body: { userId: customerId, templateId: template.body.id, variables: { name: 'Ada' } } }), 'send');
  const webhook = ok(await h.post(`/projects/${project.id}/webhooks`, { token: owner.accessToken, body: { url: 'https://hooks.example.com/fuzz', events: ['notification.failed'] } }), 'webhook');
  const segment = ok(await h.post(`/projects/${project.id}/segments`, { token: owner.accessToken, body: { name: unique('segment'), filter: { field: 'platform', op: 'eq', value: 'ios' } } }), 'segment');
  return {
    owner,
    projectId: project.id,
    apiKey: key.key,
    keyId: spare.id,
    memberId: member.id,
    templateId: template.body.id,
    providerId: provider.body.id,
    inviteId: invite.body.id,
    customerId,
    deviceToken,
    notificationId: sent.body.notificationId,
    webhookId: webhook.body.id,
    segmentId: segment.body.id,
  };
}

/** The real resource a path parameter names, in this world. */
function realParam(path: string, name: string, w: World): string {
  switch (name) {
    case 'projectId':
      return w.projectId;
    case 'keyId':
      return w.keyId;
    case 'inviteId':
      return w.inviteId;
    case 'providerConfigId':
      return w.providerId;
    case 'notificationId':
      return w.notificationId;
    case 'webhookId':
      return w.webhookId;
    case 'segmentId':
      return w.segmentId;
    case 'provider':
      return 'fcm';
    case 'userId':
      return path.startsWith('/push/devices') || path.startsWith('/push/users') ? w.customerId : w.memberId;
    case 'id':
      return w.templateId;
    default:
      return randomUUID();
  }
}

/**
 * A valid body per route, with the world's real ids, so that mutations get past validation of the
 * other fields and reach the services. A route missing here is still fuzzed (from `{}`); the guard
 * test below asks for a sample so that its length caps are checked too.
 */
/** A filter with every kind of value: lists, a relative time, a nested not. */
const audienceFilterSample = () => ({
  and: [
    { field: 'platform', op: 'in', value: ['ios', 'android'] },
    { field: 'tags.plan', op: 'eq', value: 'pro' },
    { field: 'lastSeenAt', op: 'gte', value: { within: '30d' } },
    { not: { or: [{ field: 'appVersion', op: 'lt', value: '2.0' }, { field: 'timezone', op: 'eq', value: 'UTC' }] } },
  ],
});
const fcmConfig = () => ({ projectId: account.projectId, clientEmail: account.clientEmail, privateKey: account.privateKey });
const SAMPLES: Record<string, (w: World) => Record<string, unknown>> = {
  'POST /auth/signup': () => ({ email: uniqueEmail('fuzz'), password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }),
  'POST /auth/signin': (w) => ({ email: w.owner.email, password: PASSWORD }),
  'POST /auth/refresh': (w) => ({ refreshToken: w.owner.refreshToken }),
  'POST /auth/logout': (w) => ({ refreshToken: w.owner.refreshToken }),
  'POST /auth/request-password-reset': (w) => ({ email: w.owner.email }),
  'POST /auth/reset-password': () => ({ token: 'a'.repeat(43), newPassword: PASSWORD }),
  'POST /auth/change-password': () => ({ currentPassword: PASSWORD, newPassword: PASSWORD }),
  'POST /projects': () => ({ name: unique('project') }),
  'POST /projects/invite': (w) => ({ email: uniqueEmail('invitee'), projectId: w.projectId, role: 'team_member' }),
  'POST /projects/accept-invite': () => ({ token: 'a'.repeat(43), firstName: 'Ada', lastName: 'Lovelace', password: PASSWORD }),
  'POST /projects/:projectId/api-keys': () => ({ name: unique('key') }),
  'PATCH /projects/:projectId/api-keys/:keyId': () => ({ name: unique('key'), enabled: true }),
  'PUT /projects/:projectId/settings': () => ({ defaultTimezone: 'Europe/Berlin', quietHours: { start: '22:00', end: '08:00' } }),
  'POST /push-templates/preview': (w) => ({ templateId: w.templateId, projectId: w.projectId, variables: { name: 'Ada' } }),
  'POST /push-templates': (w) => ({ projectId: w.projectId, name: unique('tpl'), title: 'Hello {{name}}', body: 'Body {{count}}', data: { screen: 'inbox' } }),
  'PUT /push-templates/:id': () => ({ name: unique('tpl'), title: 'Hello {{name}}', body: 'Body', data: { screen: 'inbox' } }),
  'POST /push-config': () => ({ enabled: true }),
  'PUT /push-config': () => ({ enabled: true }),
  'POST /push-config/providers': () => ({ provider: 'fcm', name: unique('fcm'), priority: 2, enabled: true, config: fcmConfig() }),
  'PUT /push-config/providers/priorities': (w) => ({ providers: [{ id: w.providerId, priority: 3 }] }),
  'PUT /push-config/providers/:providerConfigId': () => ({ name: unique('fcm'), priority: 4, enabled: true, config: { clientEmail: account.clientEmail } }),
  'POST /push/register-device': (w) => ({ userId: w.customerId, deviceToken: unique('tok'), provider: 'fcm', platform: 'ios', tags: { plan: 'pro', seats: 3, beta: true }, timezone: 'Europe/Berlin', locale: 'en-US', appVersion: '2.1.0' }),
  'PATCH /push/users/:userId/attributes': () => ({ tags: { plan: 'pro', seats: 3, beta: true, old: null }, timezone: 'UTC', locale: 'de-DE', appVersion: '2.1.0' }),
  'POST /push/events': () => ({ events: [{ deliveryId: randomUUID(), type: 'opened', at: new Date().toISOString(), action: 'buy' }] }),
  'POST /push/users/attributes': (w) => ({ users: [{ userId: w.customerId, tags: { plan: 'pro' }, timezone: 'UTC' }, { userId: 'someone-else', locale: 'fr-FR', appVersion: '1.0' }] }),
  'POST /push/audience/count': () => ({ filter: audienceFilterSample() }),
  'POST /projects/:projectId/segments': () => ({ name: unique('segment'), description: 'fuzz', filter: audienceFilterSample() }),
  'PUT /projects/:projectId/segments/:segmentId': () => ({ name: unique('segment'), description: 'changed', filter: audienceFilterSample() }),
  'PATCH /projects/:projectId/segments/:segmentId': () => ({ name: unique('segment'), description: 'changed', filter: audienceFilterSample() }),
  'POST /push/unregister-device': () => ({ deviceToken: unique('tok'), provider: 'fcm' }),
  'POST /push/send': (w) => ({
    userId: w.customerId,
    templateId: w.templateId,
    variables: { name: 'Ada' },
    imageUrl: 'https://cdn.example.com/a.png',
    data: { screen: 'chat' },
    collapseKey: 'chat',
    android: { channelId: 'chat', sound: 'default', tag: 't', clickAction: 'OPEN', color: '#112233', icon: 'ic' },
    apns: { sound: 'default', category: 'CHAT', threadId: 'chat' },
    webpush: { link: 'https://app.example.com/chat', urgency: 'high' },
    sendAt: new Date(Date.now() + 3600_000).toISOString(),
  }),
  'POST /projects/:projectId/webhooks': () => ({ url: 'https://hooks.example.com/in', events: ['notification.completed', 'device.token_removed'], enabled: true, description: 'fuzz' }),
  'PUT /projects/:projectId/webhooks/:webhookId': () => ({ url: 'https://hooks.example.com/other', events: ['notification.failed'], enabled: true, description: 'changed' }),
  'POST /push/broadcast': (w) => ({ templateId: w.templateId, audience: { filter: { field: 'tags.plan', op: 'eq', value: 'pro' } }, variables: { name: 'Ada' }, data: { screen: 'chat' }, ratePerMinute: 600, rollout: { stages: [1, 10, 100], waitSeconds: 60, haltWhen: { failureRate: 0.1, invalidTokenRate: 0.2 } } }),
  'POST /push/send-bulk': (w) => ({ userIds: [w.customerId, 'someone-else'], templateId: w.templateId, variables: { name: 'Ada' }, data: { screen: 'chat' } }),
};

function sampleBody(route: RouteDefinition, w: World): Record<string, unknown> | undefined {
  return SAMPLES[routeKey(route)]?.(w);
}

const routeKey = (r: RouteDefinition) => `${r.spec.method.toUpperCase()} ${r.spec.path}`;
const isImport = (r: RouteDefinition) => r.spec.path.startsWith('/push-templates/import/');
const paramNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

// ---------------------------------------------------------------------------------------------
// Requests

type AuthKind = 'jwt' | 'key' | 'none' | 'junkBearer' | 'junkKey' | 'both';

interface FuzzRequest {
  method: string;
  path: string;
  /** Query string without `?`, built by hand: duplicate and malformed parameters are the point. */
  query: string;
  auth: AuthKind;
  headers: Record<string, string>;
  /** Sent as is; `undefined` sends no body. */
  body?: string | Buffer;
  contentType?: string;
}

async function send(w: World, r: FuzzRequest) {
  const headers: Record<string, string> = { ...r.headers };
  if (r.auth === 'jwt' || r.auth === 'both') headers.authorization = `Bearer ${w.owner.accessToken}`;
  if (r.auth === 'key' || r.auth === 'both') headers['x-api-key'] = w.apiKey;
  if (r.auth === 'junkBearer') headers.authorization = `Bearer ${w.owner.accessToken.slice(0, -3)}abc`;
  if (r.auth === 'junkKey') headers['x-api-key'] = `hk_${'A'.repeat(40)}`;
  if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  const res = await fetch(`${h.url}${r.path}${r.query ? `?${r.query}` : ''}`, { method: r.method, headers, body: r.body as RequestInit['body'] });
  const text = await res.text();
  return { status: res.status, text, contentType: res.headers.get('content-type') ?? '' };
}

/** What is wrong with one answer by docs/api.md#errors, or undefined when it is fine. */
function violation(res: { status: number; text: string; contentType: string }): string | undefined {
  if (res.status >= 500) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return undefined;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return `${res.status} without a JSON body: ${res.text.slice(0, 200)}`;
  }
  const keys = Object.keys(body ?? {}).sort();
  const allowed = body && 'details' in body ? ['details', 'error', 'message', 'statusCode'] : ['error', 'message', 'statusCode'];
  if (JSON.stringify(keys) !== JSON.stringify(allowed)) return `${res.status} body has keys ${keys.join(',')}: ${res.text.slice(0, 200)}`;
  if (body.statusCode !== res.status) return `statusCode ${body.statusCode} in a ${res.status} answer`;
  if (body.error !== STATUS_CODES[res.status]) return `error "${body.error}" is not the reason phrase of ${res.status}`;
  if (typeof body.message !== 'string' || body.message.length === 0) return `${res.status} without a message`;
  if (/\bat .+:\d+:\d+|prisma|SELECT |INSERT |ECONN/i.test(body.message)) return `${res.status} message leaks internals: ${body.message.slice(0, 200)}`;
  if ('details' in body) {
    if (!Array.isArray(body.details) || !body.details.every((d: any) => typeof d?.path === 'string' && typeof d?.message === 'string')) return `malformed details: ${res.text.slice(0, 200)}`;
  }
  if (!res.contentType.startsWith('application/json')) return `${res.status} with content-type ${res.contentType}`;
  return undefined;
}

const describeRequest = (r: FuzzRequest) => {
  const body = r.body === undefined ? '' : ` body(${r.contentType ?? 'none'}): ${String(r.body).slice(0, 160)}${String(r.body).length > 160 ? `… (${String(r.body).length} chars)` : ''}`;
  return `${r.method} ${r.path.slice(0, 160)}${r.query ? `?${r.query.slice(0, 160)}` : ''} [${r.auth}] ${JSON.stringify(r.headers).slice(0, 120)}${body}`;
};

// ---------------------------------------------------------------------------------------------
// Arbitraries

const nastyStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uFEFF',
  '😀'.repeat(50),
  'ʇxǝʇ',
  '__proto__',
  'constructor',
  'prototype',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  'true',
  '[]',
  '{}',
  "' OR '1'='1",
  '"; DROP TABLE "User"; --',
  '{{#each this}}{{/each}}',
  '{{> partial}}',
  '{{constructor.constructor}}',
  '{{',
  '%',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'https://example.com',
  'javascript:alert(1)',
  'hk_' + 'A'.repeat(40),
  LONG,
];

/** encodeURIComponent, for strings with lone surrogates too (sent as U+FFFD, as a browser would). */
const enc = (value: string) => encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

const nastyString = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...nastyStrings) }, fc.string(), fc.string({ unit: 'binary' }), fc.uuid(), fc.emailAddress());

/**
 * Deeply nested JSON as raw text: V8's JSON.parse takes 10,000 levels but JSON.stringify overflows
 * its stack below that, so such values travel through this file as placeholders (`Raw`) spliced
 * into the text by `toJson`.
 */
class Raw {
  constructor(readonly text: string) {}
}
const deepArray = (depth: number) => new Raw('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number) => new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function toJson(value: unknown): string {
  const found: Raw[] = [];
  const text =
    JSON.stringify(value, (_k, v) => {
      if (v instanceof Raw) {
        found.push(v);
        return `\u0001raw${found.length - 1}\u0001`;
      }
      return v;
    }) ?? 'null';
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i) => found[Number(i)].text);
}

/** Values of the wrong type (or the right type with a wrong value) for any field. */
const evilValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, 2 ** 31, 2 ** 31 - 1, 1_000_001),
  fc.boolean(),
  fc.constant(null),
  fc.constant(HUGE),
  fc.array(nastyString, { maxLength: 5 }),
  fc.constant(Array.from({ length: 600 }, (_, i) => `user-${i}`)),
  fc.dictionary(nastyString, nastyString, { maxKeys: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(deepArray(DEPTH)),
  fc.constant(deepObject(DEPTH)),
  fc.constant({ __proto__: null, constructor: { prototype: { polluted: true } } }),
);

type Path = (string | number)[];

function leafPaths(value: unknown, prefix: Path = []): Path[] {
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    const nested = entries.flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
    return prefix.length ? [prefix, ...nested] : nested;
  }
  return prefix.length ? [prefix] : [];
}

function setAt(root: unknown, path: Path, value: unknown, mode: 'set' | 'delete' = 'set'): unknown {
  const copy = structuredClone(root) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (mode === 'delete') delete node[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

interface Mutation {
  kind: 'replace' | 'delete' | 'addKey' | 'stringify' | 'wrap' | 'whole';
  pick: number;
  value: unknown;
  key: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'addKey', 'stringify', 'wrap', 'whole'),
  pick: fc.nat(),
  value: evilValue,
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'projectId', 'toString', 'hasOwnProperty', ''), fc.string()),
});

/** A body derived from the sample: one field replaced, removed, re-typed, or a field added. */
function mutate(sample: Record<string, unknown>, m: Mutation): string {
  const paths = leafPaths(sample);
  const path = paths.length ? paths[m.pick % paths.length] : undefined;
  switch (m.kind) {
    case 'whole':
      return toJson(m.value);
    case 'delete':
      return toJson(path ? setAt(sample, path, undefined, 'delete') : sample);
    case 'addKey': {
      // Keys like __proto__ must reach the server as own keys of the JSON text, as an attacker sends them.
      const text = toJson(sample);
      const extra = `${toJson(m.key)}:${toJson(m.value)}`;
      return text === '{}' ? `{${extra}}` : `{${extra},${text.slice(1)}`;
    }
    case 'stringify': {
      if (!path) return toJson(sample);
      let node: any = sample;
      for (const k of path) node = node?.[k];
      return toJson(setAt(sample, path, typeof node === 'string' ? [node] : String(toJson(node))));
    }
    case 'wrap':
      return toJson(path ? setAt(sample, path, [m.value]) : [sample]);
    default:
      return toJson(path ? setAt(sample, path, m.value) : m.value);
  }
}

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  '',
  ';;;',
  'application/json; boundary',
];

const rawBodies = [
  '',
  '{',
  '{"a":',
  '[1,2',
  'null',
  'true',
  '"just a string"',
  '12345',
  '[]',
  '{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\u0000',
  '\uFEFF{}',
  '{"a":1,"a":2}',
  '['.repeat(DEPTH) + ']'.repeat(DEPTH),
  '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH),
  '{"x":"' + 'y'.repeat(1024 * 1024 + 10) + '"}',
];

const queryKeys = ['projectId', 'page', 'limit', 'mode', 'userId', 'id', 'projectId[]', 'projectId[a]', '__proto__', 'constructor'];

/** `key=value` pairs, sometimes a key twice (Express 5 then gives an array), sometimes raw junk. */
function queryArb(w: World): fc.Arbitrary<string> {
  const pair = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constant('projectId'), fc.constant(w.projectId)) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...queryKeys), fc.oneof(nastyString, fc.constantFrom(w.projectId, '1', '100', '101', '0', 'skip', 'overwrite'))) },
    fc.tuple(fc.string(), nastyString),
  );
  const encoded = pair.map(([k, v]) => `${enc(k)}=${enc(v)}`);
  const raw = fc.constantFrom('%', '%zz', '&&', '=', 'projectId', 'projectId=', 'page=1&page=2', 'a[b][c]=d', '%E0%A4%A', '+++');
  return fc.array(fc.oneof({ weight: 4, arbitrary: encoded }, raw), { maxLength: 5 }).map((parts) => parts.join('&'));
}

/** A path parameter: the real resource, another real-looking id, junk, or malformed encoding. */
function paramArb(path: string, name: string, w: World): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(encodeURIComponent(realParam(path, name, w))) },
    { weight: 2, arbitrary: fc.uuid().map(enc) },
    { weight: 2, arbitrary: nastyString.filter((s) => s.length > 0).map(enc) },
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%ED%A0%80', '%00', '..', '.', '%2F', '%2e%2e', 'a%2Fb'),
  );
}

const headerValue = fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,300}$/);

const headersArb = fc.record(
  {
    'idempotency-key': fc.oneof(headerValue, fc.constant('k'.repeat(300)), fc.constant(' ')),
    'x-request-id': headerValue,
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'),
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'bogus'),
  },
  { requiredKeys: [] },
);

function requestArb(route: RouteDefinition, w: World): fc.Arbitrary<FuzzRequest> {
  const names = paramNames(route.spec.path);
  const pathArb = fc.tuple(...names.map((n) => paramArb(route.spec.path, n, w))).map((values) => names.reduce((p, n, i) => p.replace(`:${n}`, values[i]), route.spec.path));
  const sample = sampleBody(route, w) ?? {};
  const bodyArb: fc.Arbitrary<{ body?: string | Buffer; contentType?: string }> = isImport(route)
    ? multipartArb()
    : fc.oneof(
        { weight: 8, arbitrary: mutation.map((m) => ({ body: mutate(sample, m), contentType: 'application/json' })) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => ({ body: JSON.stringify(v), contentType: 'application/json' })) },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...rawBodies), fc.constantFrom(...contentTypes)).map(([body, contentType]) => ({ body, contentType })) },
        { weight: 1, arbitrary: fc.constantFrom(...contentTypes).map((contentType) => ({ body: JSON.stringify(sample), contentType })) },
        { weight: 1, arbitrary: fc.constant({}) },
      );
  const auth = fc.constantFrom<AuthKind>('jwt', 'jwt', 'key', 'key', 'none', 'junkBearer', 'junkKey', 'both');
  return fc
    .record({ path: pathArb, query: queryArb(w), auth, headers: headersArb, body: bodyArb })
    .map(({ path, query, auth, headers, body }) => ({
      method: route.spec.method.toUpperCase(),
      path,
      query,
      auth,
      // `content-encoding` only means something with a body; fetch sends none with GET.
      headers: body.body === undefined || route.spec.method === 'get' ? Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'content-encoding')) : headers,
      ...(route.spec.method === 'get' ? {} : body),
    }));
}

// The import route: multipart bodies, well-formed and not.

const BOUNDARY = 'herald-fuzz-boundary';

function multipart(parts: { name: string; filename?: string; type?: string; content: string | Buffer }[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\n${disposition}\r\n${p.type !== undefined ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const exportSample = () => ({ templates: [{ name: unique('imported'), title: 'Hi {{name}}', body: 'Body', data: { screen: 'x' } }] });

const FORM = `multipart/form-data; boundary=${BOUNDARY}`;
const file = (content: string | Buffer, type = 'application/json', name = 'file') => multipart([{ name, filename: 'export.json', type, content }]);

/** Uploads of every kind of wrong: wrong MIME, wrong part, several files, broken framing, junk JSON. */
function importCases(): { body?: string | Buffer; contentType?: string }[] {
  const form = FORM;
  return [
    { body: file(JSON.stringify(exportSample())), contentType: form },
    { body: file(JSON.stringify(exportSample()), 'text/plain'), contentType: form },
    { body: file(JSON.stringify(exportSample()), ''), contentType: form },
    { body: file(JSON.stringify(exportSample()), 'application/json', 'upload'), contentType: form },
    { body: multipart([{ name: 'file', filename: 'a.json', type: 'application/json', content: '{}' }, { name: 'file', filename: 'b.json', type: 'application/json', content: '{}' }]), contentType: form },
    { body: multipart([{ name: 'file', content: JSON.stringify(exportSample()) }]), contentType: form },
    { body: file('not json'), contentType: form },
    { body: file(''), contentType: form },
    { body: file('\uFEFF' + JSON.stringify(exportSample())), contentType: form },
    { body: file('['.repeat(DEPTH) + ']'.repeat(DEPTH)), contentType: form },
    { body: file(toJson({ templates: [{ name: 'deep', title: 't', body: 'b', data: { a: deepArray(DEPTH) } }] })), contentType: form },
    { body: file(toJson({ templates: [{ name: 'nul\u0000', title: 't', body: 'b' }] })), contentType: form },
    { body: file(toJson({ templates: [{ name: 'nul', title: 't', body: 'b', data: { k: 'a\u0000b' } }] })), contentType: form },
    { body: file(JSON.stringify({ templates: [{ name: 'big', title: HUGE, body: 'b' }] })), contentType: form },
    { body: file(JSON.stringify({ templates: Array.from({ length: 1001 }, (_, i) => ({ name: `t${i}`, title: 't', body: 'b' })) })), contentType: form },
    { body: file(Buffer.alloc(1024 * 1024 + 1, 'a')), contentType: form },
    { body: file('{"__proto__":{"polluted":true},"templates":[]}'), contentType: form },
    { body: file('{"templates":[{"__proto__":{"name":"x"},"title":"t","body":"b"}]}'), contentType: form },
    { body: file(JSON.stringify(exportSample())).subarray(0, 80), contentType: form },
    { body: file(JSON.stringify(exportSample())), contentType: 'multipart/form-data' },
    { body: file(JSON.stringify(exportSample())), contentType: 'multipart/form-data; boundary=wrong' },
    { body: file(JSON.stringify(exportSample())), contentType: 'multipart/form-data; boundary=' },
    { body: Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--\r\n`), contentType: form },
    { body: Buffer.from(`--${BOUNDARY}\r\nbroken header line\r\n\r\nx\r\n--${BOUNDARY}--\r\n`), contentType: form },
    { body: Buffer.from(`--${BOUNDARY}--\r\n`), contentType: form },
    { body: Buffer.from('garbage without boundaries'), contentType: form },
    { body: multipart(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, content: 'x' }))), contentType: form },
    { body: JSON.stringify(exportSample()), contentType: 'application/json' },
    { body: undefined, contentType: undefined },
  ];
}

function multipartArb(): fc.Arbitrary<{ body?: string | Buffer; contentType?: string }> {
  return fc.oneof(
    { weight: 6, arbitrary: mutation.map((m) => ({ body: file(mutate(exportSample(), m)), contentType: FORM })) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => ({ body: file(JSON.stringify(v)), contentType: FORM })) },
    { weight: 2, arbitrary: fc.constantFrom(...importCases()) },
  );
}

// ---------------------------------------------------------------------------------------------
// The fixed corpus: the nastiest inputs, sent to every route whatever the random draw.

function corpus(route: RouteDefinition, w: World): FuzzRequest[] {
  const method = route.spec.method.toUpperCase();
  const names = paramNames(route.spec.path);
  const withParams = (fill: (name: string) => string) => names.reduce((p, n) => p.replace(`:${n}`, fill(n)), route.spec.path);
  const realPath = withParams((n) => encodeURIComponent(realParam(route.spec.path, n, w)));
  const sample = sampleBody(route, w) ?? {};
  const query = `projectId=${w.projectId}`;
  const out: FuzzRequest[] = [];
  const add = (r: Partial<FuzzRequest>) => {
    const request: FuzzRequest = { method, path: realPath, query, auth: 'jwt', headers: {}, ...r };
    if (method === 'GET') {
      delete request.body;
      delete request.contentType;
      delete request.headers['content-encoding'];
    }
    out.push(request);
  };

  for (const auth of ['jwt', 'key', 'none', 'both'] as AuthKind[]) add({ auth, body: JSON.stringify(sample), contentType: 'application/json' });
  // Path params: junk, malformed percent-encoding, long, NUL, unicode.
  for (const junk of ['not-a-uuid', '%zz', '%', '%00', '%E2%80%AE', encodeURIComponent('😀'), encodeURIComponent(LONG), '00000000-0000-0000-0000-000000000000', randomUUID().toUpperCase()]) {
    if (names.length) add({ path: withParams(() => junk), body: JSON.stringify(sample), contentType: 'application/json' });
  }
  // Queries: duplicates (an array in Express 5), nested keys, junk; as the owner and as the key, in turn.
  const queries = [`projectId=${w.projectId}&projectId=${w.projectId}`, `projectId=${w.projectId}&projectId=other`, `projectId[]=${w.projectId}`, `projectId[a]=1`, 'projectId=%zz', `projectId=${w.projectId}&page=1&page=2&limit=a&limit=3`, `projectId=${w.projectId}&page=-1&limit=1000`, `projectId=${w.projectId}&page=1e3&limit=0x10`, `projectId=${w.projectId}&mode=overwrite&mode=skip`, `projectId=${encodeURIComponent(LONG)}`, `__proto__[x]=1&constructor=1`, `projectId=${w.projectId}%00`];
  queries.forEach((q, i) => add({ auth: i % 2 ? 'key' : 'jwt', query: q, body: JSON.stringify(sample), contentType: 'application/json' }));
  if (isImport(route)) {
    for (const c of importCases()) add(c);
    return out;
  }
  if (!route.spec.body) {
    // No body expected: junk ones must not matter.
    for (const body of ['{', rawBodies[rawBodies.length - 1], '['.repeat(DEPTH) + ']'.repeat(DEPTH)]) add({ body, contentType: 'application/json' });
    add({ body: 'x', contentType: 'text/plain' });
    return out;
  }
  // Bodies: raw junk, every content type, and per field: deep nesting, NUL, 100 KB, a number as a string.
  for (const body of rawBodies) add({ body, contentType: 'application/json' });
  for (const contentType of contentTypes) add({ body: JSON.stringify(sample), contentType });
  for (const [i] of leafPaths(sample).entries()) {
    const auth: AuthKind = i % 2 ? 'key' : 'jwt';
    for (const value of [i % 2 ? deepObject(DEPTH) : deepArray(DEPTH), 'a\u0000b', HUGE]) add({ auth, body: mutate(sample, { kind: 'replace', pick: i, value, key: '' }), contentType: 'application/json' });
    add({ auth, body: mutate(sample, { kind: 'stringify', pick: i, value: null, key: '' }), contentType: 'application/json' });
  }
  for (const key of ['__proto__', 'constructor', 'prototype']) add({ body: mutate(sample, { kind: 'addKey', pick: 0, value: { polluted: true }, key }), contentType: 'application/json' });
  add({ headers: { 'idempotency-key': 'k'.repeat(300) }, body: JSON.stringify(sample), contentType: 'application/json' });
  add({ headers: { 'content-encoding': 'gzip' }, body: JSON.stringify(sample), contentType: 'application/json' });
  return out;
}

// ---------------------------------------------------------------------------------------------

const byAuth = (auth: string) => () => routes.filter((r) => r.spec.auth === auth);

async function fuzzRoutes(select: () => RouteDefinition[]) {
  const failures: string[] = [];
  const selected = select();
  // Reads share one world; anything that may write gets its own (it may delete the project or the key).
  let readWorld: World | undefined;
  for (const route of selected) {
    const w = route.spec.method === 'get' ? (readWorld ??= await makeWorld()) : await makeWorld();
    for (const r of corpus(route, w)) {
      const problem = violation(await send(w, r));
      if (problem) failures.push(`${routeKey(route)}: ${problem}\n    request: ${describeRequest(r)}`);
    }
    const result = await fc.check(
      fc.asyncProperty(requestArb(route, w), async (r) => {
        const problem = violation(await send(w, r));
        if (problem) throw new Error(`${problem}\n    request: ${describeRequest(r)}`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    if (result.failed) failures.push(`${routeKey(route)} (seed ${result.seed}): ${(result.errorInstance as Error)?.message ?? String(result.errorInstance)}`);
  }
  return { failures, count: selected.length };
}

describe('no bad input reaches a 500, and every 4xx has the documented error body', () => {
  // The JWT routes (most of the API) in parts, each with the test timeout to itself, so that a loaded
  // machine or a new module's routes do not run one case out of time.
  const JWT_PARTS = 3;
  const cases: Array<[string, number, number]> = [['none', 1, 1], ...Array.from({ length: JWT_PARTS }, (_, i): [string, number, number] => ['jwt', i + 1, JWT_PARTS]), ['key', 1, 1], ['keyOrJwt', 1, 1]];
  it.each(cases)('routes with auth %s (part %i of %i)', async (auth, part, parts) => {
    const { failures, count } = await fuzzRoutes(() => byAuth(auth)().filter((_, i) => i % parts === part - 1));
    if (auth !== 'key') expect(count).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  });

  it('covers every route of the API', () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.every((r) => ['none', 'jwt', 'key', 'keyOrJwt'].includes(r.spec.auth))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Length caps: 100 KB in any free-text field is a 400, and nothing is stored.

function stringLeaves(value: unknown, prefix: Path = []): Path[] {
  if (typeof value === 'string') return [prefix];
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    return entries.flatMap(([k, v]) => stringLeaves(v, [...prefix, k]));
  }
  return [];
}

/**
 * Objects whose keys are free (data, variables, tags): a 100 KB value or key added there must be refused too.
 * (Unknown fields elsewhere, e.g. in a provider's `config`, are ignored and not stored: docs/api.md#conventions.)
 */
function records(value: unknown, prefix: Path = []): Path[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const own = prefix.length && ['data', 'variables', 'tags'].includes(String(prefix[prefix.length - 1])) ? [prefix] : [];
  return [...own, ...Object.entries(value).flatMap(([k, v]) => records(v, [...prefix, k]))];
}

describe('length caps', () => {
  it('every route with a body has a sample here (so that its caps are checked)', () => {
    const missing = routes.filter((r) => r.spec.body && !isImport(r) && !(routeKey(r) in SAMPLES)).map(routeKey);
    expect(missing).toEqual([]);
  });

  it('a 100 KB string in any field of any body is a 400', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of routes.filter((r) => r.spec.body && !isImport(r))) {
      const w = await makeWorld();
      const sample = sampleBody(route, w);
      if (!sample) continue;
      const path = paramNames(route.spec.path).reduce((p, n) => p.replace(`:${n}`, encodeURIComponent(realParam(route.spec.path, n, w))), route.spec.path);
      const variants: [string, unknown][] = [
        ...stringLeaves(sample).map((p): [string, unknown] => [p.join('.'), setAt(sample, p, HUGE)]),
        ...records(sample).flatMap((p): [string, unknown][] => [
          [`${p.join('.')}.<new value>`, setAt(sample, [...p, 'extra'], HUGE)],
          [`${p.join('.')}.<new key>`, setAt(sample, [...p, 'k'.repeat(100 * 1024)], 'v')],
        ]),
      ];
      for (const [field, body] of variants) {
        checked++;
        const res = await send(w, { method: route.spec.method.toUpperCase(), path, query: `projectId=${w.projectId}`, auth: route.spec.auth === 'none' ? 'none' : 'jwt', headers: {}, body: JSON.stringify(body), contentType: 'application/json' });
        if (res.status !== 400) failures.push(`${routeKey(route)} ${field}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(failures).toEqual([]);
  });

  it('a 100 KB template in an import file, a 100 KB Idempotency-Key-free send and a long path segment are refused', async () => {
    const w = await makeWorld();
    const form = FORM;
    for (const field of ['name', 'title', 'body']) {
      const tpl = { name: unique('big'), title: 't', body: 'b', [field]: HUGE };
      const res = await send(w, { method: 'POST', path: `/push-templates/import/${w.projectId}`, query: '', auth: 'jwt', headers: {}, body: multipart([{ name: 'file', filename: 'e.json', type: 'application/json', content: JSON.stringify({ templates: [tpl] }) }]), contentType: form });
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
    }
    const big = await send(w, { method: 'POST', path: `/push-templates/import/${w.projectId}`, query: '', auth: 'jwt', headers: {}, body: multipart([{ name: 'file', filename: 'e.json', type: 'application/json', content: JSON.stringify({ templates: [{ name: 'x', title: 't', body: 'b', data: { v: HUGE } }] }) }]), contentType: form });
    expect(big.status).toBe(400);
    expect(await h.db.pushTemplate.count({ where: { projectId: w.projectId, title: HUGE } })).toBe(0);
    // Path parameters and the Idempotency-Key header: capped too.
    const longUser = await send(w, { method: 'GET', path: `/push/devices/${'u'.repeat(6000)}`, query: `projectId=${w.projectId}`, auth: 'jwt', headers: {} });
    expect(longUser.status).toBe(400);
    const longKey = await send(w, { method: 'POST', path: '/push/send', query: '', auth: 'key', headers: { 'idempotency-key': 'k'.repeat(6000) }, body: JSON.stringify({ userId: w.customerId, templateId: w.templateId, variables: { name: 'x' } }), contentType: 'application/json' });
    expect(longKey.status).toBe(400);
  });
});

// ---------------------------------------------------------------------------------------------
// What the fuzzer found, pinned down (each was a 500 before).

describe('inputs Postgres or the stack cannot take are 400s', () => {
  it('a NUL character in any string, key or path parameter', async () => {
    const w = await makeWorld();
    const name = await h.post('/projects', { token: w.owner.accessToken, body: { name: 'a\u0000b' } });
    expect(name.status).toBe(400);
    expect(name.body).toEqual({ statusCode: 400, message: 'Invalid request body: name: must not contain NUL characters', error: 'Bad Request', details: [{ path: 'name', message: 'must not contain NUL characters' }] });
    const data = await h.post('/push/send', { apiKey: w.apiKey, body: { userId: w.customerId, templateId: w.templateId, variables: { name: 'x' }, data: { ['k\u0000']: 'v' } } });
    expect(data.status).toBe(400);
    expect(data.body.details).toEqual([{ path: 'data.k\u0000', message: 'keys must not contain NUL characters' }]);
    const param = await h.get('/push/devices/a%00b', { token: w.owner.accessToken, query: { projectId: w.projectId } });
    expect(param.status).toBe(400);
    expect(param.body.message).toBe('Invalid path parameter: userId: must not contain NUL characters');
    expect(await h.db.notification.count({ where: { projectId: w.projectId } })).toBe(1);
  });

  it('an unpaired UTF-16 surrogate in any string or key (jsonb refuses it; a JSON body may carry one as "\\ud800")', async () => {
    const w = await makeWorld();
    const message = 'must not contain unpaired UTF-16 surrogates (\\ud800–\\udfff)';
    const value = await h.post('/push/send', { apiKey: w.apiKey, body: { userId: w.customerId, templateId: w.templateId, variables: { name: 'x' }, data: { k: 'a\uD800' } } });
    expect(value.status).toBe(400);
    expect(value.body).toEqual({ statusCode: 400, message: `Invalid request body: data.k: ${message}`, error: 'Bad Request', details: [{ path: 'data.k', message }] });
    const key = await h.post('/push-templates', { token: w.owner.accessToken, body: { projectId: w.projectId, name: 'lone', title: 't', body: 'b', data: { ['\uDC00']: 'v' } } });
    expect(key.status).toBe(400);
    expect(key.body.details).toEqual([{ path: 'data.\uDC00', message: `keys ${message}` }]);
    // The fuzzer's case: an import file whose template data has such a key.
    const imported = await send(w, { method: 'POST', path: `/push-templates/import/${w.projectId}`, query: '', auth: 'jwt', headers: {}, body: file(JSON.stringify({ templates: [{ name: 'lone', title: 't', body: 'b', data: { ['\uD800']: 'x' } }] })), contentType: FORM });
    expect(imported.status).toBe(400);
    expect(JSON.parse(imported.text).message).toBe(`Invalid import file: templates.0.data.\uD800: keys ${message}`);
    // Surrogates in pairs are just characters outside the BMP.
    const paired = await h.post('/push/send', { apiKey: w.apiKey, body: { userId: w.customerId, templateId: w.templateId, variables: { name: '😀' }, data: { ['😀']: 'a\uD83D\uDE00b' } } });
    expect(paired.status).toBe(202);
    // The world's own send and the paired one; nothing of the refused ones.
    expect(await h.db.notification.count({ where: { projectId: w.projectId } })).toBe(2);
    expect(await h.db.pushTemplate.count({ where: { projectId: w.projectId, name: 'lone' } })).toBe(0);
  });

  it('nesting deeper than 64 levels, up to the 10,000 levels that fit in 1 MiB', async () => {
    const w = await makeWorld();
    for (const depth of [65, DEPTH]) {
      const res = await send(w, { method: 'POST', path: '/push/send', query: '', auth: 'key', headers: {}, body: toJson({ userId: w.customerId, templateId: w.templateId, variables: { name: deepArray(depth) } }), contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).message).toMatch(/^Invalid request body: variables\.name(\.0)+: nested more than 64 levels deep$/);
    }
    // 64 levels are fine (a template variable may be an object path that deep).
    const ok = await send(w, { method: 'POST', path: '/push-templates/preview', query: '', auth: 'key', headers: {}, body: toJson({ templateId: w.templateId, variables: { name: deepArray(62) } }), contentType: 'application/json' });
    expect(ok.status).toBe(200);
  });

  it('a preview renders at most 64 KB of variables', async () => {
    const w = await makeWorld();
    const res = await h.post('/push-templates/preview', { apiKey: w.apiKey, body: { templateId: w.templateId, variables: { name: 'x'.repeat(65 * 1024) } } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid request body: variables: variables must be at most 65536 bytes as JSON');
  });
});

describe('templates and variables that would freeze or break a render', () => {
  /** Template pieces an attacker combines: loops over the root list, sections, lookups, values. */
  const block = (name: string, inner: string) => `{{#${name}}}${inner}{{/${name.split(' ')[0]}}}`;
  const template: fc.Arbitrary<string> = fc.letrec<{ t: string }>((tie) => ({
    t: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('x', '{{a}}', '{{@root.a}}', '{{this}}', '{{a.toString}}', '{{constructor}}', '{{lookup a 0}}', '{{a.[0]}}', '{{@index}}'),
      fc.tuple(fc.constantFrom('each a', 'each @root.a', 'each this', 'with a', 'if a', 'unless a', 'a', 'each @root.b'), tie('t')).map(([name, inner]) => block(name, inner)),
      fc.tuple(tie('t'), tie('t')).map(([x, y]) => x + y),
    ),
  })).t;
  /** Deeply nested loops, the shape that multiplies work: `{{#each a}}` × depth. */
  const nestedLoops = fc.integer({ min: 1, max: 60 }).map((depth) => '{{#each @root.a}}'.repeat(depth) + '{{@root.b}}' + '{{/each}}'.repeat(depth));
  const poison = fc.constantFrom<unknown>({ toString: 'x' }, { toString: 1, valueOf: 'y' }, { valueOf: {} , toString: null }, { toString: { toString: 'x' } }, [{ toString: 'x' }], { a: { toString: 'x' } });
  const value: fc.Arbitrary<unknown> = fc.oneof(
    poison,
    fc.integer({ min: 0, max: 400 }).map((n) => new Array(n).fill(0)),
    fc.integer({ min: 0, max: 50 }).map((n) => Array.from({ length: n }, () => ({ toString: 'x', a: [1, 2] }))),
    fc.string({ maxLength: 200 }),
    fc.integer(),
    fc.constant(null),
  );
  const variables = fc.record({ a: value, b: value }, { requiredKeys: [] });

  it('saving, previewing and sending any of them answers 2xx or a 400 in Herald’s words, never 500', async () => {
    const w = await makeWorld();
    await fc.assert(
      fc.asyncProperty(fc.oneof(template, nestedLoops), variables, async (body, vars) => {
        const saved = await h.post('/push-templates', { token: w.owner.accessToken, body: { projectId: w.projectId, name: unique('fz'), title: 't', body: body.slice(0, 4000) } });
        const answers = [saved];
        if (saved.status === 201) {
          answers.push(await h.post('/push-templates/preview', { apiKey: w.apiKey, body: { templateId: saved.body.id, variables: vars } }));
          answers.push(await h.post('/push/send', { apiKey: w.apiKey, body: { userId: w.customerId, templateId: saved.body.id, variables: vars } }));
        }
        for (const res of answers) {
          const problem = violation({ status: res.status, text: res.text, contentType: res.headers.get('content-type') ?? '' });
          if (problem) throw new Error(problem);
          expect([200, 201, 202, 400]).toContain(res.status);
          expect(res.text).not.toMatch(/Cannot read properties|Maximum call stack|is not a function|Cannot convert object to primitive/);
        }
      }),
      { numRuns: RUNS * 2, seed: SEED },
    );
  });
});

describe('webhook receivers that answer anything', () => {
  // The worker's dispatcher on this harness's database and queue, against a receiver answering
  // arbitrary bytes: every attempt is recorded (a NUL once made the write fail and the job run for ever).
  it('any bytes in an answer are recorded with the attempt, and the delivery goes on', async () => {
    const w = await makeWorld();
    const r = await startReceiver();
    try {
      // The world's endpoint, pointed at the local receiver (the API refuses loopback addresses).
      await h.db.webhookEndpoint.update({ where: { id: w.webhookId }, data: { url: r.url('/fuzz-answer') } });
      const dispatcher = new WebhookDispatcher({
        db: h.db,
        queue: h.container.webhookQueue,
        logger: h.container.logger,
        mailer: h.container.mailer,
        keys: h.container.config.encryption,
        policy: { baseMs: 60_000, maxDelayMs: 60_000, windowMs: 3_600_000 },
        timeoutMs: 5000,
        allowPrivate: true,
        disableAfterMs: 3_600_000,
      });
      const bytes = fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.constant(new Uint8Array([0x61, 0, 0x62])), fc.string({ unit: 'binary' }).map((s) => new TextEncoder().encode(s)));
      await fc.assert(
        fc.asyncProperty(bytes, fc.constantFrom(200, 404, 500), async (answer, status) => {
          r.on('/fuzz-answer', () => ({ status, body: Buffer.from(answer) }));
          const event = await h.db.webhookEvent.create({ data: { projectId: w.projectId, type: 'webhook.test', body: '{}' } });
          const delivery = await h.db.webhookDelivery.create({ data: { endpointId: w.webhookId, eventId: event.id } });
          await dispatcher.attempt(delivery.id, 1);
          const after = await h.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id }, include: { attemptLog: true } });
          expect(after.status).toBe(status === 200 ? 'succeeded' : 'pending');
          expect(after.attemptLog).toHaveLength(1);
          expect(after.attemptLog[0].responseBody).not.toMatch(/\0/);
          expect(after.attemptLog[0].responseBody!.length).toBeLessThanOrEqual(1024);
        }),
        { numRuns: RUNS * 2, seed: SEED },
      );
    } finally {
      await r.close();
    }
  });
});
