export { authModule } from './module';
export { createTenantWithAdminKey } from './bootstrap';
