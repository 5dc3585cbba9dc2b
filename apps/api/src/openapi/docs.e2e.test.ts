import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceAccount, startPipeline, unique, uniqueEmail, type Pipeline } from '@herald/testing';

const QUICK_START = path.join(__dirname, '../../../../docs/quick-start.md');

/** The ```sh blocks of a markdown file, in order: the walkthrough as a reader would paste it. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function run(script: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, ...env } as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let p: Pipeline;
const dir = mkdtempSync(path.join(tmpdir(), 'herald-docs-'));
beforeAll(async () => {
  p = await startPipeline();
  await p.startWorker();
}, 60_000);
afterAll(async () => {
  await p.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/quick-start.md', () => {
  it('runs as written against Herald, a worker and the FCM emulator, and the device receives the push', async () => {
    const blocks = shellBlocks(readFileSync(QUICK_START, 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(8);

    // A service account key file, as Firebase hands it out, trusted by the emulator.
    const sa = serviceAccount();
    p.emulator.addServiceAccount({ projectId: sa.projectId, clientEmail: sa.clientEmail, publicKey: sa.publicKey });
    const keyFile = path.join(dir, 'service-account.json');
    writeFileSync(keyFile, JSON.stringify({ type: 'service_account', project_id: sa.projectId, client_email: sa.clientEmail, private_key: sa.privateKey }));
    const deviceToken = unique('walkthrough-token');
    const email = uniqueEmail('quick-start');

    const result = await run(blocks.join('\n'), { HERALD_URL: p.h.url, FIREBASE_SERVICE_ACCOUNT: keyFile, HERALD_EMAIL: email, DEVICE_TOKEN: deviceToken });
    if (result.code !== 0) throw new Error(`walkthrough failed (exit ${result.code}):\n${result.stderr}\n--- stdout ---\n${result.stdout}`);
    expect(result.stdout).toMatch(/status: completed\s*$/);
    expect(result.stdout).toContain('"missingVariables":[]');

    const [received] = p.emulator.received({ token: deviceToken });
    expect(received.message).toMatchObject({
      token: deviceToken,
      notification: { title: 'Good news, Ada', body: 'Order 1234 is on its way' },
      data: { screen: 'orders' },
    });
    const user = await p.h.db.user.findUniqueOrThrow({ where: { email }, include: { ownedProjects: { include: { providerConfigs: true } } } });
    expect(user.ownedProjects[0].providerConfigs[0]).toMatchObject({ name: 'Firebase', priority: 1 });
  }, 60_000);
});
