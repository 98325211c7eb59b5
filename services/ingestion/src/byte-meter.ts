import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** Counts and hashes the bytes that pass, and fails with `tooLarge` as soon as there are more than the limit. */
export class ByteMeter extends Transform {
  private bytes = 0;
  private readonly sha: Hash = createHash('sha256');

  constructor(
    private readonly maxBytes: number,
    private readonly tooLarge: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return cb(this.tooLarge());
    this.sha.update(chunk);
    cb(null, chunk);
  }

  /** `sha256:<hex>` of the bytes that passed; call once, after the end. */
  digest(): string {
    return `sha256:${this.sha.digest('hex')}`;
  }
}

export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}
