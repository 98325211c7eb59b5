import { Readable } from 'node:stream';
import { createProgram, run } from '@trove/cli';
import { SERVER_COMMANDS, addServerCommands, type ServerActions } from './args';

/** Runs a command line through the one `trove` program with stand-in server actions; what they got, and what it printed. */
async function trove(argv: string[]) {
  const calls: [string, unknown][] = [];
  const record = (name: string) => async (opts: unknown) => void calls.push([name, opts]);
  const actions: ServerActions = {
    start: record('start'),
    createTenant: record('createTenant'),
    setPlan: record('setPlan'),
    reencryptConnectors: record('reencryptConnectors'),
    migrate: record('migrate'),
  };
  let stdout = '';
  let stderr = '';
  const program = createProgram({
    version: '1.2.3',
    io: {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      stdin: Readable.from([]),
      env: {},
    },
    serverCommands: { group: SERVER_COMMANDS, add: (p) => addServerCommands(p, actions) },
  });
  const code = await run(program, argv, { defaultCommand: 'start' });
  return { code, calls, stdout, stderr };
}

describe('the server commands', () => {
  it('start by default, with the options `pnpm start` and the end-to-end harness pass', async () => {
    expect((await trove(['--target=all', '--default-env=development'])).calls).toEqual([['start', { target: 'all', defaultEnv: 'development' }]]);
    expect((await trove(['--target=records'])).calls).toEqual([['start', { target: 'records' }]]);
    expect((await trove([])).calls).toEqual([['start', { target: 'all' }]]);
    expect((await trove(['start', '--target', 'auth,gateway'])).calls).toEqual([['start', { target: 'auth,gateway' }]]);
  });

  it('take their options by name, and refuse a missing one or an unknown one with exit 2', async () => {
    expect((await trove(['create-tenant', '--name', 'Acme', '--tenant-id', 'b2c3'])).calls).toEqual([['createTenant', { name: 'Acme', tenantId: 'b2c3' }]]);
    expect((await trove(['set-plan', '--tenant', 'b2c3', '--plan', 'pro'])).calls).toEqual([['setPlan', { tenant: 'b2c3', plan: 'pro' }]]);
    expect((await trove(['reencrypt-connectors'])).calls).toEqual([['reencryptConnectors', {}]]);
    expect((await trove(['migrate'])).calls).toEqual([['migrate', { target: 'all' }]]);
    expect((await trove(['migrate', '--target=records,auth'])).calls).toEqual([['migrate', { target: 'records,auth' }]]);
    expect(await trove(['create-tenant'])).toMatchObject({ code: 2, calls: [], stderr: "trove: required option '--name <name>' not specified\n" });
    expect(await trove(['set-plan', '--plan', 'pro'])).toMatchObject({ code: 2, calls: [], stderr: "trove: required option '--tenant <uuid>' not specified\n" });
    // Unknown options were ignored before commander; now they are refused.
    expect(await trove(['--target=all', '--trget', 'records'])).toMatchObject({ code: 2, calls: [], stderr: "trove: unknown option '--trget' (Did you mean --target?)\n" });
  });

  it('are listed first in the one help, with the client commands after', async () => {
    const { code, stdout } = await trove(['--help']);
    expect(code).toBe(0);
    const at = (text: string) => stdout.indexOf(text);
    expect(at(SERVER_COMMANDS)).toBeGreaterThan(0);
    expect(at('  start [options]')).toBeGreaterThan(at(SERVER_COMMANDS));
    expect(at('  login [options]')).toBeGreaterThan(at('  reencrypt-connectors'));
    expect((await trove(['start', '--version'])).stdout).toBe('1.2.3\n');
  });
});
