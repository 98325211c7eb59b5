import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { connectorKeyBytes } from '@trove/platform';

/** Stored form: `v1.<key id>.<iv>.<tag>.<ciphertext>`, each part base64url; the key id is the key's SHA-256, first 8 bytes. */
const VERSION = 'v1';

interface Key {
  id: string;
  bytes: Buffer;
}

/** Raised when a stored value was encrypted under none of the configured keys, or was altered. */
export class UndecryptableError extends Error {
  override name = 'UndecryptableError';
}

/**
 * AES-256-GCM over connector credentials (CONNECTOR_ENCRYPTION_KEY). The first key encrypts; every key decrypts, so
 * a new key goes first and the old ones stay listed until `trove reencrypt-connectors` has rewritten every row. Each
 * value gets its own random 96-bit IV; the authentication tag refuses a value that was altered.
 */
export class CredentialCipher {
  private readonly keys: Key[];

  constructor(keyTexts: readonly string[]) {
    if (keyTexts.length === 0) throw new Error('CredentialCipher needs at least one key');
    this.keys = keyTexts.map((text) => {
      const bytes = connectorKeyBytes(text);
      if (!bytes) throw new Error('a connector encryption key is not 256 bits (64 hex characters or base64 of 32 bytes)');
      return { id: createHash('sha256').update(bytes).digest().subarray(0, 8).toString('base64url'), bytes };
    });
  }

  encrypt(value: unknown): string {
    const key = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return [VERSION, key.id, ...parts].join('.');
  }

  decrypt(stored: string): unknown {
    const [version, keyId, iv, tag, body] = stored.split('.');
    if (version !== VERSION || !keyId || iv === undefined || tag === undefined || body === undefined) {
      throw new UndecryptableError('stored credentials are not in a known format');
    }
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) throw new UndecryptableError('stored credentials were encrypted under a key that is not configured');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      return JSON.parse(text);
    } catch {
      throw new UndecryptableError('stored credentials could not be decrypted (altered, or a different key)');
    }
  }

  /** Whether the value is encrypted under the first key (re-encryption leaves those alone). */
  isCurrent(stored: string): boolean {
    return stored.split('.')[1] === this.keys[0]!.id;
  }
}
