/**
 * The signed-in session: the portal token, kept in this tab's memory only (docs/web-ui.md says why), and when it
 * expires. Whoever shows screens listens for changes; an expired token ends the session with a message for sign-in.
 */
export interface SessionState {
  token: string | undefined;
  email: string | undefined;
  /** Why the person was signed out, shown on the sign-in screen (expired, signed out); cleared at the next sign-in. */
  notice: string | undefined;
}

export const EXPIRED_NOTICE = 'Your session has expired. Sign in again to continue.';
export const SIGNED_OUT_NOTICE = 'You are signed out.';

/** The `exp` of a JWT in milliseconds since the epoch, or undefined when the token carries none it can read. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

type Listener = (state: SessionState) => void;

export class Session {
  private state: SessionState = { token: undefined, email: undefined, notice: undefined };
  private readonly listeners = new Set<Listener>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  get current(): SessionState {
    return this.state;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts a session with this token; it ends by itself, with the expired notice, when the token's `exp` passes. */
  signIn(token: string, email: string): void {
    this.clearTimer();
    const expiry = tokenExpiry(token);
    if (expiry !== undefined) {
      // setTimeout takes at most 2^31-1 ms; a token living longer than ~24 days is checked again then.
      this.timer = setTimeout(() => this.expire(), Math.min(Math.max(expiry - this.now(), 0), 2 ** 31 - 1));
    }
    this.set({ token, email, notice: undefined });
  }

  signOut(): void {
    this.end(SIGNED_OUT_NOTICE);
  }

  /** The API refused the token (401) or it ran out: back to sign-in, saying so. */
  expire(): void {
    if (this.state.token !== undefined) this.end(EXPIRED_NOTICE);
  }

  private end(notice: string): void {
    this.clearTimer();
    this.set({ token: undefined, email: undefined, notice });
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private set(state: SessionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}
