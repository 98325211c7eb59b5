import type { Logger } from '@trove/platform';
import type { Cache, Hit, HitCount } from './port';

/**
 * Counting that fails open: while the counter store cannot be reached, `hitAll` answers undefined instead of failing,
 * so the limit it serves lets requests pass rather than refusing every one. The log says so once when the store goes
 * away and once when it is back, not once per request.
 */
export class FailOpenCounts {
  private down = false;

  constructor(
    private readonly cache: Pick<Cache, 'hitAll'>,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
    /** What the counters are (`tenant rate limit counters`). */
    private readonly what: string,
    /** What happens meanwhile (`requests pass unlimited`). */
    private readonly meanwhile: string,
  ) {}

  async hitAll(hits: readonly Hit[]): Promise<HitCount[] | undefined> {
    try {
      const counted = await this.cache.hitAll(hits);
      if (this.down) {
        this.down = false;
        this.logger.info(`${this.what} are reachable again`);
      }
      return counted;
    } catch (err) {
      if (!this.down) {
        this.down = true;
        this.logger.warn({ reason: (err as Error).message }, `${this.what} unavailable; ${this.meanwhile} until they are back`);
      }
      return undefined;
    }
  }
}
