import { ERRORS } from '@trove/platform';

/** What the writes that address records by id share: the ids they lock, and the errors they answer. */

/** The ids once each, as the database compares UUIDs (case-insensitively). */
export function unique(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

export function notFound(id: string) {
  return ERRORS.notFound(`Record ${id} not found`);
}

export function archived(id: string) {
  return ERRORS.conflict(`Record ${id} is archived and cannot be changed`);
}
