import { parse } from 'pg-connection-string';
import type { ConnectorType } from '../store/schema';
import { mongoHosts } from '../sources/mongodb';
import type { ConnectionConfig } from './connector-input';

/** The hosts connection settings name, as written (names and literal addresses alike). */
export function hostsOf(type: ConnectorType, config: ConnectionConfig): string[] {
  const c = config as Record<string, string>;
  try {
    switch (type) {
      case 'postgresql':
        return [parse(c.dsn!).host ?? 'localhost'];
      case 'mysql':
        return [c.host!];
      case 'mongodb':
        return mongoHosts(c.uri!).hosts;
      case 'neo4j':
        return [new URL(c.uri!).hostname];
    }
  } catch {
    return [];
  }
}
