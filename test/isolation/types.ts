import type { Harness } from '../harness';
import type { Tenant } from '../fixtures';

/**
 * One row of the isolation table: a project-scoped route, called by a stranger (another account with
 * its own project) and by another project's API key against the victim's resources. Every module
 * adds its routes in a file of this folder and lists it in test/isolation.test.ts.
 */
export interface IsolationCase {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (ids: Record<string, string>) => string;
  query?: (ids: Record<string, string>) => Record<string, string>;
  body?: (ids: Record<string, string>) => unknown;
  /** The route accepts `x-api-key` (then a foreign key must get 403/404; otherwise 401 is fine too). */
  acceptsKey?: boolean;
  /** Multipart upload routes build their own body. */
  form?: (ids: Record<string, string>) => FormData;
}

export interface IsolationTable {
  /** Creates this module's resources in the victim's project and returns their ids. */
  setup(h: Harness, victim: Tenant): Promise<Record<string, string>>;
  cases: IsolationCase[];
  /** Runs after every case: asserts that the victim's data is as `setup` left it. */
  verify?(h: Harness, ids: Record<string, string>): Promise<void>;
}
