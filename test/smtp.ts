import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitUntil } from './wait';

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
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = [parsed.to].flat().flatMap((a) => (a ? a.value.map((v) => v.address ?? '') : []));
          mails.push({ to, from: parsed.from?.text ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const mailsTo = (to: string) => mails.filter((m) => m.to.includes(to.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The mails to `to`, in the order they arrived. */
    mailsTo,
    /** Waits for a mail to `to` (matching `subject` if given), up to 5 s. */
    waitFor: (to: string, subject?: RegExp): Promise<CapturedMail> =>
      waitUntil(() => mailsTo(to).find((m) => !subject || subject.test(m.subject)), 5000, `a mail to ${to}${subject ? ` matching ${subject}` : ''}`),
    /** Waits for the `n`-th mail (from 1) to `to`, up to 5 s. */
    nthMail: (to: string, n: number): Promise<CapturedMail> => waitUntil(() => mailsTo(to)[n - 1], 5000, `mail #${n} to ${to}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The `token` query parameter of the first link in a mail's text that starts with `base`. */
export function tokenFromMail(mail: CapturedMail, base: string): string {
  const match = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\?token=([\\w%-]+)`).exec(mail.text);
  if (!match) throw new Error(`no ${base} link in mail: ${mail.text}`);
  return decodeURIComponent(match[1]);
}
