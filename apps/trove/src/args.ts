import type { Command } from 'commander';

/** Options every server command takes. */
export interface ServerOptions {
  /** The ENV to use when the environment sets none (`pnpm start` passes development, so a first run needs no secrets). */
  defaultEnv?: string;
}

/** What the server commands do, given their parsed options (main.ts; tests pass stand-ins). */
export interface ServerActions {
  start(opts: ServerOptions & { target: string }): Promise<void>;
  createTenant(opts: ServerOptions & { name: string; tenantId?: string }): Promise<void>;
  setPlan(opts: ServerOptions & { tenant: string; plan: string }): Promise<void>;
  reencryptConnectors(opts: ServerOptions): Promise<void>;
  migrate(opts: ServerOptions & { target: string }): Promise<void>;
}

/** The heading the server commands are listed under in `trove --help`. */
export const SERVER_COMMANDS = 'Server commands (run Trove, administer its data):';

/**
 * Adds the server commands to the `trove` program (commander): `start` (the command run when none is named),
 * `migrate`, `create-tenant`, `set-plan` and `reencrypt-connectors`. A `--target` naming no service is refused by `start`
 * and `migrate` with the valid names (exit 2), once they have loaded them.
 */
export function addServerCommands(program: Command, actions: ServerActions): void {
  const defaultEnv = (command: Command) =>
    command.option('--default-env <env>', 'the ENV to use when the environment sets none (ENV always wins; `pnpm start` passes development)');

  defaultEnv(
    program
      .command('start')
      .summary('start Trove: every service, or those of --target (the default command)')
      .description(
        'Starts services (the command run when none is named). --target=all runs every service in one process, each on ' +
          'its own port behind the gateway (PORT, default 8080); only the gateway listens on HOST, the others on 127.0.0.1. ' +
          'A process running only some services listens on HOST and needs INTERNAL_TOKEN_SECRET, the same in every ' +
          'process. Configuration comes from the environment: docs/configuration.md. Ctrl-C (SIGINT) or SIGTERM stops it ' +
          'cleanly, exit code 0.',
      )
      .option('--target <names>', 'all, or services separated by commas (docs/running.md lists them)', 'all'),
  ).action((opts: ServerOptions & { target: string }) => actions.start(opts));

  defaultEnv(
    program
      .command('migrate')
      .summary("prepare every service's storage (or that of --target's services), then exit")
      .description(
        "Prepares the storage of each service as its start would, without serving: the service's schema migrations, the " +
          "event log's tables in its database, and the search engine's tables or Elasticsearch index templates. Then exits " +
          '0. Each step is idempotent and holds a lock, so it may run while older replicas still serve (a Kubernetes Job ' +
          'before a rollout: k8s/); services also do it at start, so a migrate run only moves the work (and any failure) ' +
          'ahead of the rollout.',
      )
      .option('--target <names>', 'all, or services separated by commas', 'all'),
  ).action((opts: ServerOptions & { target: string }) => actions.migrate(opts));

  defaultEnv(
    program
      .command('create-tenant')
      .summary("create a tenant and print its first admin API key (production bootstrap)")
      .description(
        "Creates a tenant and prints its first admin API key, once. With the embedded database run it while the system " +
          'is stopped (PGlite allows one process).',
      )
      .requiredOption('--name <name>', "the tenant's name")
      .option('--tenant-id <uuid>', "the tenant's id (a new one unless given)"),
  ).action((opts: ServerOptions & { name: string; tenantId?: string }) => actions.createTenant(opts));

  defaultEnv(
    program
      .command('set-plan')
      .summary("set a tenant's plan (self_hosted only)")
      .description("Sets a tenant's plan. Self-hosted deployments only: in the cloud the payment provider sets plans.")
      .requiredOption('--tenant <uuid>', "the tenant's id")
      .requiredOption('--plan <plan>', 'free, pro, scale or enterprise'),
  ).action((opts: ServerOptions & { tenant: string; plan: string }) => actions.setPlan(opts));

  defaultEnv(
    program
      .command('reencrypt-connectors')
      .summary("re-encrypt connectors' credentials under the first CONNECTOR_ENCRYPTION_KEY")
      .description(
        "Re-encrypts every connector's stored credentials under the first key of CONNECTOR_ENCRYPTION_KEY (any listed " +
          'key decrypts); then old keys can be dropped.',
      ),
  ).action((opts: ServerOptions) => actions.reencryptConnectors(opts));
}
