import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { isRunning } from '@trove/db';

/**
 * Who holds a consumer group's lease, as written in the lease: enough for a member to tell that the holder is a
 * process that is gone, so a restarted system does not wait for a dead process's lease to run out.
 */
export interface MemberIdentity {
  /** Host name and kernel boot, so a pid is only ever looked up on the machine, and in the boot, it belongs to. */
  host: string;
  /** The pid namespace (Linux), so a pid is not looked up in another container's process table. */
  pidNamespace: string;
  pid: number;
  /** Different for every start of a process: tells a restarted process from its predecessor with the same pid. */
  incarnation: string;
}

/** The lease columns of a group's offset row that name its holder. */
export interface LeaseHolder {
  lease_host: string | null;
  lease_pid_namespace: string | null;
  lease_pid: number | null;
  lease_incarnation: string | null;
}

const INCARNATION = randomUUID();

function readOr(read: () => string, fallback: string): string {
  try {
    return read().trim();
  } catch {
    return fallback;
  }
}

/** This process. Outside Linux there is no boot id or pid namespace, and the host name alone names the host. */
export function thisProcess(): MemberIdentity {
  const boot = readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'), '');
  return {
    host: boot ? `${hostname()}/${boot}` : hostname(),
    pidNamespace: readOr(() => readlinkSync('/proc/self/ns/pid'), ''),
    pid: process.pid,
    incarnation: INCARNATION,
  };
}

/**
 * Whether the holder of a lease is certainly a process that is gone, judged by `self` on its own host; anything it
 * cannot judge (another host, another pid namespace) is left to the lease running out.
 *
 * Same host and pid but another incarnation: in one pid namespace two live processes never share a pid, so the
 * holder was an earlier process; across namespaces of one host it is a restarted container (pid 1 again), which
 * assumes two live containers of one host are not given the same host name.
 */
export function holderIsGone(holder: LeaseHolder, self: MemberIdentity, running: (pid: number) => boolean = isRunning): boolean {
  if (holder.lease_host !== self.host || holder.lease_pid === null || holder.lease_incarnation === null) return false;
  if (holder.lease_incarnation === self.incarnation) return false;
  if (holder.lease_pid === self.pid) return true;
  return holder.lease_pid_namespace === self.pidNamespace && !running(holder.lease_pid);
}
