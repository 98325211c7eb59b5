import { readFileSync, writeFileSync } from 'node:fs';

/** A memory figure of a process from /proc/<pid>/status (Linux), in bytes. */
export function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Resets the peak-RSS counter of a process (Linux, needs the right to write its clear_refs). */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** CPU seconds a process has used so far, all its threads, user and system (utime + stime of /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return NaN;
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at state (field 3).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux architecture the bench runs on. */
const CLOCK_TICKS = 100;
