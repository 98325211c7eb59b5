import { TroveClient, TroveError } from '@trove/client';
import { Session } from './session';

/** The gateway that served the page: the UI talks to its API as any program with a portal token would. */
export const baseUrl = window.location.origin;

export const session = new Session();

export const trove = new TroveClient({ baseUrl, retry: { attempts: 2 } });

session.subscribe((state) => trove.setPortalToken(state.token));

/** What went wrong, in words for the person: the API's own detail, with its request id to quote. */
export function problemOf(err: unknown): string {
  if (err instanceof TroveError) return err.requestId ? `${err.detail} (request ${err.requestId})` : err.detail;
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Runs a call of the signed-in person. A 401 means the token has expired (or was refused): the session ends and the
 * sign-in screen says so. Anything else is thrown on for the screen to show.
 */
export async function portal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof TroveError && err.status === 401) session.expire();
    throw err;
  }
}
