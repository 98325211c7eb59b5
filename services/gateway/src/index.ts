export { gatewayModule } from './module';
export { ROUTES, matchRoute, upstreamPath, type Route, type Access } from './domain/route-table';
export { VERSIONED_ALIASES } from './routes/health';
// The limiter's benchmark (bench/src/limiter.ts) measures the path every request takes.
export { TenantLimits } from './tenant-limits';
export { limitClassOf } from './domain/limits';
