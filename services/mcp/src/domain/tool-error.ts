/** A failure the calling model can act on; its message becomes the text of an `isError` tool result. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** The detail of an upstream error body as one line: a string detail as is, a 422 list as `field: message; …`. */
export function detailText(body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => {
      const issue = d as { loc?: unknown; msg?: unknown };
      const loc = Array.isArray(issue.loc) ? issue.loc.slice(1).map(String).join('.') : '';
      const msg = typeof issue.msg === 'string' ? issue.msg : 'invalid';
      return loc ? `${loc}: ${msg}` : msg;
    });
    if (parts.length > 0) return parts.join('; ');
  }
  return 'no detail given';
}
