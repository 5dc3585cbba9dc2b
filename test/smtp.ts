import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
}

/** A real SMTP server in-process: the API's nodemailer transport talks to it over a socket. */
export async function startSmtp() {
  const mails: CapturedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = [parsed.to].flat().flatMap((a) => (a ? a.value.map((v) => v.address ?? '') : []));
          mails.push({ to, from: parsed.from?.text ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' });
          waiters.splice(0).forEach((w) => w());
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Waits for a mail to `to` (matching `subject` if given), up to 5 s. */
    async waitFor(to: string, subject?: RegExp): Promise<CapturedMail> {
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = mails.find((m) => m.to.includes(to.toLowerCase()) && (!subject || subject.test(m.subject)));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within 5 s`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The `token` query parameter of the first link in a mail's text that starts with `base`. */
export function tokenFromMail(mail: CapturedMail, base: string): string {
  const match = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\?token=([\\w%-]+)`).exec(mail.text);
  if (!match) throw new Error(`no ${base} link in mail: ${mail.text}`);
  return decodeURIComponent(match[1]);
}
