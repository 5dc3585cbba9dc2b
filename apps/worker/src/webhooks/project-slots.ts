import type { Redis, Result } from 'ioredis';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** `ProjectSlots`' take script: 1 if the slot was taken (or is held already), 0 if the project is at its cap. */
    heraldTakeWebhookSlot(key: string, member: string, cap: number, holdMs: number): Result<number, Context>;
  }
}

/**
 * A sorted set per project: its members are the attempts in flight, each scored with the time (Redis'
 * clock) its slot lapses by itself, so that a worker that dies mid-request frees its slots once its
 * request would have timed out anyway.
 */
const TAKE = `
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZSCORE', key, ARGV[1]) == false and redis.call('ZCARD', key) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', key, now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', key, tonumber(ARGV[3]))
return 1
`;

const MAX_DEFER_MS = 60_000;

/**
 * Webhook requests a project may have in flight at once, over every worker (WEBHOOK_PROJECT_CONCURRENCY).
 * The webhook queue is one FIFO shared by all projects: without this, one project's slow receivers
 * (a test event fired at many endpoints that never answer) take every worker's requests for their
 * whole timeout, and every other project's events wait behind them. An attempt that finds its
 * project at the cap does not make its request: its job waits a moment and comes back, so a project
 * with a flood of slow work gets its share of requests and the others get theirs on time.
 */
export class ProjectSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly cap: number,
    /** How long a slot is held at most: a request's timeout, and a margin. */
    private readonly holdMs: number,
  ) {
    redis.defineCommand('heraldTakeWebhookSlot', { numberOfKeys: 1, lua: TAKE });
  }

  private key = (projectId: string) => `${this.prefix}:webhook-slots:${projectId}`;

  /** Takes one of the project's slots for `attemptId`; false when the project has `cap` requests in flight. */
  async take(projectId: string, attemptId: string): Promise<boolean> {
    return (await this.redis.heraldTakeWebhookSlot(this.key(projectId), attemptId, this.cap, this.holdMs)) === 1;
  }

  async release(projectId: string, attemptId: string): Promise<void> {
    await this.redis.zrem(this.key(projectId), attemptId);
  }

  /**
   * How long an attempt that found no slot waits before it tries again: a second, doubling with each
   * time it found none (`deferrals`) up to a minute, ±50 %, so that a project's backlog costs Redis a
   * few moves per job per minute rather than one per job per second, and waiting attempts do not
   * come back in step.
   */
  retryDelayMs(deferrals = 0, random = Math.random): number {
    return Math.round(Math.min(MAX_DEFER_MS, 1000 * 2 ** Math.min(deferrals, 10)) * (0.5 + random()));
  }
}
