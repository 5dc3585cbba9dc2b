import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';

type Operation = OpenAPIV3_1.OperationObject;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const pointer = (...tokens: string[]) => '#/' + tokens.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

interface Template {
  path: string;
  regex: RegExp;
  params: number;
}

/**
 * Checks real responses against the API document: the operation is found from the method and the
 * concrete URL (static segments win over parameters, as in the router), the status must be one the
 * operation documents, and the body must validate (JSON Schema 2020-12, with formats) against the
 * schema the document gives for that status. Records what it saw, so a test can ask which
 * operations were never exercised.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Template[];
  /** `METHOD /path status`, for every response validated. */
  readonly seen = new Set<string>();

  constructor(private readonly doc: OpenAPIV3_1.Document) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi');
    this.templates = Object.keys(doc.paths ?? {})
      .map((path) => ({
        path,
        regex: new RegExp('^' + path.replace(/\{[^}]+\}/g, '[^/]+') + '$'),
        params: (path.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The document's path template of a concrete URL (`/push-templates/3f…` → `/push-templates/{id}`). */
  pathOf(method: string, url: string): string | undefined {
    const path = new URL(url, 'http://x').pathname;
    const m = method.toLowerCase() as Method;
    return this.templates.find((t) => t.regex.test(path) && (this.doc.paths?.[t.path] as Record<string, unknown> | undefined)?.[m])?.path;
  }

  private resolveResponse(response: OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject): { response: OpenAPIV3_1.ResponseObject; ref?: string } {
    if (!('$ref' in response)) return { response };
    const name = response.$ref.replace('#/components/responses/', '');
    return { response: this.doc.components!.responses![name] as OpenAPIV3_1.ResponseObject, ref: name };
  }

  /** Problems with one response; empty when it matches the document. */
  validate(method: string, url: string, status: number, body: unknown): string[] {
    const m = method.toLowerCase() as Method;
    const path = this.pathOf(m, url);
    if (!path) return [`${method.toUpperCase()} ${url} is not in the document`];
    const operation = (this.doc.paths![path] as Record<Method, Operation>)[m];
    const documented = operation.responses?.[String(status)];
    const where = `${m.toUpperCase()} ${path} ${status}`;
    this.seen.add(where);
    if (!documented) return [`${where}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    const { response, ref } = this.resolveResponse(documented);
    if (!response.content) return body === undefined || body === '' ? [] : [`${where}: the document describes no body`];
    // A text answer of its own media type (an export as JSON Lines): documented, its lines not checked here.
    if (!response.content['application/json']) return Object.keys(response.content).length === 1 && body !== undefined ? [] : [`${where}: no application/json body documented`];
    const schemaPointer = ref ? pointer('components', 'responses', ref, 'content', 'application/json', 'schema') : pointer('paths', path, m, 'responses', String(status), 'content', 'application/json', 'schema');
    let check = this.compiled.get(schemaPointer);
    if (!check) {
      check = this.ajv.compile({ $ref: `openapi${schemaPointer}` });
      this.compiled.set(schemaPointer, check);
    }
    if (check(body)) return [];
    return (check.errors ?? []).map((e) => `${where}: body${e.instancePath} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  }
}

/** Wraps a harness-style request function so that every response is validated against the document as it arrives. */
export function validating<Opts, R extends { status: number; body: unknown }>(
  request: (method: string, path: string, opts?: Opts) => Promise<R>,
  validator: ResponseValidator,
) {
  const call = async (method: string, path: string, opts?: Opts): Promise<R> => {
    const res = await request(method, path, opts);
    const problems = validator.validate(method, path, res.status, res.body);
    if (problems.length) throw new Error(`Response does not match the API document:\n${problems.join('\n')}\nbody: ${JSON.stringify(res.body).slice(0, 2000)}`);
    return res;
  };
  return {
    get: (path: string, opts?: Opts) => call('GET', path, opts),
    post: (path: string, opts?: Opts) => call('POST', path, opts),
    put: (path: string, opts?: Opts) => call('PUT', path, opts),
    patch: (path: string, opts?: Opts) => call('PATCH', path, opts),
    delete: (path: string, opts?: Opts) => call('DELETE', path, opts),
  };
}
