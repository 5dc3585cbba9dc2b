import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress } from '@herald/core';

/** Bytes of a response read at most; the rest is discarded with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * A failure's `error` is stored with the attempt and shown to the project: it says what went wrong in
 * general words, never an address or a name the receiver's host resolved to (that would map the
 * network Herald runs in). `code` is the system's error code (`ECONNREFUSED`), for the logs.
 */
export type SendOutcome =
  | { kind: 'response'; status: number; durationMs: number; body: string; retryAfterMs?: number }
  | { kind: 'refused' | 'timeout' | 'network'; durationMs: number; error: string; code?: string };

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

const REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

class RefusedAddressError extends Error {
  readonly code = REFUSED;
}

const REFUSED_REASON = 'Refused: the host is, or resolves to, a loopback, private, link-local or metadata address';
const refused = () => new RefusedAddressError(REFUSED_REASON);

/** A network failure in general words, by its system error code. */
export function networkReason(code: string | undefined): string {
  if (!code) return 'The request failed';
  if (/^(ENOTFOUND|EAI_)/.test(code)) return 'The host name could not be resolved';
  if (code === 'ECONNREFUSED') return 'The connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'The connection was closed before an answer';
  if (/^(ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/.test(code)) return 'The host could not be reached';
  if (/CERT|SSL|TLS|SIGNATURE/.test(code)) return 'The TLS connection failed: its certificate was not accepted';
  if (code.startsWith('HPE_')) return 'The answer was not valid HTTP';
  return 'The request failed';
}

/**
 * `lookup` for the socket: resolves the host and refuses it if any address is not public. It runs
 * when the connection is made, for the address actually connected to, so a name that resolves to a
 * public address when the URL is saved and to an internal one later (DNS rebinding) is still refused.
 */
function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const bad = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (bad) return callback(refused(), '', 0);
      if (!addresses.length) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * POSTs one webhook. Never follows redirects (a 3xx is an answer like any other non-2xx), gives the
 * whole exchange `timeoutMs`, reads at most 64 KB of the answer, and connects only to public
 * addresses unless `allowPrivate`. Never throws: every failure is an outcome.
 */
export function postWebhook(rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return finish({ kind: 'network', durationMs: 0, error: 'Invalid URL' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address literal never goes through `lookup`: check it here.
    if (!options.allowPrivate && net.isIP(host) && !isPublicAddress(host)) {
      return finish({ kind: 'refused', durationMs: 0, error: REFUSED_REASON });
    }
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(options.allowPrivate),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Herald-Webhooks/1' },
    });
    timer = setTimeout(() => {
      req.destroy();
      finish({ kind: 'timeout', durationMs: elapsed(), error: `No complete answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === REFUSED) return finish({ kind: 'refused', durationMs: elapsed(), error: REFUSED_REASON });
      finish({ kind: 'network', durationMs: elapsed(), error: networkReason(err.code), code: err.code });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          durationMs: elapsed(),
          body: Buffer.concat(chunks).toString('utf8'),
          retryAfterMs: parseRetryAfter(res.headers['retry-after']),
        });
      res.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_BYTES - size;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          res.destroy();
          req.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(body);
  });
}
