import { parseArgs } from 'node:util';

/**
 * A bench's command line: numeric options (`--records=5000` or `--records 5000`) with their defaults, and flags
 * (`--keep-database`). An unknown option or a value that is not a number stops the bench before it starts anything.
 */
export function benchArgs<N extends string, F extends string>(numbers: Record<N, number>, flags: readonly F[] = []): Record<N, number> & Record<F, boolean> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of Object.keys(numbers)) options[name] = { type: 'string' };
  for (const name of flags) options[name] = { type: 'boolean' };
  const { values } = parseArgs({ options, strict: true, allowPositionals: false });
  const out: Record<string, number | boolean> = {};
  for (const [name, fallback] of Object.entries(numbers) as [string, number][]) {
    const raw = values[name];
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, not ${String(raw)}`);
    out[name] = n;
  }
  for (const name of flags) out[name] = values[name] === true;
  return out as Record<N, number> & Record<F, boolean>;
}
