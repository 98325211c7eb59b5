import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid runs on this host: what the data-folder lock and the event bus's consumer leases ask
 * of a holder they found. A zombie (killed, not yet reaped by its parent) is not running, though signalling it still
 * succeeds; EPERM means it runs under another user.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // No /proc (outside Linux): the signal's answer is all there is.
  }
  // The state follows the command name, which is in parentheses and may itself hold spaces or parentheses.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
