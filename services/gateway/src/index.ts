export { gatewayModule } from './module';
export { ROUTES, matchRoute, upstreamPath } from './domain/route-table';
// The limiter's benchmark (bench/src/limiter.ts) measures the path every request takes.
export { TenantLimits } from './tenant-limits';
export { limitClassOf } from './domain/limits';
