export { authModule } from './module';
export { createTenantWithAdminKey, type BootstrapResult } from './bootstrap';
