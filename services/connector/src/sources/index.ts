import type { ConnectionConfig } from '../domain/connector-input';
import type { DnsResolver } from '../net/address-guard';
import type { ConnectorType } from '../store/schema';
import { mongodbPages, type MongoClientFactory } from './mongodb';
import { mysqlPages } from './mysql';
import { neo4jPages, type Neo4jDriverFactory } from './neo4j';
import { postgresqlPages } from './postgresql';
import type { Pages, PullOptions } from './types';

export type { Pages, PullOptions, Row } from './types';

/** Opens a connector's source; the settings were checked by connector type when the connector was created. */
export type OpenSource = (type: ConnectorType, config: ConnectionConfig, query: string, opts: PullOptions) => Pages;

/**
 * The real drivers and DNS; tests may stand in for the MongoDB and Neo4j drivers, whose servers cannot run here, and
 * for the DNS records a mongodb+srv:// URI is resolved through in cloud mode.
 */
export function sourceOpener(drivers: { mongodb?: MongoClientFactory; neo4j?: Neo4jDriverFactory; dns?: DnsResolver } = {}): OpenSource {
  return (type, config, query, opts) => {
    const settings = config as never;
    switch (type) {
      case 'postgresql':
        return postgresqlPages(settings, query, opts);
      case 'mysql':
        return mysqlPages(settings, query, opts);
      case 'mongodb':
        return mongodbPages(settings, query, opts, drivers.mongodb, drivers.dns);
      case 'neo4j':
        return neo4jPages(settings, query, opts, drivers.neo4j);
    }
  };
}
