export { billingModule } from './module';
export { setPlanCommand, setPlanRequest } from './set-plan';
export { setTenantPlan } from './store/plans';
