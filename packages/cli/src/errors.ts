import { TroveError, TroveNetworkError, TroveToolError } from '@trove/client';

/** The exit codes of every trove command (docs/cli.md "Exit codes"). */
export const EXIT = {
  ok: 0,
  /** The request was refused (4xx), or the command cannot do what was asked (not signed in, a file missing). */
  user: 1,
  /** The command line is wrong: an unknown command or option, a missing argument, a value of the wrong form. */
  usage: 2,
  /** The server failed (5xx) or could not be reached (refused connection, timeout). */
  server: 3,
} as const;

/** A failure the command explains in one line, exiting with `exitCode`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.user,
  ) {
    super(message);
  }
}

/** A command line the command cannot run (exit 2), found after commander parsed it. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

/** The one line (without the `trove: ` prefix) and the exit code a failure prints and exits with. */
export interface Failure {
  message: string;
  exitCode: number;
  /** Printed as it is, without the `trove: ` prefix (a message that is already the whole output). */
  plain?: boolean;
}

/**
 * How an error ends a client command: a refusal of the API (4xx: 1, 5xx: 3) with its detail, a 422 with each problem as
 * `loc: msg`, a 401 with what to do, no answer at all (3). Undefined for an error nothing here expects (a bug).
 */
export function describeFailure(err: unknown, baseUrl?: string): Failure | undefined {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof TroveError) {
    const exitCode = err.status >= 500 ? EXIT.server : EXIT.user;
    if (err.status === 422 && err.issues.length > 0) {
      return { message: `${err.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`, exitCode };
    }
    const hint = err.status === 401 ? ' (run `trove login` again, or check TROVE_API_KEY)' : '';
    const id = err.status >= 500 && err.requestId ? ` (request id ${err.requestId})` : '';
    return { message: `${err.detail}${hint}${id} [${err.status}]`, exitCode };
  }
  if (err instanceof TroveToolError) return { message: err.message, exitCode: EXIT.user };
  if (err instanceof TroveNetworkError) return { message: networkMessage(err, baseUrl), exitCode: EXIT.server };
  return undefined;
}

/** A failed connection said in words: the address that did not answer and why. */
function networkMessage(err: TroveNetworkError, baseUrl: string | undefined): string {
  const codes = new Set<string>();
  for (let cause: unknown = err.cause; cause; cause = (cause as { cause?: unknown }).cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') codes.add(code);
    if (cause instanceof AggregateError) for (const e of cause.errors) if (typeof e?.code === 'string') codes.add(e.code);
  }
  const where = baseUrl ?? 'the server';
  if (codes.has('ECONNREFUSED')) return `cannot reach ${where} (connection refused): is Trove started there?`;
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return `cannot reach ${where}: its host name does not resolve`;
  if (err.name === 'TroveTimeoutError') return `${where} did not answer in time: ${err.message}`;
  return `cannot reach ${where}: ${err.message}`;
}
