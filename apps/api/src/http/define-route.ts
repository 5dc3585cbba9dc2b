import type { IRouter, Request, Response } from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { AppError } from '@herald/core';
import type { ApiKeyScope } from '@herald/schemas';
import type { AuditActor, AuditSource } from '@herald/db';
import type { AccessDenial, ProjectAccess, ProjectGate, ProjectNeed } from './access';
import { checkInput } from './input-guard';
import { credentialOf, type AuthMode, type Authenticator, type Caller } from './caller';
import type { LimitName, Limits } from './limits';
import { clientIp, type Limit } from './rate-limit';
import type { ProjectCache, ProjectSnapshot } from '../project-cache/project-cache';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnySchema = z.ZodType;
/** Header names as the API document spells them (`Idempotency-Key`); read case-insensitively. */
type HeaderSchema = z.ZodObject;
type UserCaller = Extract<Caller, { type: 'user' }>;

type CallerFor<A extends AuthMode> = A extends 'none'
  ? undefined
  : A extends 'jwt'
    ? UserCaller
    : A extends 'optionalJwt'
      ? UserCaller | undefined
      : A extends 'key'
        ? Extract<Caller, { type: 'apiKey' }>
        : Caller;

type Parsed<S> = S extends AnySchema ? z.infer<S> : undefined;
type Maybe<S> = S | undefined;

/**
 * A request body that is no JSON: a multipart upload. The one place a route reads Express's request,
 * and only through this: the handler gets what `read` returns (`ctx.upload`).
 */
export interface Upload<T> {
  /** Reads the upload off the request (before validation): rejects with the 4xx a bad upload gets. */
  receive(req: Request, res: Response): Promise<void>;
  /** What was received, as the handler gets it; throws the 400 of a missing or unreadable part. */
  read(req: Request): T;
  /** The request body, for the API document. */
  requestBody: OpenAPIV3_1.RequestBodyObject;
}

type Uploaded<U> = U extends Upload<infer T> ? T : undefined;

/** The limit a route counts every request against before validation, per credential or per client IP. */
export interface RouteRateLimit {
  name: LimitName;
  /**
   * `credential`: the API key, or the user behind the JWT. Started together with authentication when
   * the credential is known without I/O (`credentialHint`), so that its Redis command leaves in the
   * same write as the project-version read (the send path is benchmarked).
   */
  per: 'credential' | 'ip';
}

export interface ProjectSpec {
  /**
   * Where a JWT caller names the project (`projectId` there); an API key always acts on its own.
   * `bodyOrQuery`: the body's, else the query's (the preview names it in its body, every other
   * key-or-JWT route in the query: docs/api.md#key-or-jwt-endpoints).
   */
  from: 'query' | 'body' | 'params' | 'bodyOrQuery';
  need?: ProjectNeed;
  denial?: AccessDenial;
  /** The handler reads the project's cached state (`projectState`), e.g. a send's checks. */
  state?: true;
}

export interface RouteSpec<A extends AuthMode, P, Q, B, H, PS extends ProjectSpec | undefined, L extends LimitName, U> {
  method: HttpMethod;
  path: string;
  summary: string;
  tags?: string[];
  auth: A;
  /**
   * What an API key must be allowed to do to call the route (docs/api.md#api-key-scopes); `any`: every
   * key may. Required of every route an API key can call (`key`, `keyOrJwt`): a key calling a route
   * without one is refused, and a test walks the routes for it.
   */
  scope?: A extends 'key' | 'keyOrJwt' ? ApiKeyScope | 'any' : never;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the route reads, by name (a `z.object`); in the API document as header parameters. */
  headers?: H;
  /** A multipart upload instead of a JSON body. */
  upload?: U;
  project?: PS;
  /** Status of a successful answer (default 200). A handler may override it with `reply()`. */
  status?: number;
  /** Counted after authentication (a bad credential is a 401, never a 429), before validation. */
  rateLimit?: RouteRateLimit;
  /**
   * The limits the handler counts itself with `ctx.limit(name, subject)`, once it knows the subject:
   * a field of the validated body, a project the caller was let into (a stranger uses up nothing).
   */
  limits?: readonly L[];
  /** Response schema, for the API document. */
  response?: AnySchema;
  /** The media type of the answer, for the API document, when it is no JSON (a handler `reply()`s the text). */
  responseType?: string;
  /**
   * A write that changes nothing the project cache holds (API keys, templates, push config,
   * providers), e.g. a send. Every other POST/PUT/PATCH/DELETE invalidates the cached state of the
   * projects it touched before it answers.
   */
  keepsProjectCache?: boolean;
}

export type CountLimit<L extends LimitName> = (name: L, subject: string) => Promise<void>;

export type AccessResource = (projectOf: Promise<string | undefined>, notFound: string, need?: ProjectNeed) => Promise<ProjectAccess>;

export interface RouteContext<A extends AuthMode, P, Q, B, H, PS extends ProjectSpec | undefined, L extends LimitName, U> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  headers: Parsed<H>;
  upload: Uploaded<U>;
  caller: CallerFor<A>;
  project: PS extends ProjectSpec ? ProjectAccess : undefined;
  /** The project's snapshot from the project cache, at its current version (routes with `project.state`). */
  projectState: PS extends { state: true } ? ProjectSnapshot : undefined;
  /** Checks the caller's access to a project. */
  access(projectId: string, need?: ProjectNeed, denial?: AccessDenial): Promise<ProjectAccess>;
  /**
   * Access to a resource addressed by its own id (a template, an invite, a provider): its project
   * (`projectOf` resolves to `undefined` for an unknown id), checked against the caller. An unknown id
   * and a resource of a project the caller is not in answer alike: 404 `notFound`.
   */
  accessResource: AccessResource;
  /** Counts this request against one of the route's `limits` for `subject`: a 429 (thrown) past it. */
  limit: CountLimit<L>;
  /** The client's address as per-IP limits count it (behind a proxy, see `TRUST_PROXY`). */
  readonly clientIp: string;
  /**
   * Who is making this request and from where, for the audit entry of a change: the service writes it
   * with `writeAudit(tx, audit, …)` in the change's own transaction (docs/architecture.md#audit-log).
   */
  readonly audit: AuditSource;
}

export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = (status: number, body: unknown, headers?: Record<string, string>) => new Reply(status, body, headers);

export interface RouteDefinition {
  spec: RouteSpec<AuthMode, Maybe<AnySchema>, Maybe<AnySchema>, Maybe<AnySchema>, Maybe<HeaderSchema>, Maybe<ProjectSpec>, LimitName, Maybe<Upload<unknown>>>;
  handler: (ctx: RouteContext<AuthMode, Maybe<AnySchema>, Maybe<AnySchema>, Maybe<AnySchema>, Maybe<HeaderSchema>, Maybe<ProjectSpec>, LimitName, Maybe<Upload<unknown>>>) => Promise<unknown> | unknown;
}

/**
 * The one route builder: every input (path, query, body, headers, an upload) is parsed with zod and
 * the caller and project are resolved before the handler runs. Handlers get typed input, count their
 * limits through the context, and never see Express's request or response.
 */
export function defineRoute<
  A extends AuthMode,
  P extends Maybe<AnySchema> = undefined,
  Q extends Maybe<AnySchema> = undefined,
  B extends Maybe<AnySchema> = undefined,
  H extends Maybe<HeaderSchema> = undefined,
  PS extends Maybe<ProjectSpec> = undefined,
  L extends LimitName = never,
  U extends Maybe<Upload<unknown>> = undefined,
>(spec: RouteSpec<A, P, Q, B, H, PS, L, U>, handler: (ctx: RouteContext<A, P, Q, B, H, PS, L, U>) => Promise<unknown> | unknown): RouteDefinition {
  return { spec, handler } as unknown as RouteDefinition;
}

function parse(schema: AnySchema | undefined, value: unknown, where: string) {
  if (!schema) return undefined;
  checkInput(value, where);
  const result = schema.safeParse(value);
  if (!result.success) throw AppError.invalid(where, result.error);
  return result.data;
}

const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** The Content-Types every client sends, recognised without type-is parsing them (1 % of a send's CPU). */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8']);

function readJsonBody(req: Request): unknown {
  if (req.body !== undefined && (PLAIN_JSON.has(req.headers['content-type'] ?? '') || req.is('application/json'))) return req.body;
  // Multipart is read only by the routes that take an upload, which have no JSON body.
  if (hasBody(req) && !req.is('application/json')) {
    throw new AppError(415, 'Content-Type must be application/json');
  }
  return req.body ?? {};
}

export interface RouteRuntime {
  authenticator: Authenticator;
  gate: ProjectGate;
  projectCache: ProjectCache;
  limits: Limits;
}

interface CountedLimit {
  limit: Limit;
  per: RouteRateLimit['per'];
}

const limitSubject = (per: RouteRateLimit['per'], caller: Caller | undefined, req: Request) =>
  per === 'ip' ? clientIp(req) : caller ? credentialOf(caller) : `ip:${clientIp(req)}`;

/**
 * Authenticates the request and counts it against the route's rate limit. With an API key this
 * instance has seen, both start at once: one Redis write carries the version read and the counter.
 * An error from authentication wins over the limit's (a bad key is a 401, never a 429).
 */
async function authenticateAndLimit(authenticator: Authenticator, auth: AuthMode, rateLimit: CountedLimit | undefined, req: Request, res: Response): Promise<Caller | undefined> {
  const hint = rateLimit?.per === 'credential' ? authenticator.credentialHint(req, auth) : undefined;
  let counted: Promise<void> | undefined;
  if (rateLimit && hint) {
    counted = rateLimit.limit.count(req, res, hint);
    // Awaited only once authentication is done, possibly several event-loop turns later (a project
    // reloaded from Postgres). A 429 decided before then must not count as an unhandled rejection,
    // which would end the process.
    counted.catch(() => undefined);
  }
  let caller: Caller | undefined;
  try {
    caller = await authenticator.resolve(req, auth);
  } catch (err) {
    await counted?.catch(() => undefined);
    throw err;
  }
  if (rateLimit) await (counted ?? rateLimit.limit.count(req, res, limitSubject(rateLimit.per, caller, req)));
  return caller;
}

/** The route's headers by the names its schema gives them, from Node's lowercased ones (the first, if sent twice). */
function headerValues(req: Request, names: ReadonlyArray<readonly [string, string]>) {
  const values: Record<string, string | undefined> = {};
  for (const [name, lowercased] of names) {
    const raw = req.headers[lowercased];
    values[name] = Array.isArray(raw) ? raw[0] : raw;
  }
  return values;
}

type Access = (projectId: string, need?: ProjectNeed, denial?: AccessDenial) => Promise<ProjectAccess>;

const PROJECT_ID_PLACE: Record<ProjectSpec['from'], string> = {
  query: 'query parameter',
  body: 'body field',
  params: 'path parameter',
  bodyOrQuery: 'body field or query parameter',
};

/**
 * The project the request acts on: an API key's own (or the one it names, which the gate refuses
 * unless it is the key's), or the one a JWT caller names where the route says.
 */
async function projectFor(spec: ProjectSpec, caller: Caller | undefined, input: { params?: unknown; query?: unknown; body?: unknown }, access: Access): Promise<ProjectAccess | undefined> {
  if (!caller) return undefined;
  const named = (where: unknown) => (where as { projectId?: string } | undefined)?.projectId;
  const projectId = spec.from === 'bodyOrQuery' ? (named(input.body) ?? named(input.query)) : named(input[spec.from]);
  if (caller.type === 'apiKey') return access(projectId ?? caller.projectId, spec.need, spec.denial);
  if (!projectId) throw AppError.badRequest(`projectId ${PROJECT_ID_PLACE[spec.from]} is required`, [{ path: 'projectId', message: 'Required' }]);
  return access(projectId, spec.need, spec.denial);
}

/**
 * A JSON answer. A read goes through `res.json`, whose ETag a client can revalidate with. A write's
 * answer is written as it is, without an ETag (a hash of the body, and a Buffer made for it) that no
 * client can use.
 */
function sendJson(req: Request, res: Response, status: number, body: unknown) {
  if (req.method === 'GET' || req.method === 'HEAD') return void res.status(status).json(body);
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** The 403 of an API key calling a route outside its scopes; it names the scope the key lacks. */
export const lacksScope = (scope: string) => new AppError(403, `This API key lacks the ${scope} scope`, [{ path: 'scope', message: `Missing scope: ${scope}` }]);

/** Refuses an API key without the route's scope (and on a key route that names none). */
function checkScope(caller: Caller | undefined, scope: ApiKeyScope | 'any' | undefined) {
  if (caller?.type !== 'apiKey' || scope === 'any') return;
  if (!scope) throw AppError.forbidden('This route takes no API key');
  if (!caller.scopes.includes(scope)) throw lacksScope(scope);
}

const actorOf = (caller: Caller | undefined): AuditActor =>
  caller?.type === 'user' ? { type: 'user', id: caller.userId, email: caller.email } : caller?.type === 'apiKey' ? { type: 'apiKey', id: caller.keyId, name: caller.keyName } : { type: 'system' };

/** The request's audit source: its caller, client address and user agent (at most 512 characters). */
const auditSource = (caller: Caller | undefined, req: Request): AuditSource => ({
  actor: actorOf(caller),
  ip: clientIp(req),
  userAgent: req.headers['user-agent']?.slice(0, 512) ?? null,
});

export function mountRoutes(router: IRouter, routes: RouteDefinition[], runtime: RouteRuntime) {
  for (const { spec, handler } of routes) {
    const invalidates = spec.method !== 'get' && !spec.keepsProjectCache;
    const rateLimit = spec.rateLimit && { limit: runtime.limits[spec.rateLimit.name], per: spec.rateLimit.per };
    const headerNames = spec.headers ? Object.keys(spec.headers.shape).map((name) => [name, name.toLowerCase()] as const) : [];

    /** Runs the route up to its answer; `touched` collects the projects it was allowed to act on. */
    const run = async (req: Request, res: Response, touched: Set<string>): Promise<unknown> => {
      const caller = await authenticateAndLimit(runtime.authenticator, spec.auth, rateLimit, req, res);
      checkScope(caller, spec.scope);
      const access = async (projectId: string, need?: ProjectNeed, denial?: AccessDenial) => {
        if (!caller) throw AppError.unauthorized('Authentication required');
        const granted = await runtime.gate.check(caller, projectId, need, denial);
        touched.add(granted.id);
        return granted;
      };
      const accessResource: AccessResource = async (projectOf, notFound, need) => {
        const projectId = await projectOf;
        if (!projectId) throw AppError.notFound(notFound);
        try {
          return await access(projectId, need);
        } catch (err) {
          if (err instanceof AppError && err.status === 404) throw AppError.notFound(notFound);
          throw err;
        }
      };
      // A project named in the path or the query is checked before the body is read: to a caller
      // outside it the project does not exist, and a role that may not act gets its 403, whatever the
      // body or upload holds (not a 400, 413 or 415).
      const params = parse(spec.params, req.params, 'path parameter');
      let project = spec.project?.from === 'params' ? await projectFor(spec.project, caller, { params }, access) : undefined;
      if (spec.upload) await spec.upload.receive(req, res);
      const query = parse(spec.query, req.query, 'query');
      if (spec.project?.from === 'query') project = await projectFor(spec.project, caller, { query }, access);
      const body = spec.body ? parse(spec.body, readJsonBody(req), 'request body') : undefined;
      const headers = spec.headers ? parse(spec.headers, headerValues(req, headerNames), 'header') : undefined;
      if (spec.project && !project) project = await projectFor(spec.project, caller, { query, body }, access);
      // Already read for this request when an API key was checked: no second version read.
      const projectState = spec.project?.state && project ? await runtime.projectCache.snapshot(req, project.id) : undefined;
      const upload = spec.upload?.read(req);
      return handler({
        params,
        query,
        body,
        headers,
        upload,
        caller,
        project,
        projectState,
        access,
        accessResource,
        limit: (name: LimitName, subject: string) => runtime.limits[name].count(req, res, subject),
        get clientIp() {
          return clientIp(req);
        },
        get audit() {
          return auditSource(caller, req);
        },
      } as never);
    };

    router[spec.method](spec.path, async (req: Request, res: Response) => {
      const touched = new Set<string>();
      let result: unknown;
      try {
        result = await run(req, res, touched);
      } finally {
        // Before the answer leaves (success or not): the caller's next request, on any instance,
        // must see what this one changed.
        if (invalidates && touched.size) await runtime.projectCache.invalidate(touched);
      }
      if (result instanceof Reply) {
        res.set(result.headers);
        if (result.body === undefined) return void res.status(result.status).end();
        // A text answer with its own Content-Type (an export as JSON Lines), sent as it is.
        if (typeof result.body === 'string' && result.headers['Content-Type']) return void res.status(result.status).send(result.body);
        return sendJson(req, res, result.status, result.body);
      }
      sendJson(req, res, spec.status ?? 200, result ?? { message: 'OK' });
    });
  }
}
