import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { END_MARKER, REGENERATE, START_MARKER, generateEndpoints } from './endpoints';

const README = resolve(__dirname, '../../../README.md');

/** The README's endpoint block, markers included, or undefined when the markers are missing. */
function blockOf(readme: string): { start: number; end: number } | undefined {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  return start === -1 || end < start ? undefined : { start, end: end + END_MARKER.length };
}

test("README.md's endpoint table is the one the gateway's route table and the services' routes give", async () => {
  const table = await generateEndpoints();
  const readme = readFileSync(README, 'utf8');
  const block = blockOf(readme);
  if (process.env.WRITE_ENDPOINTS === '1' && block) {
    writeFileSync(README, readme.slice(0, block.start) + table + readme.slice(block.end));
    return;
  }
  const current = block ? readme.slice(block.start, block.end) : '(no endpoint block in README.md)';
  if (current !== table) {
    throw new Error(`README.md's endpoint table is out of date; regenerate it with\n  ${REGENERATE}\n\nExpected:\n${table}\n\nFound:\n${current}`);
  }
});
