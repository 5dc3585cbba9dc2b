import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '../../..');
const PACKAGE = path.join(__dirname, '..');

/**
 * The committed types are what the generator makes of the committed openapi.json (which the API's own
 * test compares with its route definitions); after an API change, run `pnpm client:generate`. The
 * generator runs as its own process (openapi-typescript loads ES modules, which jest's CommonJS
 * runtime cannot).
 */
describe('generated files', () => {
  const out = mkdtempSync(path.join(tmpdir(), 'herald-client-'));
  beforeAll(async () => {
    const tsx = require.resolve('tsx/cli', { paths: [ROOT] });
    await promisify(execFile)(process.execPath, [tsx, path.join(PACKAGE, 'scripts/generate.ts'), '--out', out], { cwd: ROOT });
  }, 60_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('src/generated/schema.ts matches openapi.json', () => {
    const fresh = readFileSync(path.join(out, 'schema.ts'), 'utf8');
    expect(fresh).toContain('"/push/send": {');
    expect(readFileSync(path.join(PACKAGE, 'src/generated/schema.ts'), 'utf8')).toBe(fresh);
  });
});
