import { createInterface } from 'node:readline';
import type { Output } from './output.js';

/** Standard input: a terminal to ask on, or a pipe to read a password from. */
export type Input = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * Asks one question on the terminal (the question on stderr, so stdout stays the command's answer) and answers the
 * line typed, trimmed. `hidden`: what is typed is not echoed (a password, a key).
 */
export async function ask(input: Input, output: Output, question: string, opts: { hidden?: boolean } = {}): Promise<string> {
  const rl = createInterface({ input, output: output as NodeJS.WritableStream, terminal: true });
  let muted = false;
  if (opts.hidden) {
    // readline echoes each keystroke through this method; a hidden answer writes nothing past the question.
    const rlWithOutput = rl as unknown as { _writeToOutput(text: string): void };
    const write = rlWithOutput._writeToOutput.bind(rl);
    rlWithOutput._writeToOutput = (text: string) => {
      if (!muted) write(text);
    };
  }
  let closed: (() => void) | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      closed = () => reject(new Error('no answer (input closed)'));
      rl.once('close', closed);
      rl.question(question, (answer) => resolve(answer.trim()));
      muted = opts.hidden === true;
    });
  } finally {
    if (opts.hidden) output.write('\n');
    // Only this listener: readline's own, on close, detaches it from the terminal and leaves raw mode.
    if (closed) rl.off('close', closed);
    rl.close();
  }
}

/** Everything on standard input, without its final line end (`--password-stdin`). */
export async function readAll(input: Input): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
