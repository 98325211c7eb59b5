import type { RequestHandler } from 'express';
import type { Cache } from '@trove/cache';
import {
  COLLECTION_SETTINGS_READ,
  COLLECTION_SETTINGS_UPDATE,
  PORTAL_COLLECTION_SETTINGS_READ,
  PORTAL_COLLECTION_SETTINGS_UPDATE,
  patchedSettings,
  type CollectionSettings,
} from '@trove/contracts';
import type { Kysely } from '@trove/db';
import { ERRORS, handle, parseInput, requirePortalUser, requireScope, tenantOf, type Router } from '@trove/platform';
import { cacheNamespace } from '../response-cache';
import { changeSettings, readSettings } from '../store/settings-store';

/**
 * A collection's search settings (docs/behaviour/search.md, "Settings"): read and changed with a key of scope records or
 * in the portal. A change raises the collection's cache version before it answers, so no search after the answer is
 * served from an answer made under the old settings.
 */
export function settingsRoutes(router: Router, db: Kysely<any>, cache: Pick<Cache, 'bump'>): void {
  const read =
    (collectionOf: (req: Parameters<RequestHandler>[0]) => string): RequestHandler =>
    async (req, res) => {
      res.json(await readSettings(db, tenantOf(req), collectionOf(req)));
    };
  const update =
    (collectionOf: (req: Parameters<RequestHandler>[0]) => string): RequestHandler =>
    async (req, res) => {
      const collection = collectionOf(req);
      const patch = parseInput(COLLECTION_SETTINGS_UPDATE.body, req.body ?? {}, 'body');
      const tenant_id = tenantOf(req);
      const changed = await changeSettings(db, tenant_id, collection, (held) => checked(patchedSettings(held, patch)));
      await cache.bump(cacheNamespace({ kind: 'private', tenant_id, collection }));
      res.json(changed);
    };
  const keyed = (req: Parameters<RequestHandler>[0]) => parseInput(COLLECTION_SETTINGS_READ.params, req.params, 'path').collection;
  const portal = (req: Parameters<RequestHandler>[0]) => parseInput(PORTAL_COLLECTION_SETTINGS_READ.params, req.params, 'path').name;
  handle(router, COLLECTION_SETTINGS_READ, requireScope('records'), read(keyed));
  handle(router, COLLECTION_SETTINGS_UPDATE, requireScope('records'), update(keyed));
  handle(router, PORTAL_COLLECTION_SETTINGS_READ, requirePortalUser(), read(portal));
  handle(router, PORTAL_COLLECTION_SETTINGS_UPDATE, requirePortalUser(), update(portal));
}

/** Settings as a whole must hold together: two typos never from fewer letters than one. */
function checked(settings: CollectionSettings): CollectionSettings {
  const { min_word_size_one_typo: one, min_word_size_two_typos: two } = settings.typo_tolerance;
  if (two < one) {
    throw ERRORS.validation([
      {
        loc: ['body', 'typo_tolerance', 'min_word_size_two_typos'],
        msg: `Two typos cannot start before one: min_word_size_two_typos (${two}) must be at least min_word_size_one_typo (${one})`,
        type: 'value_error',
        input: two,
        ctx: {},
      },
    ]);
  }
  return settings;
}
