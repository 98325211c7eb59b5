/** The URL as it may appear in logs and errors: the password, if any, replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Unparseable, so the password cannot be found in it; say nothing of it at all.
    return '(an unparseable URL)';
  }
}

/** A message with the URL's password removed, for errors whose text we do not control. */
export function scrubSecret(message: string, url: string): string {
  let password: string | undefined;
  try {
    password = new URL(url).password || undefined;
  } catch {
    return message;
  }
  if (!password) return message;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not valid percent-encoding; the password is then used as written.
  }
  return message.split(password).join('***').split(decoded).join('***');
}
