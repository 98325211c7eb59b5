import { preferencesOf, prefersAsync } from './prefer';

const asks = (prefer: string | string[] | undefined) => prefersAsync({ headers: { prefer } as Record<string, string | string[] | undefined> });

describe('Prefer (RFC 7240)', () => {
  it('asks for an asynchronous answer with respond-async, in any case, among other preferences and parameters', () => {
    expect(asks('respond-async')).toBe(true);
    expect(asks('Respond-Async')).toBe(true);
    expect(asks('  respond-async  ')).toBe(true);
    expect(asks('return=minimal, respond-async, wait=10')).toBe(true);
    expect(asks('respond-async; foo=bar')).toBe(true);
    expect(asks('respond-async=')).toBe(true);
    expect(asks('respond-async=""')).toBe(true);
    // Two Prefer headers, as Node joins them or as a list.
    expect(asks('wait=5, respond-async')).toBe(true);
    expect(asks(['wait=5', 'respond-async'])).toBe(true);
  });

  it('leaves the answer as it is without it, or for a preference that does not parse', () => {
    expect(asks(undefined)).toBe(false);
    expect(asks('')).toBe(false);
    expect(asks('return=minimal')).toBe(false);
    expect(asks('respond-asynchronously')).toBe(false);
    expect(asks('respond async')).toBe(false);
    expect(asks('"respond-async"')).toBe(false);
    // respond-async takes no value.
    expect(asks('respond-async=yes')).toBe(false);
    expect(asks('respond-async=<not a token>')).toBe(false);
    expect(asks('x="a, respond-async"')).toBe(false);
  });

  it('counts a preference written twice as first written', () => {
    expect(asks('respond-async=no, respond-async')).toBe(false);
    expect(preferencesOf('wait=5, WAIT=10')).toEqual(new Map([['wait', '5']]));
  });

  it('reads values, quoted ones unquoted, and skips what does not parse', () => {
    expect(preferencesOf('return=minimal, handling="lenient", ,bad name=1, foo; p=1')).toEqual(
      new Map([
        ['return', 'minimal'],
        ['handling', 'lenient'],
        ['foo', ''],
      ]),
    );
  });
});
