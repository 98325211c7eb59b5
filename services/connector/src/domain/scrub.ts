/** What a message shows in place of a credential. */
const MASK = '***';
/** A message handed to a caller or a log is cut at this length. */
const MESSAGE_MAX = 500;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Settings that name where the data is rather than who may read it: a message may show them. */
const NOT_SECRET = new Set(['host', 'port', 'database', 'collection']);

/**
 * Every text in connection settings that must never appear in a message: each string value (DSN, URI, password,
 * user) but the host, database and collection names, and the user and password inside a URI's userinfo, as written
 * and percent-decoded.
 */
export function secretsOf(config: Record<string, unknown>): string[] {
  const found = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'string' || value.length === 0 || NOT_SECRET.has(key)) continue;
    found.add(value);
    const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(value)?.[1];
    if (userinfo) {
      for (const part of [userinfo, ...userinfo.split(':')]) {
        if (part) {
          found.add(part);
          found.add(decoded(part));
        }
      }
    }
  }
  // Longest first, so a DSN is masked whole before the password inside it.
  return [...found].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
}

/**
 * A driver's error message made safe to show and log: every secret of the settings masked, any URI's userinfo and
 * any `password=` pair masked whatever they hold, and the whole cut to MESSAGE_MAX characters.
 */
export function scrub(message: string, secrets: readonly string[]): string {
  let text = message;
  for (const secret of secrets) text = text.split(secret).join(MASK);
  text = text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^@\s/?#'"]*@/gi, `$1${MASK}@`)
    .replace(/(password|passwd|pwd)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s;&,]+)/gi, `$1$2${MASK}`);
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX)}…` : text;
}
