import { createLogger } from './logger';

/** A logger of `format` whose lines the test reads. */
function logged(format: 'json' | 'pretty') {
  let out = '';
  const logger = createLogger({ name: 'trove', format, destination: { write: (line: string) => (out += line) } });
  return { logger, out: () => out };
}

describe('createLogger', () => {
  it('writes one JSON object per line by default', () => {
    const { logger, out } = logged('json');
    logger.info({ ports: { gateway: 8080 } }, 'Trove is up');
    logger.child({ requestId: 'r1' }).warn('slow');

    const lines = out().trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, name: 'trove', msg: 'Trove is up', ports: { gateway: 8080 }, time: expect.any(String) }),
      expect.objectContaining({ level: 40, requestId: 'r1', msg: 'slow' }),
    ]);
  });

  it('writes text lines in the pretty format: time, level, name, message, then the fields', () => {
    const { logger, out } = logged('pretty');
    logger.info({ ports: { gateway: 8080 } }, 'Trove is up');

    // Colours only on a terminal (and when FORCE_COLOR says so): the text is the same without them.
    const text = out().replace(/\x1b\[[0-9;]*m/g, '');
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(trove\): Trove is up \{"ports":\{"gateway":8080\}\}\n$/);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('redacts secrets in either format', () => {
    for (const format of ['json', 'pretty'] as const) {
      const { logger, out } = logged(format);
      logger.info({ key: 'sk_live_secret', req: { headers: { authorization: 'Bearer sk_live_secret' } }, connection_config: { password: 'hunter2' } }, 'called');
      expect(out()).not.toContain('sk_live_secret');
      expect(out()).not.toContain('hunter2');
      expect(out()).toContain('***REDACTED***');
    }
  });
});
