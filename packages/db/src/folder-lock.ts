import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { isRunning } from './process';

/** Raised when another process (or this one) already has the data folder open; the message names it. */
export class DataFolderLockedError extends Error {
  override name = 'DataFolderLockedError';
}

export interface FolderLock {
  /** Removes the lock file if it is still this holder's; safe to call twice. */
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** A holder on this host is checked by its process id; one on another host only by how recently it touched the file. */
const REFRESH_MS = 5_000;
const FOREIGN_STALE_MS = 30_000;

/** Lock files this process holds, so a second open in the same process is refused rather than taken for stale. */
const held = new Set<string>();

/**
 * Takes the lock file at `path`, or throws DataFolderLockedError naming the process that holds it. PGlite is a whole
 * PostgreSQL server inside one process: a second process opening the same folder writes over the first's pages
 * unseen, and what it reports as written is lost. A lock left by a process that is gone (killed, crashed) is taken over
 * at once, so a restart after a crash never waits.
 */
export function lockFolder(path: string): FolderLock {
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies Holder);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, mine)) return holding(path, mine);
    const text = readIfPresent(path);
    if (text === undefined) continue;
    const holder = parse(text);
    if (holder && isAlive(holder, path)) throw new DataFolderLockedError(holderMessage(path, holder));
    removeIfUnchanged(path, text);
  }
  throw new DataFolderLockedError(`${path}: other processes keep taking this lock; is the system starting twice?`);
}

function holding(path: string, mine: string): FolderLock {
  held.add(path);
  // Touching the file tells a process on another host (a shared volume) that the holder is still there.
  const refresh = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(path, now, now);
    } catch {
      // The folder is gone or the lock was taken over; release() finds out which.
    }
  }, REFRESH_MS);
  refresh.unref();
  return {
    release() {
      if (!held.delete(path)) return;
      clearInterval(refresh);
      if (readIfPresent(path) === mine) unlinkSync(path);
    },
  };
}

/** Creates the file with its whole content or not at all, so no reader ever sees it half written. */
function createExclusive(path: string, content: string): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, content, { mode: 0o644 });
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temp);
  }
}

function isAlive(holder: Holder, path: string): boolean {
  if (holder.host !== hostname()) {
    const age = Date.now() - (statIfPresent(path)?.mtimeMs ?? 0);
    return age < FOREIGN_STALE_MS;
  }
  // A lock naming this very process is a previous run's when the process id came round again (a container restarted).
  if (holder.pid === process.pid) return held.has(path);
  return isRunning(holder.pid);
}

/**
 * Removes a stale lock unless another process replaced it since it was read: two processes that both found the same
 * stale lock must not both remove it, or the second would remove the first's fresh lock and both would run.
 */
function removeIfUnchanged(path: string, staleText: string): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(aside);
  }
}

function holderMessage(path: string, holder: Holder): string {
  const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
  return (
    `The embedded database's data folder is in use by process ${holder.pid}${where} (since ${holder.since}); ` +
    'PGlite allows one process. Stop that process first, or use another DATA_DIR or a DATABASE_URL. ' +
    `If no such process is running, delete ${path}.`
  );
}

function parse(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.since === 'string') return value as Holder;
  } catch {
    // Not a lock this code wrote, so it names no holder: stale.
  }
  return undefined;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function statIfPresent(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
