/**
 * The signed-in user's tokens, kept in storage so that a reload keeps the session. The access token
 * is refreshed with the refresh token shortly before it expires (when a request needs it, and by a
 * timer while the page is open); one refresh at a time, since the API rotates refresh tokens and
 * refuses a used one. When a refresh is refused the session ends as `expired`: the app then sends
 * the user to sign in and back to the page they were on.
 */

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
}

interface Stored {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  ttlMs: number;
}

export type SessionEvent = 'signed-in' | 'refreshed' | 'signed-out' | 'expired';

export interface SessionOptions {
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** Calls the API; resolves null when the refresh token is refused, throws when the API cannot be reached. */
  refresh: (refreshToken: string) => Promise<Tokens | null>;
  now?: () => number;
  key?: string;
}

/** The 401 messages that mean the credentials themselves are stale (not "wrong password" or a permission 401). */
export const SESSION_ERROR_MESSAGES = ['Token has expired', 'Invalid token', 'Missing or invalid authorization header'];

export const isSessionError = (status: number, body: unknown) =>
  status === 401 && SESSION_ERROR_MESSAGES.includes(String((body as { message?: unknown } | null)?.message));

/** How long before expiry the token is refreshed: a fifth of its lifetime, at most a minute. */
export const refreshMargin = (ttlMs: number) => Math.min(60_000, ttlMs / 5);

export class Session {
  private state: Stored | null;
  private inFlight: Promise<string | undefined> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly now: () => number;
  private readonly key: string;

  constructor(private readonly options: SessionOptions) {
    this.now = options.now ?? Date.now;
    this.key = options.key ?? 'herald.session';
    this.state = this.load();
    this.schedule();
  }

  get signedIn() {
    return this.state !== null;
  }

  /** When the next refresh is due (epoch ms), or undefined when signed out. */
  get refreshDueAt() {
    return this.state ? this.state.expiresAt - refreshMargin(this.state.ttlMs) : undefined;
  }

  subscribe(listener: (event: SessionEvent) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  start(tokens: Tokens, event: SessionEvent = 'signed-in') {
    const ttlMs = tokens.expiresIn * 1000;
    this.state = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: this.now() + ttlMs, ttlMs };
    this.options.storage.setItem(this.key, JSON.stringify(this.state));
    this.schedule();
    this.emit(event);
  }

  end(event: 'signed-out' | 'expired' = 'signed-out') {
    const had = this.state !== null;
    this.state = null;
    this.options.storage.removeItem(this.key);
    clearTimeout(this.timer);
    if (had) this.emit(event);
  }

  /** The refresh token, for signing out. */
  get refreshToken() {
    return this.state?.refreshToken;
  }

  /** A current access token: refreshed first when it is due. */
  async accessToken(): Promise<string | undefined> {
    if (!this.state) return undefined;
    if (this.now() < this.refreshDueAt!) return this.state.accessToken;
    return this.refresh();
  }

  /**
   * After the API answered a request with a session 401: one refresh. True when a new token is
   * there to retry with; false when the session ended.
   */
  async recover(): Promise<boolean> {
    if (!this.state) return false;
    try {
      return (await this.refresh()) !== undefined;
    } catch {
      return false;
    }
  }

  /** One refresh at a time; concurrent callers share it. */
  refresh(): Promise<string | undefined> {
    if (!this.state) return Promise.resolve(undefined);
    this.inFlight ??= this.runRefresh(this.state.refreshToken).finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async runRefresh(refreshToken: string): Promise<string | undefined> {
    let tokens: Tokens | null;
    try {
      tokens = await this.options.refresh(refreshToken);
    } catch (err) {
      // The API could not be reached: a token that is still valid is still usable.
      if (this.state && this.now() < this.state.expiresAt) return this.state.accessToken;
      throw err;
    }
    // Signed out (or in as someone else) meanwhile: this answer is stale.
    if (this.state?.refreshToken !== refreshToken) return this.state?.accessToken;
    if (!tokens) {
      this.end('expired');
      return undefined;
    }
    this.start(tokens, 'refreshed');
    return tokens.accessToken;
  }

  private schedule() {
    clearTimeout(this.timer);
    const due = this.refreshDueAt;
    if (due === undefined) return;
    this.timer = setTimeout(() => void this.refresh().catch(() => this.schedule()), Math.max(1000, due - this.now()));
  }

  private load(): Stored | null {
    try {
      const raw = this.options.storage.getItem(this.key);
      const s = raw ? (JSON.parse(raw) as Stored) : null;
      return s && typeof s.accessToken === 'string' && typeof s.refreshToken === 'string' && Number.isFinite(s.expiresAt) ? s : null;
    } catch {
      return null;
    }
  }

  private emit(event: SessionEvent) {
    for (const l of this.listeners) l(event);
  }
}
