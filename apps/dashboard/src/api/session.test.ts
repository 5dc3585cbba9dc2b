import { isSessionError, refreshMargin, Session, type Tokens } from './session';

class MemoryStorage {
  items = new Map<string, string>();
  getItem = (k: string) => this.items.get(k) ?? null;
  setItem = (k: string, v: string) => void this.items.set(k, v);
  removeItem = (k: string) => void this.items.delete(k);
}

const tokens = (n: number, expiresIn = 900): Tokens => ({ accessToken: `access-${n}`, refreshToken: `refresh-${n}`, expiresIn });

function setup(refresh: (token: string) => Promise<Tokens | null>) {
  let now = 1_000_000;
  const storage = new MemoryStorage();
  const calls: string[] = [];
  const session = new Session({
    storage,
    now: () => now,
    refresh: (t) => {
      calls.push(t);
      return refresh(t);
    },
  });
  const events: string[] = [];
  session.subscribe((e) => events.push(e));
  return { session, storage, calls, events, advance: (ms: number) => (now += ms) };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('dashboard session: token refresh', () => {
  it('uses the access token until a minute before it expires, then refreshes it once and stores the rotated tokens', async () => {
    let n = 1;
    const s = setup(async () => tokens(++n));
    s.session.start(tokens(1));
    expect(await s.session.accessToken()).toBe('access-1');
    s.advance(900_000 - 60_001);
    expect(await s.session.accessToken()).toBe('access-1');
    expect(s.calls).toEqual([]);
    s.advance(2);
    expect(await s.session.accessToken()).toBe('access-2');
    expect(s.calls).toEqual(['refresh-1']);
    expect(JSON.parse(s.storage.getItem('herald.session')!)).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(s.events).toEqual(['signed-in', 'refreshed']);
  });

  it('shares one refresh between concurrent requests (a rotated refresh token can be used only once)', async () => {
    let release!: (t: Tokens) => void;
    const s = setup(() => new Promise<Tokens>((r) => (release = r)));
    s.session.start(tokens(1, 60));
    s.advance(59_000);
    const all = Promise.all([s.session.accessToken(), s.session.accessToken(), s.session.accessToken()]);
    release(tokens(2, 60));
    expect(await all).toEqual(['access-2', 'access-2', 'access-2']);
    expect(s.calls).toEqual(['refresh-1']);
  });

  it('refreshes by a timer before expiry while the page is open, with short lifetimes a fifth early', async () => {
    const s = setup(async () => tokens(2, 10));
    s.session.start(tokens(1, 10));
    expect(refreshMargin(10_000)).toBe(2000);
    expect(s.session.refreshDueAt).toBe(1_000_000 + 8000);
    s.advance(8000);
    await jest.advanceTimersByTimeAsync(8000);
    expect(s.calls).toEqual(['refresh-1']);
    expect(s.events).toContain('refreshed');
  });

  it('ends the session as expired when the refresh token is refused, so the app can send the user to sign in', async () => {
    const s = setup(async () => null);
    s.session.start(tokens(1));
    s.advance(900_000);
    expect(await s.session.accessToken()).toBeUndefined();
    expect(s.session.signedIn).toBe(false);
    expect(s.storage.getItem('herald.session')).toBeNull();
    expect(s.events).toEqual(['signed-in', 'expired']);
  });

  it('after a session 401, recover() refreshes once: true with a new token, false (and expired) when refused', async () => {
    const ok = setup(async () => tokens(2));
    ok.session.start(tokens(1));
    expect(await ok.session.recover()).toBe(true);
    expect(await ok.session.accessToken()).toBe('access-2');

    const refused = setup(async () => null);
    refused.session.start(tokens(1));
    expect(await refused.session.recover()).toBe(false);
    expect(refused.events.at(-1)).toBe('expired');
  });

  it('keeps a still-valid token when the API cannot be reached for a refresh, and fails once it has expired', async () => {
    const s = setup(async () => {
      throw new TypeError('Failed to fetch');
    });
    s.session.start(tokens(1));
    s.advance(850_000);
    expect(await s.session.accessToken()).toBe('access-1');
    s.advance(60_000);
    await expect(s.session.accessToken()).rejects.toThrow('Failed to fetch');
    expect(s.session.signedIn).toBe(true);
  });

  it('ignores a refresh answer that arrives after sign-out', async () => {
    let release!: (t: Tokens) => void;
    const s = setup(() => new Promise<Tokens>((r) => (release = r)));
    s.session.start(tokens(1));
    const pending = s.session.refresh();
    s.session.end();
    release(tokens(2));
    expect(await pending).toBeUndefined();
    expect(s.session.signedIn).toBe(false);
  });

  it('survives a reload through storage, and ignores unreadable stored state', () => {
    const storage = new MemoryStorage();
    new Session({ storage, refresh: async () => null }).start(tokens(1));
    expect(new Session({ storage, refresh: async () => null }).signedIn).toBe(true);
    storage.setItem('herald.session', '{not json');
    expect(new Session({ storage, refresh: async () => null }).signedIn).toBe(false);
  });

  it('tells a stale-credentials 401 from other 401s (wrong password, no permission to remove members)', () => {
    expect(isSessionError(401, { message: 'Token has expired' })).toBe(true);
    expect(isSessionError(401, { message: 'Invalid token' })).toBe(true);
    expect(isSessionError(401, { message: 'Invalid email or password' })).toBe(false);
    expect(isSessionError(401, { message: 'unauthorized (no permission to remove members)' })).toBe(false);
    expect(isSessionError(403, { message: 'Token has expired' })).toBe(false);
    expect(isSessionError(401, undefined)).toBe(false);
  });
});
