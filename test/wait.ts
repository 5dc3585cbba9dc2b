/**
 * Polls `check` every `intervalMs` until it returns a value other than `false`, `undefined` or
 * `null`, and returns that value; throws after `timeoutMs`, naming `what` (a function, to describe
 * the state at that moment, e.g. a process's output). A check that throws counts as "not yet"; the
 * last error is in the timeout's message.
 */
export async function waitUntil<T>(check: () => T | Promise<T>, timeoutMs: number, what: string | (() => string), intervalMs = 50): Promise<Exclude<T, false | undefined | null>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== undefined && value !== null) return value as Exclude<T, false | undefined | null>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const last = lastError === undefined ? '' : ` (last error: ${(lastError as Error)?.message ?? String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}${last}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
