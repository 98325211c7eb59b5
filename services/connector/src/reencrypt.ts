import type { Database } from '@trove/db';
import { migrate } from '@trove/db';
import type { Config } from '@trove/platform';
import { CredentialCipher } from './domain/cipher';
import { migrations } from './migrations';
import { allCiphertexts, replaceCiphertext } from './store/connectors';
import type { Db } from './store/schema';

export interface ReencryptOutcome {
  /** Connectors whose credentials were rewritten under the first key. */
  reencrypted: number;
  /** Already under the first key. */
  current: number;
  /** Changed by someone else while this ran (left as they are; run again). */
  skipped: number;
}

/**
 * `trove reencrypt-connectors`: rewrites every connector's stored credentials under the first key of
 * CONNECTOR_ENCRYPTION_KEY, decrypting with any listed key; after it, the old keys can be dropped from the list.
 * Stops at the first value no listed key decrypts, naming the connector, before anything is lost.
 */
export async function reencryptConnectors(database: Database, config: Config): Promise<ReencryptOutcome> {
  if (config.generatedConnectorEncryptionKey) throw new Error('reencrypt-connectors needs CONNECTOR_ENCRYPTION_KEY');
  await migrate(database, 'connector', migrations);
  const db: Db = database.db;
  const cipher = new CredentialCipher(config.CONNECTOR_ENCRYPTION_KEY);
  const outcome: ReencryptOutcome = { reencrypted: 0, current: 0, skipped: 0 };
  for (const row of await allCiphertexts(db)) {
    if (cipher.isCurrent(row.connection_config)) {
      outcome.current++;
      continue;
    }
    let plain: unknown;
    try {
      plain = cipher.decrypt(row.connection_config);
    } catch (err) {
      throw new Error(`connector ${row.id}: ${(err as Error).message}`);
    }
    if (await replaceCiphertext(db, row.id, row.connection_config, cipher.encrypt(plain))) outcome.reencrypted++;
    else outcome.skipped++;
  }
  return outcome;
}
