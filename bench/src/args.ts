import { parseArgs } from 'node:util';

/**
 * A bench's command line: numeric options (`--records=5000` or `--records 5000`) with their defaults, flags
 * (`--keep-database`) and choices (`--shape=embedded`: one of the listed values, the first the default). An unknown
 * option, a value that is not a number or a choice not listed stops the bench before it starts anything.
 */
export function benchArgs<N extends string, F extends string, C extends Record<string, readonly [string, ...string[]]> = Record<never, never>>(
  numbers: Record<N, number>,
  flags: readonly F[] = [],
  choices: C = {} as C,
): Record<N, number> & Record<F, boolean> & { [K in keyof C]: C[K][number] } {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const name of Object.keys(numbers)) options[name] = { type: 'string' };
  for (const name of Object.keys(choices)) options[name] = { type: 'string' };
  for (const name of flags) options[name] = { type: 'boolean' };
  const { values } = parseArgs({ options, strict: true, allowPositionals: false });
  const out: Record<string, number | boolean | string> = {};
  for (const [name, fallback] of Object.entries(numbers) as [string, number][]) {
    const raw = values[name];
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, not ${String(raw)}`);
    out[name] = n;
  }
  for (const [name, allowed] of Object.entries(choices) as [string, readonly string[]][]) {
    const raw = values[name];
    const value = raw === undefined ? allowed[0]! : String(raw);
    if (!allowed.includes(value)) throw new Error(`--${name} must be one of ${allowed.join(', ')}, not ${value}`);
    out[name] = value;
  }
  for (const name of flags) out[name] = values[name] === true;
  return out as Record<N, number> & Record<F, boolean> & { [K in keyof C]: C[K][number] };
}
