import { redactUrl, scrubSecret } from './redact';

describe('redactUrl', () => {
  it('masks the password and keeps the user, host, port and database', () => {
    expect(redactUrl('redis://default:s3cret@cache.internal:6380/2')).toBe('redis://default:***@cache.internal:6380/2');
    expect(redactUrl('rediss://:s3cret@cache.internal:6380')).toBe('rediss://:***@cache.internal:6380');
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('says nothing of a URL it cannot parse', () => {
    expect(redactUrl('not a url with s3cret')).not.toContain('s3cret');
  });
});

describe('scrubSecret', () => {
  it('masks the password in a message, as written in the URL and decoded', () => {
    const url = 'redis://:p%40ss@host:6379';
    expect(scrubSecret('failed with p%40ss and p@ss', url)).toBe('failed with *** and ***');
  });

  it('leaves a message alone when the URL has no password', () => {
    expect(scrubSecret('connect ECONNREFUSED', 'redis://host:6379')).toBe('connect ECONNREFUSED');
  });
});
