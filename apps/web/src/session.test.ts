import { EXPIRED_NOTICE, SIGNED_OUT_NOTICE, Session, tokenExpiry } from './session';

/** A token as auth signs one, its payload readable (the signature is not checked in the browser). */
const token = (payload: object) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;

describe('the session', () => {
  afterEach(() => jest.useRealTimers());

  it("reads a token's expiry from its exp claim, and nothing from a token without one", () => {
    expect(tokenExpiry(token({ sub: 'u', exp: 1_800_000_000 }))).toBe(1_800_000_000_000);
    expect(tokenExpiry(token({ sub: 'u' }))).toBeUndefined();
    expect(tokenExpiry('not a token')).toBeUndefined();
    expect(tokenExpiry('a.%%%.b')).toBeUndefined();
  });

  it('ends by itself with the expired notice when the token runs out', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const session = new Session();
    const seen: Array<string | undefined> = [];
    session.subscribe((s) => seen.push(s.notice ?? s.token));
    session.signIn(token({ exp: 1_000 + 60 }), 'ada@example.com');
    expect(session.current.email).toBe('ada@example.com');
    jest.advanceTimersByTime(59_000);
    expect(session.current.token).toBeDefined();
    jest.advanceTimersByTime(1_000);
    expect(session.current).toEqual({ token: undefined, email: undefined, notice: EXPIRED_NOTICE });
    expect(seen).toHaveLength(2);
  });

  it('says the person signed out when they did, and a refused token after that changes nothing', () => {
    const session = new Session();
    session.signIn(token({ exp: Date.now() / 1000 + 3600 }), 'ada@example.com');
    session.signOut();
    expect(session.current.notice).toBe(SIGNED_OUT_NOTICE);
    session.expire();
    expect(session.current.notice).toBe(SIGNED_OUT_NOTICE);
  });

  it('clears the notice at the next sign-in', () => {
    const session = new Session();
    session.signIn(token({ exp: Date.now() / 1000 + 3600 }), 'ada@example.com');
    session.expire();
    session.signIn(token({ exp: Date.now() / 1000 + 3600 }), 'ada@example.com');
    expect(session.current.notice).toBeUndefined();
    session.signOut();
  });
});
