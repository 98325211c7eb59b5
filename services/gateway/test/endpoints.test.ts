import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { END_MARKER, REGENERATE, START_MARKER, generateEndpoints } from './endpoints';

const README = resolve(__dirname, '../../../README.md');

let table: string;

beforeAll(async () => {
  table = await generateEndpoints();
});

/** The README's endpoint block, markers included, or undefined when the markers are missing. */
function blockOf(readme: string): { start: number; end: number } | undefined {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  return start === -1 || end < start ? undefined : { start, end: end + END_MARKER.length };
}

test('the table lists what a caller reaches through the gateway, and no /internal route', () => {
  expect(table).toContain('| POST | `/api/v1/upload/:collection/:record_type/batch` | upload | ingestion |');
  expect(table).toContain('| POST | `/api/v1/ingest/:vertical/:entity_type/batch` | upload | ingestion |');
  expect(table).toContain('| GET | `/open/v1/search` | none | open |');
  expect(table).toContain('| POST | `/mcp` | search | mcp |');
  expect(table).toContain('| GET | `/api/v1/health` | none | gateway |');
  expect(table).not.toMatch(/internal/i);
});

test("README.md's endpoint table is the one the gateway's route table and the services' routes give", () => {
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
