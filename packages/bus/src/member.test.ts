import { holderIsGone, thisProcess, type LeaseHolder, type MemberIdentity } from './member';

const self: MemberIdentity = { host: 'box/boot-1', pidNamespace: 'pid:[1]', pid: 100, incarnation: 'now' };
const holder = (over: Partial<LeaseHolder> = {}): LeaseHolder => ({
  lease_host: 'box/boot-1',
  lease_pid_namespace: 'pid:[1]',
  lease_pid: 200,
  lease_incarnation: 'before',
  ...over,
});
const running = (alive: number[]) => (pid: number) => alive.includes(pid);

describe('whether a lease holder is a process that is gone', () => {
  it('is gone when it ran on this host and its pid no longer runs', () => {
    expect(holderIsGone(holder(), self, running([]))).toBe(true);
  });

  it('is not gone while its pid runs on this host', () => {
    expect(holderIsGone(holder(), self, running([200]))).toBe(false);
  });

  it('is gone when it had this process pid in another incarnation, in this pid namespace or a restarted container', () => {
    expect(holderIsGone(holder({ lease_pid: 100 }), self, running([100]))).toBe(true);
    expect(holderIsGone(holder({ lease_pid: 100, lease_pid_namespace: 'pid:[old]' }), self, running([100]))).toBe(true);
  });

  it('is left to its lease when this member cannot look its pid up', () => {
    expect(holderIsGone(holder({ lease_host: 'other/boot-1' }), self, running([]))).toBe(false);
    expect(holderIsGone(holder({ lease_host: 'box/boot-0' }), self, running([]))).toBe(false);
    expect(holderIsGone(holder({ lease_pid_namespace: 'pid:[2]' }), self, running([]))).toBe(false);
    expect(holderIsGone(holder({ lease_host: null, lease_pid: null, lease_incarnation: null }), self, running([]))).toBe(false);
  });

  it('is never another member of this very process', () => {
    expect(holderIsGone(holder({ lease_pid: 100, lease_incarnation: 'now' }), self, running([]))).toBe(false);
  });
});

describe('this process', () => {
  it('names this process by host, pid and an incarnation of its own', () => {
    expect(thisProcess()).toEqual({ host: expect.any(String), pidNamespace: expect.any(String), pid: process.pid, incarnation: expect.any(String) });
    expect(thisProcess()).toEqual(thisProcess());
  });
});
