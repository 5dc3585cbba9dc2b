import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';

/**
 * A link's token (`…/reset-password?token=…`, `…/accept-invite?token=…`) wherever it appears in a
 * line: in a mail written to the log, in the URL of a request that followed such a link to the API,
 * in an error message. The value ends where a URL's query value ends.
 */
const LINK_TOKEN = /([?&;]token=)[^&\s"'\\<>#;]+/gi;

export const redactLinkTokens = (text: string) => text.replace(LINK_TOKEN, '$1[redacted]');

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, or the log (`MAIL_TRANSPORT=log`, or no SMTP_URL outside production).
 * A logged mail carries its link's token only with `logLinks` (outside production, where the log is a
 * development instance's mailbox): in production a reset link read from a log would take over the
 * account, so the token is redacted here as in every log line.
 */
export function createMailer(options: { transport: 'smtp' | 'log'; smtpUrl?: string; from: string; logger: Logger; logLinks?: boolean }): Mailer {
  if (options.transport === 'log' || !options.smtpUrl) {
    const text = options.logLinks ? (t: string) => t : redactLinkTokens;
    const msg = options.logLinks ? 'mail written to the log' : 'mail written to the log (its link without the token)';
    return {
      async send(message) {
        options.logger.info({ mail: { to: message.to, subject: message.subject, text: text(message.text) } }, msg);
      },
      close() {},
    };
  }
  const { smtpUrl } = options;
  // nodemailer (a hundred modules, ~65 ms of a process's start) is loaded by the first mail: a worker
  // mails only when a webhook endpoint is disabled, and the API only for invites and resets. (The
  // URL's form is checked at start, with the rest of the configuration.)
  let transport: Promise<Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
      await (await transport).sendMail({ from: options.from, ...message });
    },
    close() {
      // A transport that never came (nodemailer failed to load) has nothing to close.
      void transport?.then((t) => t.close(), () => undefined);
    },
  };
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A plain message with one call-to-action link, in text and HTML. */
export function linkMail(to: string, subject: string, intro: string, linkText: string, url: string, outro: string): MailMessage {
  return {
    to,
    subject,
    text: `${intro}\n\n${linkText}: ${url}\n\n${outro}\n`,
    html: `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(url)}">${escapeHtml(linkText)}</a></p><p>${escapeHtml(url)}</p><p>${escapeHtml(outro)}</p>`,
  };
}

/** Longest stretch of someone else's text a mail quotes. */
const QUOTED_MAX = 80;

/**
 * Text a user chose (a project's name), made unfit to pass for a link in a mail: on one line,
 * shortened, every URL scheme and domain name defanged (`https[:]//evil[.]example`, which no mail
 * client makes clickable), and quoted.
 */
export function inertText(text: string): string {
  let t = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > QUOTED_MAX) t = `${t.slice(0, QUOTED_MAX - 1)}…`;
  t = t.replace(/([a-z][a-z0-9+.-]*):\/\//gi, '$1[:]//').replace(/([\p{L}\p{N}-])\.(?=[\p{L}]{2,})/gu, '$1[.]');
  return `"${t}"`;
}
