export { recordsModule } from './module';
export { RecordsService } from './records-service';
export { PortalService } from './portal-service';
export { ReplaceService } from './replace-service';
export { AdminService } from './admin-service';
export { buildApp } from './app';
export { describeRecord } from './domain/description';
