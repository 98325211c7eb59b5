/**
 * What PostgreSQL can store: text, json and jsonb refuse NUL characters and unpaired UTF-16 surrogates (a string cut
 * in the middle of an emoji). Records refuses such input (422), ingestion finds it first to reject only the record
 * that carries it, and search cleans what reaches it; all by these rules.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
/** A plain scan for the characters UNSTORABLE looks at: most text has none, and then the costlier test is skipped. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

/** How deep collection_data may nest (the object itself is level 1). */
export const COLLECTION_DATA_MAX_DEPTH = 32;

export function isStorableText(text: string): boolean {
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

/** The text with each NUL character and unpaired surrogate replaced by what `replacement` gives for it. */
export function replaceUnstorable(text: string, replacement: (character: string) => string): string {
  return isStorableText(text) ? text : text.replace(UNSTORABLE_ALL, replacement);
}
