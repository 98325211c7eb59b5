import cliProgress from 'cli-progress';
import { bytes, count, type Output } from './output.js';

/** A progress bar on stderr, or nothing where stderr is not a terminal (a pipe, a file, a test). */
export interface Bar {
  /** Sets the value, and the total when it is known now; extra values fill the format's other placeholders. */
  update(value: number, total?: number, extra?: Record<string, string>): void;
  /** Draws the last state and leaves the line. */
  stop(): void;
}

export type Unit = 'bytes' | 'records';

const NONE: Bar = { update: () => undefined, stop: () => undefined };

/**
 * A bar labelled `label`, counting bytes or records (cli-progress), drawn on `stream` only when it is a terminal: the
 * bar redraws its line, which in a pipe or file would be a stream of escape codes. `detail` is a format fragment after
 * the counts, with `{name}` placeholders filled from update's `extra`.
 */
export function progressBar(stream: Output, label: string, unit: Unit, detail = ''): Bar {
  if (!stream.isTTY) return NONE;
  const show = unit === 'bytes' ? bytes : count;
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format: `${label} [{bar}] {percentage}% | {done} of {all}${detail}`,
      barsize: 30,
      hideCursor: true,
      clearOnComplete: false,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let last = { value: 0, total: 0 };
  return {
    update(value, total, extra = {}) {
      last = { value, total: total ?? last.total };
      const payload = { ...extra, done: show(value), all: last.total > 0 ? show(last.total) : '?' };
      if (!started) {
        bar.start(Math.max(last.total, 1), value, payload);
        started = true;
        return;
      }
      if (total !== undefined) bar.setTotal(Math.max(total, 1));
      bar.update(value, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * Runs `work` (following something the server goes on doing without us: an upload, an export, indexing); Ctrl-C
 * stops only the following, saying how to pick it up again, and exits 130 as an interrupted command does.
 */
export async function following<T>(stderr: Output, resume: string, work: () => Promise<T>): Promise<T> {
  const interrupted = () => {
    stderr.write(`\ntrove: stopped following; it goes on in Trove: ${resume}\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    return await work();
  } finally {
    process.off('SIGINT', interrupted);
  }
}
