#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import { startFcmEmulator } from './emulator';

const USAGE = `Usage: fcm-emulator [options]

  --host HOST              interface to listen on (default 127.0.0.1)
  --port PORT              port (default 9096; 0 picks a free one)
  --open                   accept assertions from unknown service accounts, unverified
  --service-account FILE   a Google service-account JSON key to trust (repeatable)
  --token-ttl SECONDS      expires_in of issued access tokens (default 3599)
  --slow-ms MS             delay of slow- tokens (default 2000)
  --max-records N          received messages kept in memory (default 100000)

Environment: FCM_EMULATOR_HOST=host:port (where to listen, the value Herald uses to reach it),
FCM_EMULATOR_OPEN=1, FCM_EMULATOR_SERVICE_ACCOUNTS=file${delimiter}file. Flags win over the environment.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      open: { type: 'boolean' },
      'service-account': { type: 'string', multiple: true },
      'token-ttl': { type: 'string' },
      'slow-ms': { type: 'string' },
      'max-records': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  // A standalone tool: its configuration is its own argv and environment, not Herald's config package.
  const env = process.env;
  const [envHost, envPort] = splitHostPort(env.FCM_EMULATOR_HOST);
  const files = values['service-account'] ?? env.FCM_EMULATOR_SERVICE_ACCOUNTS?.split(delimiter).filter(Boolean) ?? [];

  const emulator = await startFcmEmulator({
    host: values.host ?? envHost ?? '127.0.0.1',
    port: toNumber('port', values.port ?? envPort ?? '9096'),
    open: values.open ?? env.FCM_EMULATOR_OPEN === '1',
    serviceAccounts: files.map((file) => JSON.parse(readFileSync(file, 'utf8'))),
    tokenExpiresInS: values['token-ttl'] ? toNumber('token-ttl', values['token-ttl']) : undefined,
    slowMs: values['slow-ms'] ? toNumber('slow-ms', values['slow-ms']) : undefined,
    maxRecords: values['max-records'] ? toNumber('max-records', values['max-records']) : undefined,
  });
  console.log(`FCM emulator listening on ${emulator.url} (FCM_EMULATOR_HOST=${emulator.host})`);

  const stop = () => void emulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function splitHostPort(value: string | undefined): [string | undefined, string | undefined] {
  if (!value) return [undefined, undefined];
  const colon = value.lastIndexOf(':');
  if (colon === -1) return [value, undefined];
  return [value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), value.slice(colon + 1)];
}

function toNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
