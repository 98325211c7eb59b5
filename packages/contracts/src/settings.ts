import { z } from 'zod';

/**
 * A collection's search settings (docs/behaviour/search.md, "Settings"): synonyms, stop words, the searchable fields
 * and typo tolerance,
 * applied to every private search of the collection from the answer of the PATCH that sets them on, with no reindex.
 * Kept by the search service per tenant and collection name, so a blue-green replace (which keeps the name) keeps
 * them.
 */

export const SYNONYM_RULES_MAX = 1_000;
export const SYNONYM_TERMS_MAX = 50;
export const STOP_WORDS_MAX = 1_000;
/** The most fields `searchable_fields` and `typo_tolerance.disable_on_fields` name. */
export const SETTINGS_FIELDS_MAX = 50;
/** The defaults of typo tolerance, the rules typos.ts follows without settings. */
export const TYPO_DEFAULTS = { enabled: true, min_word_size_one_typo: 5, min_word_size_two_typos: 9 } as const;

const HAS_WORD = /[\p{L}\p{N}]/u;

/** A synonym term: one word or several ("m8 bolt"), matched as the words a query is read into. */
const synonymTerm = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((t) => HAS_WORD.test(t), { error: 'A synonym term needs a letter or a digit' });

const synonymGroup = z.array(synonymTerm).min(2).max(SYNONYM_TERMS_MAX);
const oneWaySynonym = z.strictObject({
  input: z.array(synonymTerm).min(1).max(SYNONYM_TERMS_MAX),
  synonyms: z.array(synonymTerm).min(1).max(SYNONYM_TERMS_MAX),
});

/**
 * A group of equivalent terms (each finds what any other would), or a one-way rule: a query holding one of `input`
 * also finds what `synonyms` would, not the other way round.
 */
const synonymRule = z.union([synonymGroup, oneWaySynonym], {
  error: (issue) =>
    Array.isArray(issue.input)
      ? issue.input.length < 2
        ? 'A synonym group needs at least two terms'
        : `A synonym group holds 2-${SYNONYM_TERMS_MAX} terms, each 1-100 characters with a letter or a digit`
      : `A synonym rule is a list of equivalent terms, or {input: [...], synonyms: [...]} (1-${SYNONYM_TERMS_MAX} terms each)`,
});

/**
 * A collection_data field, dotted for a nested one ("specs.material"), as filters and facets name them; it covers
 * everything below it (array elements, nested keys).
 */
const dataField = z
  .string()
  .min(1)
  .max(200)
  .refine((f) => f.split('.').every((part) => part.trim().length > 0), { error: 'A field is a collection_data key, dotted for a nested one ("specs.material")' });

/** A list of fields, each once. */
const fieldList = (of: z.ZodType<string>) =>
  z
    .array(of)
    .max(SETTINGS_FIELDS_MAX)
    .refine((fields) => new Set(fields).size === fields.length, { error: 'Each field once' });

const typoTolerance = z.strictObject({
  enabled: z.boolean().optional(),
  /** Query words of at least this many letters tolerate one typo (words of fewer than 4 never do). */
  min_word_size_one_typo: z.int().min(4).max(40).optional(),
  /** And of at least this many, two. */
  min_word_size_two_typos: z.int().min(4).max(40).optional(),
  /**
   * Fields where a word matches only as typed (part numbers, codes): `name`, `description`, or collection_data fields.
   * A collection_data field literally called "name" or "description" is named "collection_data.name".
   */
  disable_on_fields: fieldList(dataField).optional(),
});

/** PATCH's body: only the settings to change, each replaced whole (typo_tolerance's fields one by one). */
export const collectionSettingsPatch = z
  .strictObject({
    synonyms: z.array(synonymRule).max(SYNONYM_RULES_MAX).optional(),
    stop_words: z
      .array(z.string().trim().min(1).max(100).refine((w) => HAS_WORD.test(w), { error: 'A stop word needs a letter or a digit' }))
      .max(STOP_WORDS_MAX)
      .optional(),
    /**
     * The collection_data fields full text searches after name and description, in order of weight (the first weighs
     * most); the others are still stored, filtered, sorted and faceted, but no word of theirs finds a record. null:
     * every field (the default).
     */
    searchable_fields: fieldList(dataField).min(1).nullable().optional(),
    typo_tolerance: typoTolerance.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, { error: 'Give at least one setting: synonyms, stop_words, searchable_fields or typo_tolerance' });
export type CollectionSettingsPatch = z.output<typeof collectionSettingsPatch>;

/** Settings in full, as GET answers them and search applies them. */
export const collectionSettingsSchema = z.object({
  synonyms: z.array(z.union([z.array(z.string()), z.object({ input: z.array(z.string()), synonyms: z.array(z.string()) })])),
  stop_words: z.array(z.string()),
  searchable_fields: z.array(z.string()).nullable(),
  typo_tolerance: z.object({
    enabled: z.boolean(),
    min_word_size_one_typo: z.number().int(),
    min_word_size_two_typos: z.number().int(),
    disable_on_fields: z.array(z.string()),
  }),
});
export type CollectionSettings = z.infer<typeof collectionSettingsSchema>;

export const DEFAULT_SETTINGS: CollectionSettings = {
  synonyms: [],
  stop_words: [],
  searchable_fields: null,
  typo_tolerance: { ...TYPO_DEFAULTS, disable_on_fields: [] },
};

/** Settings as stored (perhaps before a setting existed) in full: each setting absent takes its default. */
export function withDefaults(stored: Partial<CollectionSettings>): CollectionSettings {
  return { ...DEFAULT_SETTINGS, ...stored, typo_tolerance: { ...DEFAULT_SETTINGS.typo_tolerance, ...stored.typo_tolerance } };
}

/** A collection's settings with their version: 0 and the defaults until a PATCH, then one more on each PATCH. */
export const collectionSettingsAnswer = z.object({
  collection: z.string(),
  version: z.number().int(),
  settings: collectionSettingsSchema,
  updated_at: z.string().nullable(),
});
export type CollectionSettingsAnswer = z.infer<typeof collectionSettingsAnswer>;

/** The settings after a PATCH: each setting given replaces the one held; typo tolerance's fields one by one. */
export function patchedSettings(held: CollectionSettings, patch: CollectionSettingsPatch): CollectionSettings {
  return {
    synonyms: patch.synonyms ?? held.synonyms,
    stop_words: patch.stop_words ?? held.stop_words,
    searchable_fields: patch.searchable_fields === undefined ? held.searchable_fields : patch.searchable_fields,
    typo_tolerance: { ...held.typo_tolerance, ...patch.typo_tolerance },
  };
}
