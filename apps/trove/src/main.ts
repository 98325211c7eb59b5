#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// Only this file of the platform: its index loads express, which tracing must see loaded after it starts.
import { startTracing } from '@trove/platform/dist/tracing';
import { SERVER_COMMANDS, addServerCommands } from './args';

/*
 * The `trove` binary: the server commands (server.ts, loaded only when one runs, with every service) and the client
 * commands of @trove/cli under one program, one --help and one --version (docs/cli.md).
 */

/** The version `trove --version` prints: the launcher's package's. */
function version(): string {
  // dist/main.js and src/main.ts both sit one folder below the package.json.
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Set once `start` has the system running: the process then lives on until a signal stops it. */
let serving = false;

/** The server commands, once one has run: their failures are described by it. */
let server: typeof import('./server') | undefined;

async function main(): Promise<number> {
  // The client commands and the `trove` program are an ES module package: loaded with a real import().
  const cli = await import('@trove/cli');
  const load = async () => (server ??= await import('./server.js'));
  /** The server commands for a command taking --target, once the target names services (a usage error otherwise). */
  const loadFor = async (target: string) => {
    const s = await load();
    const problem = s.targetProblem(target);
    if (problem) throw new cli.UsageError(`--target: ${problem}`);
    return s.serverActions;
  };
  const program = cli.createProgram({
    version: version(),
    io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env },
    serverCommands: {
      group: SERVER_COMMANDS,
      add: (p) =>
        addServerCommands(p, {
          start: async (o) => {
            // Before the services and what they load (http, express, pg), which its instrumentations patch as they
            // load; nothing of OpenTelemetry loads unless the OTEL_* variables ask for traces (docs/observability.md).
            startTracing(process.env, o.target === 'all' ? 'trove' : `trove-${o.target}`);
            await (await loadFor(o.target)).start(o);
            serving = true;
          },
          migrate: async (o) => (await loadFor(o.target)).migrate(o),
          createTenant: async (o) => (await load()).serverActions.createTenant(o),
          setPlan: async (o) => (await load()).serverActions.setPlan(o),
          reencryptConnectors: async (o) => (await load()).serverActions.reencryptConnectors(o),
        }),
    },
  });
  return cli.run(program, process.argv.slice(2), { defaultCommand: 'start', describe: (err) => server?.describeServerFailure(err) });
}

main().then(
  (code) => {
    // A running system lives on (its signal handlers end it); every other command ends here, its answer written
    // (stdout and stderr are synchronous for files and pipes on Linux), without waiting for idle connections to close.
    if (!serving) process.exit(code);
  },
  (err) => {
    process.stderr.write(`trove: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
