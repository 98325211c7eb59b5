import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { createProgram, run } from '../program.js';

/** A request the stand-in server received. */
export interface Seen {
  method: string;
  /** Path and query. */
  url: string;
  headers: Headers;
  body: string;
}

/** Answers a request: a JSON body with a status, or a Response. */
export type Route = (req: Seen) => { status: number; body?: unknown; headers?: Record<string, string> } | Response;

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `trove` command lines in process against a stand-in of the API (a fetch answering from `routes`, keyed by
 * `METHOD /path`), with a fresh configuration folder, and records what each printed.
 */
export function harness(routes: Record<string, Route> = {}) {
  const seen: Seen[] = [];
  const env: Record<string, string | undefined> = { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'trove-cli-test-')), HOME: '/nonexistent' };
  const fetchStub = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    // Any other address is a real one (a test of a server that is not there).
    if (url.origin !== SERVER) return globalThis.fetch(request);
    const req: Seen = { method: request.method, url: `${url.pathname}${url.search}`, headers: request.headers, body: request.body ? await request.text() : '' };
    seen.push(req);
    const route = routes[`${req.method} ${url.pathname}`];
    if (!route) return new Response(JSON.stringify({ detail: 'Not Found' }), { status: 404, headers: { 'content-type': 'application/json' } });
    const answer = route(req);
    if (answer instanceof Response) return answer;
    if (answer.body === undefined) return new Response(null, { status: answer.status, headers: answer.headers });
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } });
  }) as typeof fetch;

  async function trove(argv: string[], opts: { stdin?: string; tty?: boolean; server?: (program: Command) => void } = {}): Promise<Ran> {
    let stdout = '';
    let stderr = '';
    const stdin = Object.assign(Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]), { isTTY: opts.tty ?? false });
    const program = createProgram({
      version: '9.9.9',
      io: {
        stdout: { write: (text: string) => (stdout += text), isTTY: opts.tty ?? false },
        stderr: { write: (text: string) => (stderr += text), isTTY: false },
        stdin,
        env,
        fetch: fetchStub,
      },
      serverCommands: opts.server ? { group: 'Server commands:', add: opts.server } : undefined,
    });
    const code = await run(program, argv, { defaultCommand: opts.server ? 'start' : undefined });
    return { code, stdout, stderr };
  }

  return { trove, seen, env, configDir: join(env.XDG_CONFIG_HOME!, 'trove') };
}

/** The stand-in's URL. */
export const SERVER = 'http://trove.test';
