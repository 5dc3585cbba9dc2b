/**
 * Writes the API's OpenAPI document (as served at GET /openapi.json) to packages/client/openapi.json,
 * the file the typed client is generated from. Run through `pnpm client:generate`; a test fails when
 * the committed file differs from what the route definitions make. `--out <file>` writes elsewhere.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { loadApiConfig } from '@herald/config';
import { createContainer } from '../src/container';
import { buildOpenApiDocument } from '../src/openapi/document';
import { apiRoutes } from '../src/routes';

export const CLIENT_DOCUMENT_FILE = path.join(__dirname, '../../../packages/client/openapi.json');

/** The document as the client's file holds it. */
export const serializeDocument = (document: unknown) => JSON.stringify(document, null, 2) + '\n';

async function main() {
  // The document depends on the routes, not on configuration: development settings and the local
  // servers suffice (the container is only built for the route definitions; nothing is queried).
  const local = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/herald', REDIS_URL: 'redis://127.0.0.1:6379' };
  const c = createContainer(loadApiConfig({ NODE_ENV: 'development', ...local }), { logger: pino({ level: 'silent' }) });
  try {
    const out = process.argv.indexOf('--out');
    const file = out > 0 ? path.resolve(process.argv[out + 1]) : CLIENT_DOCUMENT_FILE;
    writeFileSync(file, serializeDocument(buildOpenApiDocument(apiRoutes(c))));
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  } finally {
    await c.close();
  }
}

if (require.main === module) void main();
