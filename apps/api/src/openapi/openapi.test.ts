import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { startApi, type Harness } from '@herald/testing';
import { CLIENT_DOCUMENT_FILE, serializeDocument } from '../../scripts/openapi';
import { createApp } from '../app';
import { apiRoutes } from '../routes';
import { operationNotes } from './annotations';
import { handMountedRoutes, operationKey, toOpenApiPath } from './document';

type Operations = Record<string, OpenAPIV3_1.OperationObject>;

let h: Harness;
let doc: OpenAPIV3_1.Document;
beforeAll(async () => {
  h = await startApi();
  const res = await h.get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => h.close());

const operations = () =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) => Object.entries(item as Operations).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })));

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route Express would answer, from the app's router stack (nested routers included). */
function expressRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      return Object.keys(layer.route.methods)
        .filter((m) => m !== '_all' && m !== 'head')
        .map((m) => operationKey(m, layer.route!.path));
    }
    return layer.handle?.stack ? expressRoutes(layer.handle.stack) : [];
  });
}

/**
 * Not API operations: the reference page for people, and the Prometheus scrape endpoint (text
 * exposition format, optional with METRICS_ENABLED, for the operator's scraper).
 */
const NOT_OPERATIONS = ['GET /docs', 'GET /docs/{asset}', 'GET /metrics'];

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('is the document the client is generated from (after a route change: pnpm client:generate)', () => {
    expect(readFileSync(CLIENT_DOCUMENT_FILE, 'utf8')).toBe(serializeDocument(doc));
  });

  it('documents every route Express serves, and nothing else', () => {
    const app = createApp(h.container) as unknown as { router: { stack: Layer[] } };
    const served = expressRoutes(app.router.stack);
    expect(new Set(served).size).toBe(served.length);
    const documented = operations().map((o) => o.key);
    expect(served.filter((r) => !NOT_OPERATIONS.includes(r)).sort()).toEqual(documented.sort());
    expect(served).toEqual(expect.arrayContaining(['GET /docs', 'GET /docs/{asset}']));
  });

  it('is generated from the route definitions: every one, with its summary, tags and auth', () => {
    const routes = [...apiRoutes(h.container).map((r) => r.spec), ...handMountedRoutes];
    for (const spec of routes) {
      const op = (doc.paths![toOpenApiPath(spec.path)] as Operations)[spec.method];
      expect({ key: operationKey(spec.method, spec.path), summary: op.summary, tags: op.tags }).toEqual({
        key: operationKey(spec.method, spec.path),
        summary: spec.summary,
        tags: spec.tags,
      });
      const security = { none: [], jwt: [{ bearerAuth: [] }], key: [{ apiKey: [] }], keyOrJwt: [{ apiKey: [] }, { bearerAuth: [] }], optionalJwt: [{}, { bearerAuth: [] }] }[spec.auth];
      expect(op.security).toEqual(security);
    }
    expect(operations()).toHaveLength(routes.length);
  });

  it('gives every route a response schema (add `response:` to a new route)', () => {
    const missing = apiRoutes(h.container)
      .filter((r) => !r.spec.response)
      .map((r) => operationKey(r.spec.method, r.spec.path));
    expect(missing).toEqual([]);
    for (const { key, op } of operations()) {
      const success = Object.entries(op.responses ?? {}).filter(([s]) => s.startsWith('2'));
      expect({ key, success: success.length > 0 }).toEqual({ key, success: true });
      // JSON, or the one media type a route answers in (`responseType`, e.g. an export as JSON Lines).
      for (const [, res] of success) expect({ key, schema: Object.values((res as OpenAPIV3_1.ResponseObject).content ?? {})[0]?.schema }).toEqual({ key, schema: expect.any(Object) });
    }
  });

  it('annotates only operations that exist', () => {
    const keys = new Set(operations().map((o) => o.key));
    expect(Object.keys(operationNotes).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('declares both security schemes, and every error response uses the error body', () => {
    expect(doc.components!.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    });
    expect(doc.components!.schemas!.Error).toMatchObject({ type: 'object', required: ['statusCode', 'message', 'error'], properties: { details: { type: 'array' } } });
    for (const { key, op, path } of operations()) {
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (!status.startsWith('4') && !status.startsWith('5')) continue;
        if (path === '/ready') continue; // the error body plus `checks`
        const resolved = '$ref' in res ? doc.components!.responses![res.$ref.split('/').pop()!] : res;
        expect({ key, status, schema: (resolved as OpenAPIV3_1.ResponseObject).content!['application/json'].schema }).toEqual({ key, status, schema: { $ref: '#/components/schemas/Error' } });
      }
    }
  });

  it('lists the statuses each kind of route can answer', () => {
    const statuses = (key: string) => {
      const [method, path] = key.split(' ');
      return Object.keys((doc.paths![path] as Operations)[method.toLowerCase()].responses ?? {});
    };
    expect(statuses('POST /auth/signup')).toEqual(['201', '400', '403', '409', '413', '415', '429', '503']);
    expect(statuses('GET /auth/me')).toEqual(['200', '401', '503']);
    expect(statuses('POST /push/send')).toEqual(['202', '400', '401', '403', '404', '409', '413', '415', '429', '503']);
    expect(statuses('POST /push/register-device')).toEqual(['200', '201', '400', '401', '403', '404', '413', '415', '429', '503']);
    expect(statuses('DELETE /projects/{projectId}/members/{userId}')).toEqual(['200', '400', '401', '404', '503']);
    expect(statuses('GET /health')).toEqual(['200']);
    expect(statuses('GET /ready')).toEqual(['200', '503']);
  });

  it('describes the Idempotency-Key header on the send routes and the multipart import body', () => {
    const op = (path: string, method: string) => (doc.paths![path] as Operations)[method];
    for (const path of ['/push/send', '/push/send-bulk']) {
      expect(op(path, 'post').parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }));
    }
    expect(op('/push-templates/import/{projectId}', 'post').requestBody).toMatchObject({
      content: { 'multipart/form-data': { schema: { required: ['file'], properties: { file: { type: 'string' } } }, encoding: { file: { contentType: 'application/json' } } } },
    });
    expect(op('/push/send', 'post').requestBody).toMatchObject({
      content: { 'application/json': { schema: { required: ['userId', 'templateId'], properties: { imageUrl: { type: 'string', format: 'uri' } } } } },
    });
  });

  it('names the response schemas the modules export', () => {
    const ref = (path: string, method: string, status: string) =>
      ((doc.paths![path] as Operations)[method].responses![status] as OpenAPIV3_1.ResponseObject).content!['application/json'].schema;
    expect(ref('/push-templates/{id}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Template' });
    expect(ref('/push/notifications/{notificationId}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Notification' });
    expect(ref('/push/devices/{userId}', 'get', '200')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Device' } });
    expect(ref('/push/unregister-device', 'post', '200')).toEqual({ $ref: '#/components/schemas/Message' });
    expect(doc.components!.schemas!.Provider).toMatchObject({ properties: { config: { type: 'object' } } });
  });
});

describe('GET /docs', () => {
  it('redirects to the page, which loads only its own assets under a strict CSP', async () => {
    const redirect = await fetch(`${h.url}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('docs/');

    const page = await fetch(`${h.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toMatch(/unsafe-eval|https:/);
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script: the CSP would block it
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(['swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png', 'swagger-ui-bundle.js', 'herald-docs.js']);
    for (const asset of assets) {
      const res = await fetch(new URL(asset, `${h.url}/docs/`));
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      await res.arrayBuffer();
    }
    const init = await (await fetch(`${h.url}/docs/herald-docs.js`)).text();
    expect(init).toContain("new URL('../openapi.json', window.location.href)");
    const bundle = await fetch(`${h.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  it('serves nothing else of the Swagger UI package', async () => {
    for (const file of ['index.html', 'swagger-initializer.js', 'package.json', '..%2F..%2Fpackage.json']) {
      const res = await h.get(`/docs/${file}`);
      expect({ file, status: res.status }).toEqual({ file, status: 404 });
    }
  });
});
