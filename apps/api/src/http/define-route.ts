import type { IRouter, NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { AppError } from '@herald/core';
import type { AccessDenial, ProjectAccess, ProjectGate, ProjectNeed } from './access';
import { checkInput } from './input-guard';
import type { AuthMode, Authenticator, Caller } from './caller';
import type { ProjectCache, ProjectSnapshot } from '../project-cache/project-cache';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnySchema = z.ZodType;
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

export interface RouteSpec<A extends AuthMode, P, Q, B, PS extends ProjectSpec | undefined> {
  method: HttpMethod;
  path: string;
  summary: string;
  tags?: string[];
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  project?: PS;
  /** Status of a successful answer (default 200). A handler may override it with `reply()`. */
  status?: number;
  /**
   * The route's rate limiter (`LimiterFactory`), run before validation. Keyed by credential, it
   * starts together with authentication when the credential is known without I/O (`credentialHint`),
   * so that its Redis command leaves in the same write as the project-version read.
   */
  rateLimit?: RequestHandler;
  /** Middleware run after authentication and the rate limit, before validation, e.g. multer. */
  before?: RequestHandler[];
  /** Response schema, for the API document. */
  response?: AnySchema;
  /**
   * A write that changes nothing the project cache holds (API keys, templates, push config,
   * providers), e.g. a send. Every other POST/PUT/PATCH/DELETE invalidates the cached state of the
   * projects it touched before it answers.
   */
  keepsProjectCache?: boolean;
}

export type AccessResource = (projectOf: Promise<string | undefined>, notFound: string, need?: ProjectNeed) => Promise<ProjectAccess>;

export interface RouteContext<A extends AuthMode, P, Q, B, PS extends ProjectSpec | undefined> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
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
  req: Request;
  res: Response;
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
  spec: RouteSpec<AuthMode, AnySchema | undefined, AnySchema | undefined, AnySchema | undefined, ProjectSpec | undefined>;
  handler: (ctx: RouteContext<AuthMode, AnySchema | undefined, AnySchema | undefined, AnySchema | undefined, ProjectSpec | undefined>) => Promise<unknown> | unknown;
}

/**
 * The one route builder: every input is parsed with zod and the caller and project are resolved
 * before the handler runs. Handlers get typed input and never read `req.body` raw.
 */
export function defineRoute<A extends AuthMode, P extends AnySchema | undefined = undefined, Q extends AnySchema | undefined = undefined, B extends AnySchema | undefined = undefined, PS extends ProjectSpec | undefined = undefined>(
  spec: RouteSpec<A, P, Q, B, PS>,
  handler: (ctx: RouteContext<A, P, Q, B, PS>) => Promise<unknown> | unknown,
): RouteDefinition {
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

function readJsonBody(req: Request): unknown {
  if (req.body !== undefined && req.is('application/json')) return req.body;
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
}

const runMiddleware = (h: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => {
    const next: NextFunction = (err?: unknown) => (err ? reject(err) : resolve());
    Promise.resolve(h(req, res, next)).catch(reject);
  });

const runBefore = (handlers: RequestHandler[], req: Request, res: Response) =>
  handlers.reduce<Promise<void>>((chain, h) => chain.then(() => runMiddleware(h, req, res)), Promise.resolve());

/**
 * Authenticates the request and applies the route's rate limit. With an API key this instance has
 * seen, both start at once: one Redis write carries the version read and the counter. An error from
 * authentication wins over the limiter's (a bad key is a 401, never a 429).
 */
async function authenticateAndLimit(runtime: RouteRuntime, spec: RouteDefinition['spec'], req: Request, res: Response): Promise<Caller | undefined> {
  const limiter = spec.rateLimit;
  const hint = limiter && runtime.authenticator.credentialHint(req, spec.auth);
  let limited: Promise<void> | undefined;
  if (limiter && hint) {
    res.locals.credential = hint;
    limited = runMiddleware(limiter, req, res);
    // Awaited only once authentication is done, possibly several event-loop turns later (a project
    // reloaded from Postgres). A 429 decided before then must not count as an unhandled rejection,
    // which would end the process.
    limited.catch(() => undefined);
  }
  let caller: Caller | undefined;
  try {
    caller = await runtime.authenticator.resolve(req, spec.auth);
  } catch (err) {
    await limited?.catch(() => undefined);
    throw err;
  }
  res.locals.caller = caller;
  if (limiter) await (limited ?? runMiddleware(limiter, req, res));
  return caller;
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

export function mountRoutes(router: IRouter, routes: RouteDefinition[], runtime: RouteRuntime) {
  for (const { spec, handler } of routes) {
    const invalidates = spec.method !== 'get' && !spec.keepsProjectCache;

    /** Runs the route up to its answer; `touched` collects the projects it was allowed to act on. */
    const run = async (req: Request, res: Response, touched: Set<string>): Promise<unknown> => {
      const caller = await authenticateAndLimit(runtime, spec, req, res);
      if (res.headersSent) return undefined;
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
      if (spec.before?.length) {
        await runBefore(spec.before, req, res);
        if (res.headersSent) return undefined;
      }
      const query = parse(spec.query, req.query, 'query');
      if (spec.project?.from === 'query') project = await projectFor(spec.project, caller, { query }, access);
      const body = spec.body ? parse(spec.body, readJsonBody(req), 'request body') : undefined;
      if (spec.project && !project) project = await projectFor(spec.project, caller, { query, body }, access);
      // Already read for this request when an API key was checked: no second version read.
      const projectState = spec.project?.state && project ? await runtime.projectCache.snapshot(req, project.id) : undefined;
      return handler({ params, query, body, caller, project, projectState, access, accessResource, req, res } as never);
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
      if (res.headersSent) return;
      if (result instanceof Reply) {
        res.set(result.headers);
        if (result.body === undefined) return void res.status(result.status).end();
        return sendJson(req, res, result.status, result.body);
      }
      sendJson(req, res, spec.status ?? 200, result ?? { message: 'OK' });
    });
  }
}
