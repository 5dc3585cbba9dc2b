import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSmtp } from '@herald/testing';

const ROOT = path.join(__dirname, '../../..');

/**
 * In a process of its own, on the built code (as `pnpm start:*` runs it): what loading the worker's
 * modules and making an SMTP mailer load, and what the first mail then loads and sends.
 */
const PROBE = `
const loaded = () => Object.keys(require.cache).some((file) => file.includes('/nodemailer/'));
require(${JSON.stringify(path.join(ROOT, 'apps/worker/dist/container.js'))});
const { createMailer } = require(${JSON.stringify(path.join(ROOT, 'packages/mail/dist/index.js'))});
const mailer = createMailer({ transport: 'smtp', smtpUrl: process.argv[1], from: 'herald@example.test', logger: undefined });
const atStart = loaded();
mailer
  .send({ to: 'ada@example.test', subject: 'Lazy', text: 'hello', html: '<p>hello</p>' })
  .then(() => {
    console.log(JSON.stringify({ atStart, afterSend: loaded() }));
    mailer.close();
  });
`;

describe('the SMTP mailer', () => {
  it('loads nodemailer with its first mail, not when a process starts', async () => {
    const smtp = await startSmtp();
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', PROBE, smtp.url], { cwd: ROOT, timeout: 20_000 });
      expect(JSON.parse(stdout)).toEqual({ atStart: false, afterSend: true });
      const mail = await smtp.waitFor('ada@example.test', /^Lazy$/);
      expect(mail.text.trim()).toBe('hello');
      expect(mail.from).toContain('herald@example.test');
    } finally {
      await smtp.close();
    }
  });
});
