import { decodeListCursor, encodeListCursor } from './list-cursor';

describe('list cursor', () => {
  const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: '0b7c6f4e-8a43-4b7e-9c1d-2f3a4b5c6d7e' };

  it('round-trips the sort key of the last item', () => {
    expect(decodeListCursor(encodeListCursor(position))).toEqual(position);
  });

  it('is URL-safe', () => {
    expect(encodeListCursor(position)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64', '!!!'],
    ['base64 of something else', Buffer.from('hello').toString('base64url')],
    ['a wrong shape', Buffer.from(JSON.stringify({ a: 1 })).toString('base64url')],
    ['an invalid date', Buffer.from(JSON.stringify(['2026-13-45T00:00:00.000Z', position.id])).toString('base64url')],
    ['an invalid id', Buffer.from(JSON.stringify([position.createdAt.toISOString(), 'nope'])).toString('base64url')],
    ['an empty string', ''],
  ])('rejects %s', (_label, cursor) => {
    expect(decodeListCursor(cursor)).toBeUndefined();
  });
});
