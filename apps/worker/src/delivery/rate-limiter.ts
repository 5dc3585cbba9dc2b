import type { Redis, Result } from 'ioredis';
import { GroupCommit } from './group-commit';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** The bucket script as a command of its own (`SendRateLimiter` defines it): sent by its SHA1 (EVALSHA), its body only once per connection. */
    heraldTakeFcmTokens(key: string, ratePerMs: number, capacity: number, requested: number): Result<[number, number], Context>;
  }
}

/**
 * A token bucket per project in Redis, shared by every worker process, so that Herald does not send
 * faster than FCM's per-project quota (default 600k/min) and provoke 429 storms. Uses Redis' clock.
 * The bucket holds a minute's quota by default: FCM counts its quota per minute, so a campaign of up
 * to a minute's worth leaves at once, and only sustained sending is paced.
 */
const SCRIPT = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])       -- tokens per millisecond
local capacity = tonumber(ARGV[2])
local requested = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local granted = math.min(requested, math.floor(tokens))
tokens = tokens - granted
redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', key, math.ceil(capacity / rate) + 1000)
local wait = 0
if granted < requested then wait = math.ceil((requested - granted - tokens) / rate) end
return { granted, wait }
`;

/**
 * The requests of all the batches that ask in the same moment go to Redis together: one script call
 * per project for their sum, all in one round trip; the tokens granted are shared out in the order
 * the batches asked.
 */
export class SendRateLimiter {
  private readonly ratePerMs: number;
  private readonly capacity: number;
  private readonly requests: GroupCommit<{ projectId: string; n: number }, { granted: number; waitMs: number }>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    perMinute: number,
    /** Tokens the bucket holds: what a project may send at once (default: a minute's worth). */
    burst = perMinute,
  ) {
    this.ratePerMs = perMinute / 60_000;
    this.capacity = Math.max(1, Math.ceil(burst));
    this.requests = new GroupCommit((items) => this.takeAll(items), { concurrency: 2 });
    redis.defineCommand('heraldTakeFcmTokens', { numberOfKeys: 1, lua: SCRIPT });
  }

  /** Takes up to `n` tokens; answers how many were granted and, if fewer, when to try again. */
  take(projectId: string, n: number): Promise<{ granted: number; waitMs: number }> {
    return this.requests.submit({ projectId, n });
  }

  private async takeAll(items: { projectId: string; n: number }[]) {
    const wanted = new Map<string, number>();
    for (const { projectId, n } of items) wanted.set(projectId, (wanted.get(projectId) ?? 0) + n);
    const pipeline = this.redis.pipeline();
    for (const [projectId, n] of wanted) pipeline.heraldTakeFcmTokens(`${this.prefix}:fcm-rate:${projectId}`, this.ratePerMs, this.capacity, n);
    const answers = await pipeline.exec();
    const left = new Map<string, { granted: number; waitMs: number }>();
    [...wanted.keys()].forEach((projectId, i) => {
      const [err, answer] = answers?.[i] ?? [new Error('pipeline not executed'), null];
      if (err) throw err;
      const [granted, waitMs] = answer as [number, number];
      left.set(projectId, { granted, waitMs });
    });
    return items.map(({ projectId, n }) => {
      const bucket = left.get(projectId)!;
      const granted = Math.min(n, bucket.granted);
      bucket.granted -= granted;
      return { granted, waitMs: granted < n ? bucket.waitMs : 0 };
    });
  }
}
