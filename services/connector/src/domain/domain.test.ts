import neo4j from 'neo4j-driver';
import { BSON } from 'mongodb';
import { CredentialCipher, UndecryptableError } from './cipher';
import { bindLastPull, bindMongoFilter } from './last-pull';
import { scrub, secretsOf } from './scrub';
import { decimalValue, toJson } from './values';

const K1 = 'a'.repeat(64);
const K2 = Buffer.alloc(32, 7).toString('base64');

describe('CredentialCipher', () => {
  it('round-trips settings, with a fresh IV each time and no plaintext in the stored form', () => {
    const cipher = new CredentialCipher([K1]);
    const settings = { dsn: 'postgres://u:pw-1234@db/shop' };
    const a = cipher.encrypt(settings);
    const b = cipher.encrypt(settings);
    expect(a).not.toBe(b);
    expect(a).not.toContain('pw-1234');
    expect(cipher.decrypt(a)).toEqual(settings);
  });

  it('decrypts with any listed key and encrypts with the first (rotation)', () => {
    const old = new CredentialCipher([K2]).encrypt({ password: 'old' });
    const rotated = new CredentialCipher([K1, K2]);
    expect(rotated.decrypt(old)).toEqual({ password: 'old' });
    expect(rotated.isCurrent(old)).toBe(false);
    const fresh = rotated.encrypt({ password: 'old' });
    expect(rotated.isCurrent(fresh)).toBe(true);
    expect(new CredentialCipher([K1]).decrypt(fresh)).toEqual({ password: 'old' });
    expect(() => new CredentialCipher([K1]).decrypt(old)).toThrow(UndecryptableError);
  });

  it('refuses an altered value', () => {
    const cipher = new CredentialCipher([K1]);
    const parts = cipher.encrypt({ a: 1 }).split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow(UndecryptableError);
  });
});

describe('bindLastPull', () => {
  it('replaces :last_pull outside strings, comments and casts, never writing a value', () => {
    expect(bindLastPull("select * from t where u > :last_pull and note <> ':last_pull' -- :last_pull\n and x::text = 'a'", '$1::timestamptz')).toEqual({
      text: "select * from t where u > $1::timestamptz and note <> ':last_pull' -- :last_pull\n and x::text = 'a'",
      count: 1,
    });
    expect(bindLastPull('select * from t where a > :last_pull or :last_pull is null', '?')).toEqual({ text: 'select * from t where a > ? or ? is null', count: 2 });
    expect(bindLastPull('MATCH (n:last_pull) WHERE n.at > :last_pull RETURN n', '$last_pull').text).toBe('MATCH (n:last_pull) WHERE n.at > $last_pull RETURN n');
    expect(bindLastPull('select $$ :last_pull $$, :last_pullx', '$1').count).toBe(0);
  });

  it('binds ":last_pull" string values of a MongoDB filter to the date, at any depth', () => {
    const at = new Date('2024-01-02T03:04:05Z');
    expect(bindMongoFilter({ $or: [{ updated: { $gt: ':last_pull' } }, { note: 'x' }] }, at)).toEqual({ $or: [{ updated: { $gt: at } }, { note: 'x' }] });
  });
});

describe('scrub', () => {
  it('masks every credential and any URI userinfo or password pair, whatever the driver wrote', () => {
    const config = { dsn: 'postgres://reader:p%40ss-Word9@db.internal:5432/shop' };
    const message = `connect failed for postgres://reader:p%40ss-Word9@db.internal:5432/shop (user reader, password p@ss-Word9) mongodb://x:y@h password=hunter22`;
    const out = scrub(message, secretsOf(config));
    expect(out).not.toContain('p%40ss-Word9');
    expect(out).not.toContain('p@ss-Word9');
    expect(out).not.toContain('reader');
    expect(out).not.toContain('x:y@');
    expect(out).not.toContain('hunter22');
  });
});

describe('decimalValue', () => {
  it('reads a decimal as a number while a double holds every significant digit, and keeps the text otherwise', () => {
    expect(decimalValue('1.25')).toBe(1.25);
    expect(decimalValue('12.50')).toBe(12.5);
    expect(decimalValue('-0.001')).toBe(-0.001);
    expect(decimalValue('2500')).toBe(2500);
    expect(decimalValue('123456789012345')).toBe(123456789012345);
    expect(decimalValue('1234567890123456')).toBe('1234567890123456');
    expect(decimalValue('0.1234567890123456')).toBe('0.1234567890123456');
    expect(decimalValue('NaN')).toBe('NaN');
    expect(decimalValue('Infinity')).toBe('Infinity');
  });
});

describe('toJson', () => {
  it('turns driver values into JSON', () => {
    expect(toJson(new Date('2024-05-06T07:08:09.010Z'))).toBe('2024-05-06T07:08:09.010Z');
    expect(toJson(Buffer.from([1, 2]))).toBe('AQI=');
    expect(toJson(12n)).toBe(12);
    expect(toJson(2n ** 60n)).toBe('1152921504606846976');
    expect(toJson(Number.NaN)).toBe('NaN');
    expect(toJson(new BSON.ObjectId('65a1b2c3d4e5f60718293a4b'))).toBe('65a1b2c3d4e5f60718293a4b');
    expect(toJson(BSON.Decimal128.fromString('12.50'))).toBe(12.5);
    expect(toJson(BSON.Decimal128.fromString('1234567890.1234567'))).toBe('1234567890.1234567');
    expect(toJson(BSON.Long.fromString('9007199254740993'))).toBe('9007199254740993');
    expect(toJson(neo4j.int(42))).toBe(42);
    expect(toJson(neo4j.int('9007199254740993'))).toBe('9007199254740993');
    const node = new neo4j.types.Node(neo4j.int(1), ['Part'], { name: 'Gear', teeth: neo4j.int(20) }, 'e1');
    expect(toJson(node)).toEqual({ name: 'Gear', teeth: 20 });
    expect(toJson({ nested: [new Date(0), null, undefined] })).toEqual({ nested: ['1970-01-01T00:00:00.000Z', null, null] });
  });
});
