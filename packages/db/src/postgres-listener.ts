import pg from 'pg';

const LISTEN_RECONNECT_MS = 1_000;

/**
 * One dedicated connection holds every LISTEN of the process. When it drops it reconnects and listens again on every
 * channel, so subscribers keep their wake-ups across a database restart instead of silently falling back to polling.
 */
export class PostgresListener {
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private current?: { client: pg.Client; channels: Set<string> };
  private connecting?: Promise<{ client: pg.Client; channels: Set<string> }>;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly onError?: (err: Error) => void,
  ) {}

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('Database is closed');
    const set = this.listeners.get(channel) ?? new Set();
    this.listeners.set(channel, set);
    set.add(onNotify);
    try {
      const conn = await this.connect();
      if (!conn.channels.has(channel)) {
        await conn.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        conn.channels.add(channel);
      }
    } catch (err) {
      set.delete(onNotify);
      throw err;
    }
    return async () => {
      set.delete(onNotify);
    };
  }

  private connect(): Promise<{ client: pg.Client; channels: Set<string> }> {
    if (this.current) return Promise.resolve(this.current);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<{ client: pg.Client; channels: Set<string> }> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'trove-listen' });
    client.on('notification', (msg) => {
      for (const fn of this.listeners.get(msg.channel) ?? []) fn(msg.payload ?? '');
    });
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      if (err) this.onError?.(err);
      if (this.current?.client === client) this.current = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', drop);
    client.on('end', () => drop());
    try {
      await client.connect();
      const channels = new Set<string>();
      for (const channel of this.listeners.keys()) {
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        channels.add(channel);
      }
      if (this.closed) throw new Error('Database is closed');
      this.current = { client, channels };
      return this.current;
    } catch (err) {
      dropped = true;
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.listeners.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((err: Error) => {
        this.onError?.(err);
        this.scheduleReconnect();
      });
    }, LISTEN_RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.connecting?.catch(() => undefined);
    const client = this.current?.client;
    this.current = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
