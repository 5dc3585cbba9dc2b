import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import type { RouteDefinition } from '../http/define-route';
import { operationNotes } from './annotations';
import { errorResponse, healthResponse, notReadyResponse, openApiDocumentResponse, readyResponse } from './components';
import { webhooksSection } from './webhooks';

type Spec = RouteDefinition['spec'];
/** JSON Schema as zod emits it (openapi-types' 3.1 schema typings are too narrow for it). */
type Schema = Record<string, unknown>;
type JsonObject = Record<string, unknown>;

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Routes mounted by hand beside the route builder (`mountHealth`, `mountApiDocs`), described in
 * the builder's terms so that they get the same treatment. `/docs` (the HTML reference and its
 * assets) is a page for people, not an operation, and is left out.
 */
export const handMountedRoutes: Spec[] = [
  { method: 'get', path: '/health', summary: 'Liveness: the process answers', tags: ['Health'], auth: 'none', response: healthResponse },
  { method: 'get', path: '/ready', summary: 'Readiness: PostgreSQL and Redis reachable', tags: ['Health'], auth: 'none', response: readyResponse },
  { method: 'get', path: OPENAPI_PATH, summary: 'This API document (OpenAPI 3.1)', tags: ['Health'], auth: 'none', response: openApiDocumentResponse },
];

const TAGS: OpenAPIV3_1.TagObject[] = [
  { name: 'Account', description: 'Sign up, sign in, tokens and passwords of dashboard users.' },
  { name: 'Projects', description: 'Projects and their team. The creator is the owner and a project_admin member.' },
  { name: 'Invites', description: 'E-mail invites to a project; statuses `pending`, `accepted`, `cancelled`, `expired`.' },
  { name: 'API keys', description: "Keys for a project's backends (`x-api-key`). A key is shown once, at creation." },
  { name: 'Push templates', description: 'Templates with Handlebars `{{variable}}` placeholders: CRUD, preview, export and import.' },
  { name: 'Push config', description: 'Whether push is enabled for a project, and its FCM providers in failover order.' },
  { name: 'Devices', description: "Device tokens of your users, registered by your backend." },
  { name: 'Sending', description: 'Send a templated push to one user or up to 500, and follow its delivery.' },
  { name: 'Audiences', description: 'Segments (saved filters over device attributes) and audience counts; the filter language is `AudienceFilter`.' },
  { name: 'Webhooks', description: "Endpoints that receive the project's outcome events, signed per Standard Webhooks; the events themselves are under `webhooks`." },
  { name: 'Health', description: 'Liveness, readiness and this document; no credentials.' },
];

const DESCRIPTION = `Herald sends templated push notifications through Firebase Cloud Messaging.

**Authentication.** Dashboard users send \`Authorization: Bearer <accessToken>\` (from \`POST /auth/signin\`).
Backends send \`x-api-key: <key>\` (created under \`/projects/{projectId}/api-keys\`); a key acts on its own project.
Operations that accept both list both security schemes; when \`x-api-key\` is present it decides. With a bearer
token, such operations need the \`projectId\` query parameter (400 without it).

**Errors.** Every error has the body \`{ statusCode, message, error }\`; validation errors (400) add
\`details: [{ path, message }]\`. A resource of a project you do not belong to is a 404, like an unknown one.

**Lists.** Paginated lists answer \`{ data, meta: { page, limit, total, totalPages } }\` (\`page\` from 1,
\`limit\` 1–100, default 50); other lists are bare arrays. Timestamps are ISO 8601 in UTC.

**Rate limits.** Per credential (API key, or the user behind a token): register-device 60/min, send 100/min,
send-bulk 10/min, user attributes 60/min (10/min for up to 1,000 users at once), audience count 60/min;
sign-in and password-reset requests 10/min per IP and e-mail, sign-ups 30/min per IP (defaults).
A 429 carries \`Retry-After\` and the IETF \`RateLimit\` / \`RateLimit-Policy\` headers.

In the repository: \`docs/api.md\` (every rule of the API), \`docs/quick-start.md\` (a curl walkthrough),
\`docs/delivery.md\` (delivery semantics) and \`docs/webhooks.md\` (outcome webhooks: events, signing, retries).`;

const STATUS_TEXT: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Invalid input: `message` names the first problem, `details` lists every one' },
  401: {
    name: 'Unauthorized',
    description:
      'No valid credentials: `Missing or invalid authorization header`, `Invalid token`, `Token has expired`, `Invalid API key` or `API key is disabled`',
  },
  403: { name: 'Forbidden', description: "Authenticated, but the caller's role forbids it, or an API key named another project" },
  404: { name: 'NotFound', description: 'Unknown, or of a project the caller does not belong to' },
  409: { name: 'Conflict', description: 'Conflicts with the current state' },
  413: { name: 'PayloadTooLarge', description: 'Request body over 1 MiB' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json`' },
  429: { name: 'TooManyRequests', description: 'Rate limit exceeded: retry after `Retry-After` seconds' },
  503: { name: 'ServiceUnavailable', description: 'PostgreSQL or Redis is unreachable; answered within 5 s' },
};

const RATE_LIMIT_HEADERS: Record<string, OpenAPIV3_1.HeaderObject> = {
  RateLimit: { description: 'IETF draft-8: the remaining quota of this window, e.g. `"send";r=99;t=60`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft-8: the policy, e.g. `"send";q=100;w=60`', schema: { type: 'string' } },
};

const SUCCESS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted into the delivery queue' };

export const toOpenApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}');
export const operationKey = (method: string, expressPath: string) => `${method.toUpperCase()} ${toOpenApiPath(expressPath)}`;

const NAMED_FORMATS = new Set(['uuid', 'email', 'date-time', 'uri']);

/**
 * zod's JSON Schema, less what says nothing to a reader: the regex zod adds to a named format (40
 * lines of noise in every uuid), `z.int()`'s safe-integer bounds, and the registry id zod copies into
 * a named schema (its component name already says it). Applied through zod's own `override` hook.
 */
function quieter({ jsonSchema: json }: { jsonSchema: JsonObject }) {
  if (json.pattern !== undefined && NAMED_FORMATS.has(String(json.format))) delete json.pattern;
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  if (typeof json.id === 'string') delete json.id;
}

/**
 * Collects the named schemas (zod's `$defs`, from the ids the modules' schemas are registered with)
 * of every conversion into `components.schemas`, and fails loudly if one name would stand for two
 * different shapes (e.g. one schema used for input and output with a default).
 */
class SchemaCollector {
  readonly schemas: Record<string, Schema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): Schema {
    // `ref`: a recursive schema (the audience filter) becomes a named component that refers to itself.
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'throw', cycles: 'ref', override: quieter }) as JsonObject;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Schema>;
    delete json.$defs;
    for (const [name, def] of Object.entries(defs)) this.add(name, toComponentRefs(def) as Schema);
    return toComponentRefs(json) as Schema;
  }

  private add(name: string, schema: Schema) {
    const existing = this.schemas[name];
    if (existing && !isDeepStrictEqual(existing, schema)) throw new Error(`OpenAPI: the schema name "${name}" stands for two different shapes`);
    this.schemas[name] = schema;
  }

  /** A top-level schema identical to a named component (e.g. each module's own `{ message }`) becomes a reference to it. */
  named(schema: Schema): Schema {
    for (const [name, component] of Object.entries(this.schemas)) if (isDeepStrictEqual(component, schema)) return { $ref: `#/components/schemas/${name}` };
    return schema;
  }
}

function security(auth: Spec['auth']): OpenAPIV3_1.SecurityRequirementObject[] {
  switch (auth) {
    case 'none':
      return [];
    case 'jwt':
      return [{ bearerAuth: [] }];
    case 'key':
      return [{ apiKey: [] }];
    case 'keyOrJwt':
      return [{ apiKey: [] }, { bearerAuth: [] }];
    case 'optionalJwt':
      return [{}, { bearerAuth: [] }];
  }
}

const PROJECT_ID_HELP: Record<'jwt' | 'keyOrJwt', string> = {
  jwt: 'The project.',
  keyOrJwt: "The project. Required with a bearer token; with an API key the key's project is used (naming another project is a 403).",
};

const projectIdHelp = (spec: Spec) =>
  `${PROJECT_ID_HELP[spec.auth === 'jwt' ? 'jwt' : 'keyOrJwt']}${spec.project?.from === 'bodyOrQuery' ? ' Given in the body or the query (the body wins).' : ''}`;

/** zod's references to its `$defs` as references to the document's components. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (!value || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : toComponentRefs(v);
  return out;
}

const isRateLimited = (spec: Spec) => spec.rateLimit !== undefined || Boolean(spec.limits?.length);

/** Error statuses a route can answer, from what its definition says it does. */
function derivedErrors(spec: Spec, hasInput: boolean): number[] {
  // The hand-mounted routes need neither Postgres nor Redis (/ready reports them itself).
  if (handMountedRoutes.includes(spec)) return [];
  const statuses = new Set<number>();
  if (hasInput || spec.project) statuses.add(400);
  if (spec.auth !== 'none') statuses.add(401);
  if (spec.project) {
    statuses.add(404);
    const need = spec.project.need;
    if (need === 'project_admin' || need === 'owner') statuses.add(spec.project.denial?.status ?? 403);
    if (spec.auth === 'keyOrJwt' || spec.auth === 'key') statuses.add(403);
  }
  if (spec.params) statuses.add(404);
  if (spec.body) {
    statuses.add(413);
    statuses.add(415);
  }
  if (isRateLimited(spec)) statuses.add(429);
  statuses.add(503);
  return [...statuses];
}

function errorResponseObject(status: number, description?: string): OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject {
  const known = STATUS_TEXT[status];
  if (known && !description) return { $ref: `#/components/responses/${known.name}` };
  return {
    description: description ?? `Error ${status}`,
    ...(status === 429 ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_LIMIT_HEADERS } } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function operationId(method: string, path: string) {
  const words = toOpenApiPath(path)
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith('{') ? `By-${seg.slice(1, -1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1))).join('');
}

function buildOperation(spec: Spec, schemas: SchemaCollector): OpenAPIV3_1.OperationObject {
  const key = operationKey(spec.method, spec.path);
  const notes = operationNotes[key] ?? {};
  const parameters: OpenAPIV3_1.ParameterObject[] = [];

  for (const [where, schema] of [
    ['path', spec.params],
    ['query', spec.query],
    ['header', spec.headers],
  ] as const) {
    if (!schema) continue;
    const json = schemas.convert(schema, 'input');
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((json.properties ?? {}) as Record<string, Schema>)) {
      const { description, ...rest } = prop;
      const isProjectId = where === 'query' && name === 'projectId' && (spec.project?.from === 'query' || spec.project?.from === 'bodyOrQuery');
      parameters.push({
        name,
        in: where,
        // The route builder asks a JWT caller for projectId itself, so the schema has it optional.
        required: where === 'path' || required.has(name) || (isProjectId && spec.auth === 'jwt'),
        ...(isProjectId && (spec.auth === 'jwt' || spec.auth === 'keyOrJwt') ? { description: projectIdHelp(spec) } : description ? { description } : {}),
        schema: rest,
      } as OpenAPIV3_1.ParameterObject);
    }
  }
  let requestBody: OpenAPIV3_1.RequestBodyObject | undefined = spec.upload?.requestBody;
  if (spec.body) {
    const json = schemas.convert(spec.body, 'input');
    if ((spec.project?.from === 'body' || spec.project?.from === 'bodyOrQuery') && spec.auth === 'keyOrJwt') {
      const props = json.properties as Record<string, Schema> | undefined;
      if (props?.projectId) props.projectId = { ...props.projectId, description: projectIdHelp(spec) };
    }
    requestBody = { required: true, content: { 'application/json': { schema: json } } };
  }

  const rateLimited = isRateLimited(spec);
  const success = spec.status ?? 200;
  const responses: OpenAPIV3_1.ResponsesObject = {};
  const body = spec.response ? schemas.named(schemas.convert(spec.response, 'output')) : undefined;
  for (const [status, description] of [[success, SUCCESS_TEXT[success] ?? 'Success'] as const, ...Object.entries(notes.alsoSuccess ?? {})]) {
    responses[String(status)] = {
      description,
      ...(rateLimited ? { headers: RATE_LIMIT_HEADERS } : {}),
      ...(body ? { content: { [spec.responseType ?? 'application/json']: { schema: body } } } : {}),
    };
  }

  const errors = new Set([...derivedErrors(spec, Boolean(spec.params || spec.query || spec.body || spec.headers || spec.upload)), ...Object.keys(notes.errors ?? {}).map(Number)]);
  for (const status of [...errors].sort((a, b) => a - b)) responses[String(status)] = errorResponseObject(status, notes.errors?.[status]);

  return {
    operationId: operationId(spec.method, spec.path),
    summary: spec.summary,
    ...(notes.description ? { description: notes.description } : {}),
    tags: spec.tags ?? [],
    security: security(spec.auth),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The version of the HTTP interface (not of the packages); raise it when the document changes meaning. */
export const API_VERSION = '0.1.0';

export interface DocumentOptions {
  version?: string;
}

/**
 * The OpenAPI 3.1 document of the API, generated from the route definitions: the same zod schemas
 * that validate requests describe them here (`io: 'input'`), and the routes' response schemas
 * describe the answers (`io: 'output'`).
 */
export function buildOpenApiDocument(routes: RouteDefinition[], options: DocumentOptions = {}): OpenAPIV3_1.Document {
  const schemas = new SchemaCollector();
  schemas.convert(errorResponse, 'output');
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const spec of [...routes.map((r) => r.spec), ...handMountedRoutes]) {
    const path = toOpenApiPath(spec.path);
    const item = (paths[path] ??= {}) as Record<string, OpenAPIV3_1.OperationObject>;
    if (item[spec.method]) throw new Error(`OpenAPI: ${operationKey(spec.method, spec.path)} is defined twice`);
    item[spec.method] = buildOperation(spec, schemas);
  }
  // /ready answers 503 with the checks beside the error body.
  (paths['/ready'] as OpenAPIV3_1.PathItemObject).get!.responses['503'] = {
    description: 'PostgreSQL or Redis unreachable; `checks` says which',
    content: { 'application/json': { schema: schemas.convert(notReadyResponse, 'output') } },
  };

  const used = new Set(Object.values(paths).flatMap((item) => Object.values(item as Record<string, OpenAPIV3_1.OperationObject>).flatMap((op) => op.tags ?? [])));
  const tags = [...TAGS.filter((t) => used.has(t.name)), ...[...used].filter((name) => !TAGS.some((t) => t.name === name)).map((name) => ({ name }))];

  const responses: Record<string, OpenAPIV3_1.ResponseObject> = {};
  for (const [status, { name, description }] of Object.entries(STATUS_TEXT)) {
    responses[name] = {
      description,
      ...(status === '429' ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_LIMIT_HEADERS } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    } as OpenAPIV3_1.ResponseObject;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Herald API',
      version: options.version ?? API_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags,
    paths,
    webhooks: webhooksSection((schema) => schemas.convert(schema, 'output')),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The `accessToken` of `POST /auth/signin` (dashboard users).' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "A project's API key (backends)." },
      },
      schemas: Object.fromEntries(Object.entries(schemas.schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses,
      headers: {
        'Retry-After': { description: 'Seconds until the rate-limit window resets', schema: { type: 'integer' } },
      },
    },
  };
}
