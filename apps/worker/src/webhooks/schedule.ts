export interface WebhookRetryPolicy {
  baseMs: number;
  maxDelayMs: number;
  /** How long after the event a delivery is still tried. */
  windowMs: number;
}

/**
 * The delay before attempt `attempt + 1`: `baseMs · 2^(attempt-1)`, at most `maxDelayMs`, with ±20 %
 * jitter so that many endpoints failing at once do not come back in step; at least what the receiver
 * asked for with `Retry-After`. `undefined` once the retry window is over: the delivery has failed.
 */
export function nextRetryDelay(
  attempt: number,
  policy: WebhookRetryPolicy,
  eventAt: Date,
  options: { retryAfterMs?: number; now?: number; random?: () => number } = {},
): number | undefined {
  const now = options.now ?? Date.now();
  const random = options.random ?? Math.random;
  const exponential = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
  const jittered = Math.round(exponential * (0.8 + 0.4 * random()));
  const delay = Math.max(jittered, options.retryAfterMs ?? 0);
  if (now + delay > eventAt.getTime() + policy.windowMs) return undefined;
  return delay;
}
