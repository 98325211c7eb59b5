export { recordsModule } from './module';
export { migrations as recordsMigrations } from './migrations';
export { RecordsService, type BulkUpsertInput, type BulkUpsertOutcome } from './records-service';
export { buildApp } from './app';
export { describeRecord } from './domain/description';
export { INDEXING_STATUS_GROUP } from './consumers/indexing-status';
