export { recordsModule } from './module';
// The records bench (bench/bulk-upsert.ts) composes the app from its services.
export { buildApp } from './app';
export { createServices } from './services';
export { describeRecord } from './records/description';
