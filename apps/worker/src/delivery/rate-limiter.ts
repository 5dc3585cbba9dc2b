import type Redis from 'ioredis';

/**
 * A token bucket per project in Redis, shared by every worker process, so that Herald does not send
 * faster than FCM's per-project quota (default 600k/min) and provoke 429 storms. Uses Redis' clock.
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

export class SendRateLimiter {
  private readonly ratePerMs: number;
  private readonly capacity: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    perMinute: number,
  ) {
    this.ratePerMs = perMinute / 60_000;
    // Bursts of up to one second's worth.
    this.capacity = Math.max(1, Math.ceil(perMinute / 60));
  }

  /** Takes up to `n` tokens; answers how many were granted and, if fewer, when to try again. */
  async take(projectId: string, n: number): Promise<{ granted: number; waitMs: number }> {
    const [granted, waitMs] = (await this.redis.eval(SCRIPT, 1, `${this.prefix}:fcm-rate:${projectId}`, this.ratePerMs, this.capacity, n)) as [number, number];
    return { granted, waitMs };
  }
}
