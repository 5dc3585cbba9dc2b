import { isRecord } from './oauth';

const SEND_KINDS = ['unregistered', 'invalid', 'mismatch', 'unavailable', 'ratelimit', 'internal', 'thirdparty', 'slow'] as const;
const KINDS = [...SEND_KINDS, 'revoked', 'token_unavailable'] as const;

export type FaultKind = (typeof KINDS)[number];

/**
 * A programmed failure. `revoked` rejects the project's credentials (token endpoint `invalid_grant`, sends 401);
 * `token_unavailable` makes the token endpoint answer 503; every other kind is an FCM send error (or a delay).
 */
export interface Fault {
  kind: FaultKind;
  /** Only sends whose device token starts with this. */
  tokenPrefix?: string;
  /** Only this Firebase project. */
  project?: string;
  /** Fail the first `times` matching attempts of each device token (of each service account on the token endpoint), then pass. Unset: always. */
  times?: number;
  /** `ratelimit`/`unavailable`: the Retry-After header, seconds or an HTTP-date. */
  retryAfter?: number | string;
  /** `slow`: how long to hold the answer, in ms. */
  delayMs?: number;
}

export interface ActiveFault {
  kind: FaultKind;
  retryAfter?: string;
  delayMs?: number;
}

/** Built-in faults by token prefix: `unavailable-x` always fails, `unavailable2-x` fails twice then passes; `slow500-x` waits 500 ms. */
const TOKEN_PREFIX = /^(unregistered|invalid|mismatch|unavailable|ratelimit|internal|thirdparty|slow)(\d*)-/;

export class FaultBook {
  private faults: Fault[] = [];
  private readonly attempts = new Map<string, number>();

  constructor(private readonly defaults: { slowMs: number; retryAfterS: number }) {}

  add(fault: Fault): void {
    this.faults.push(parseFault(fault));
  }

  list(): readonly Fault[] {
    return this.faults;
  }

  clear(): void {
    this.faults = [];
    this.attempts.clear();
  }

  /** The fault that applies to this send, if any; counts the attempt. */
  forSend(project: string, token: string | undefined): ActiveFault | undefined {
    for (let i = 0; i < this.faults.length; i++) {
      const f = this.faults[i];
      if (f.kind === 'token_unavailable') continue;
      if (f.project !== undefined && f.project !== project) continue;
      if (f.tokenPrefix !== undefined && !token?.startsWith(f.tokenPrefix)) continue;
      if (this.exhausted(`${i}\u0000${token ?? ''}`, f.times)) continue;
      return this.activate(f.kind, f.retryAfter, f.delayMs);
    }
    const m = token ? TOKEN_PREFIX.exec(token) : null;
    if (!m) return undefined;
    const kind = m[1] as FaultKind;
    const n = m[2] ? Number(m[2]) : undefined;
    if (kind === 'slow') return this.activate(kind, undefined, n);
    if (this.exhausted(`prefix\u0000${token}`, n)) return undefined;
    return this.activate(kind);
  }

  /** The fault that applies to a token grant for this service account, if any; counts the attempt. */
  forGrant(project: string | undefined, clientEmail: string): ActiveFault | undefined {
    for (let i = 0; i < this.faults.length; i++) {
      const f = this.faults[i];
      if (f.kind !== 'revoked' && f.kind !== 'token_unavailable') continue;
      if (f.project !== undefined && f.project !== project) continue;
      if (this.exhausted(`${i}\u0000${clientEmail}`, f.times)) continue;
      return this.activate(f.kind, f.retryAfter);
    }
    return undefined;
  }

  private exhausted(key: string, times: number | undefined): boolean {
    if (times === undefined) return false;
    const seen = this.attempts.get(key) ?? 0;
    if (seen >= times) return true;
    this.attempts.set(key, seen + 1);
    return false;
  }

  private activate(kind: FaultKind, retryAfter?: number | string, delayMs?: number): ActiveFault {
    if (kind === 'slow') return { kind, delayMs: delayMs ?? this.defaults.slowMs };
    if (kind === 'ratelimit') return { kind, retryAfter: String(retryAfter ?? this.defaults.retryAfterS) };
    return { kind, retryAfter: retryAfter === undefined ? undefined : String(retryAfter) };
  }
}

/** Validates a fault given over HTTP (or by a test); throws with a readable message. */
export function parseFault(input: unknown): Fault {
  if (!isRecord(input)) throw new Error('A fault is a JSON object');
  const { kind, tokenPrefix, project, times, retryAfter, delayMs } = input;
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
    throw new Error(`fault.kind must be one of ${KINDS.join(', ')}`);
  }
  const optional = (name: string, value: unknown, ok: boolean) => {
    if (value !== undefined && !ok) throw new Error(`fault.${name} is invalid`);
  };
  optional('tokenPrefix', tokenPrefix, typeof tokenPrefix === 'string' && tokenPrefix.length > 0);
  optional('project', project, typeof project === 'string' && project.length > 0);
  optional('times', times, Number.isInteger(times) && (times as number) > 0);
  optional('retryAfter', retryAfter, typeof retryAfter === 'string' || (Number.isInteger(retryAfter) && (retryAfter as number) >= 0));
  optional('delayMs', delayMs, Number.isInteger(delayMs) && (delayMs as number) >= 0);
  return { kind, tokenPrefix, project, times, retryAfter, delayMs } as Fault;
}
