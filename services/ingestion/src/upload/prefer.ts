import type { Request } from '../http';

/** RFC 9110's token characters: a preference's name, and an unquoted value, are tokens. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Splits on `separator` outside quoted strings (a quoted value may hold commas and semicolons). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/**
 * The preferences a request states in its Prefer headers (RFC 7240 section 2), by lower-cased name, each with its value
 * ('' when it has none; a quoted value unquoted); parameters are left out. A preference written more than once counts
 * as first written; one that does not parse (a name that is no token) is ignored, as the RFC asks of a server that
 * does not understand a preference.
 */
export function preferencesOf(header: string | string[] | undefined): Map<string, string> {
  const found = new Map<string, string>();
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const preference of splitOutsideQuotes(text, ',')) {
    const [head = ''] = splitOutsideQuotes(preference, ';');
    const eq = head.indexOf('=');
    const name = (eq === -1 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (!TOKEN.test(name) || found.has(name)) continue;
    let value = eq === -1 ? '' : head.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    else if (value !== '' && !TOKEN.test(value)) continue;
    found.set(name, value);
  }
  return found;
}

/**
 * Whether the request asks for an asynchronous answer: `Prefer: respond-async` (RFC 7240 section 4.1), which takes no
 * value (an empty one is the same as none). Any other preference, or a malformed header, leaves the answer as it is.
 */
export function prefersAsync(req: Pick<Request, 'headers'>): boolean {
  return preferencesOf(req.headers.prefer).get('respond-async') === '';
}
