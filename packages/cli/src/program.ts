import { Command, CommanderError } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerCollections } from './commands/collections.js';
import { registerExport } from './commands/export.js';
import { registerKeys } from './commands/keys.js';
import { registerRecords } from './commands/records.js';
import { registerReplace } from './commands/replace.js';
import { registerSearch } from './commands/search.js';
import { registerUpload } from './commands/upload.js';
import { Cli, addCommonOptions, type Io } from './context.js';
import { EXIT, describeFailure, type Failure } from './errors.js';

/** The footer of a server command's help. */
const SERVER_FOOTER = `
Exit codes: 0 success (a started system: stopped by Ctrl-C or SIGTERM); 1 refused (the configuration, a data folder
or port in use, a value the command refuses); 2 wrong command line. Settings: docs/configuration.md.`;

/** The footer of every client command's help: what its exit code says, and the environment it reads. */
const FOOTER = `
Exit codes: 0 success; 1 refused (a 4xx answer, not signed in, a missing file); 2 wrong command line;
3 the server failed (5xx) or could not be reached.
Environment: TROVE_URL, TROVE_API_KEY and TROVE_PROFILE override the stored login; XDG_CONFIG_HOME says where
it is stored. See docs/cli.md.`;

export interface ProgramOptions {
  /** What `--version` prints. */
  version: string;
  /** The process's streams and environment (a test's stand-ins otherwise). */
  io: Io;
  /** Adds the commands of the program that holds these (the server's), listed first under `group`. */
  serverCommands?: { group: string; add(program: Command): void };
}

/**
 * The `trove` program: the client commands of this package, and the server's when `serverCommands` adds them, under one
 * `--help` and `--version`. Commander's own errors (an unknown command or option, a missing argument) print one line
 * and end with exit code 2, through `run`.
 */
export function createProgram(opts: ProgramOptions): Command {
  const { io } = opts;
  const cli = new Cli(io, opts.version);
  const program = new Command('trove')
    .description(
      'Trove: a multi-tenant record search and ingestion service. The server commands start Trove and administer its ' +
        'data; the client commands use a running Trove over HTTP with the login stored by `trove login`.',
    )
    .version(opts.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line: commander puts its suggestion ("(Did you mean search?)") on a line of its own.
      outputError: (text, write) => write(`trove: ${text.replace(/^error: /, '').trimEnd().replace(/\s*\n\s*/g, ' ')}\n`),
    });
  program.addHelpText('after', FOOTER);

  const server = new Set<Command>();
  if (opts.serverCommands) {
    program.commandsGroup(opts.serverCommands.group);
    opts.serverCommands.add(program);
    for (const command of program.commands) server.add(command);
  }
  program.commandsGroup('Sign in:');
  registerAuth(program, cli);
  program.commandsGroup('Client commands (a running Trove, with the stored login):');
  registerKeys(program, cli);
  registerCollections(program, cli);
  registerRecords(program, cli);
  registerUpload(program, cli);
  registerSearch(program, cli);
  registerExport(program, cli);
  registerReplace(program, cli);
  for (const command of everyCommand(program)) {
    if (command === program) continue;
    addCommonOptions(command);
    command.addHelpText('after', server.has(command) ? SERVER_FOOTER : FOOTER);
    // Set again on each: commander copies these to a subcommand only when it is created by .command().
    command.exitOverride().configureOutput(program.configureOutput());
    command.showSuggestionAfterError(true);
  }
  cliOf.set(program, cli);
  return program;
}

const cliOf = new WeakMap<Command, Cli>();

function* everyCommand(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* everyCommand(sub);
}

export interface RunOptions {
  /** The command run when the command line names none (`trove --target=all` is `trove start --target=all`). */
  defaultCommand?: string;
  /** Describes the errors of the commands added from outside (the server's); undefined for an unexpected one. */
  describe?: (err: unknown) => Failure | undefined;
}

/**
 * Runs the command line `argv` (without node and the script) and answers the exit code: 0, or the failure's code with
 * one line `trove: <what went wrong>` on stderr. An error nothing expects is printed with its stack (a bug to report).
 */
export async function run(program: Command, argv: string[], opts: RunOptions = {}): Promise<number> {
  const cli = cliOf.get(program);
  const stderr = (text: string) => (cli ? cli.io.stderr.write(text) : process.stderr.write(text));
  const first = argv[0];
  const args =
    opts.defaultCommand && (first === undefined || (first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first))) ? [opts.defaultCommand, ...argv] : argv;
  try {
    await program.parseAsync(args, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // Commander has printed its message (or the help, or the version) already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const failure = describeFailure(err, cli?.lastUrl) ?? opts.describe?.(err);
    if (failure) {
      stderr(failure.plain ? `${failure.message}\n` : `trove: ${failure.message}\n`);
      return failure.exitCode;
    }
    stderr(`trove: unexpected error (please report it): ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.user;
  }
}
