import { bytes, clip, counted, fields, table, when } from './output.js';

describe('output for people', () => {
  it('draws a table without colours or rules between rows, an empty cell for a missing value', () => {
    expect(table(['id', 'name', 'score'], [['r1', 'M8 hex bolt', 1], ['r2', null, { a: 1 }]])).toBe(
      [
        '┌────┬─────────────┬─────────┐',
        '│ id │ name        │ score   │',
        '├────┼─────────────┼─────────┤',
        '│ r1 │ M8 hex bolt │ 1       │',
        '│ r2 │             │ {"a":1} │',
        '└────┴─────────────┴─────────┘',
        '',
      ].join('\n'),
    );
  });

  it('aligns label: value lines, leaving out what is undefined', () => {
    expect(fields([['url', 'http://x'], ['expires', undefined], ['ready to swap', 'yes']])).toBe('url:           http://x\nready to swap: yes\n');
  });

  it('says sizes, counts, instants and long text briefly', () => {
    expect([bytes(512), bytes(1_500), bytes(12_345_678), bytes(250_000_000_000)]).toEqual(['512 B', '1.5 kB', '12.3 MB', '250 GB']);
    expect([counted(1, 'record'), counted(12_345, 'record')]).toEqual(['1 record', '12,345 records']);
    expect([when('2026-05-01T12:00:59.123Z'), when(null), when('soon')]).toEqual(['2026-05-01 12:00 UTC', '', 'soon']);
    expect(clip('a  long\nname of a bolt', 12)).toBe('a long name…');
  });
});
