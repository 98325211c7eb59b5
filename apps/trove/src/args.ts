export interface ParsedArgs {
  command: 'start' | 'create-tenant' | 'set-plan' | 'reencrypt-connectors' | 'help';
  options: Record<string, string>;
}

/** `[command] [--key=value | --key value | --flag]...`; the default command is start. */
export function parseArgs(argv: string[]): ParsedArgs {
  const options: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { command: 'help', options };
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq > 0) options[arg.slice(2, eq)] = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) options[arg.slice(2)] = argv[++i]!;
      else options[arg.slice(2)] = 'true';
    } else positional.push(arg);
  }
  const command = positional[0] ?? 'start';
  if (command !== 'start' && command !== 'create-tenant' && command !== 'set-plan' && command !== 'reencrypt-connectors' && command !== 'help') {
    throw new Error(`Unknown command ${command}; commands: start, create-tenant, set-plan, reencrypt-connectors, help`);
  }
  return { command, options };
}

export const USAGE = `Usage: trove [start] [--target=all|<service>[,<service>...]]
       trove create-tenant --name <name> [--tenant-id <uuid>]
       trove set-plan --tenant <uuid> --plan <free|pro|scale|enterprise>
       trove reencrypt-connectors

  start          Start services (default). --target=all runs every service in one process,
                 each on its own port behind the gateway (PORT, default 8080); only the gateway
                 listens on HOST, the others on 127.0.0.1. A process running only some services
                 listens on HOST and needs INTERNAL_TOKEN_SECRET, the same in every process.
  create-tenant  Create a tenant and print its first admin API key (production bootstrap).
  set-plan       Set a tenant's plan (self_hosted only; in the cloud the payment provider sets plans).
  reencrypt-connectors
                 Re-encrypt every connector's stored credentials under the first key of
                 CONNECTOR_ENCRYPTION_KEY (any listed key decrypts); then old keys can be dropped.

Configuration comes from the environment; see docs/configuration.md.`;
