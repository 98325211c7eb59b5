export { billingModule } from './module';
export { setPlanCommand, setPlanRequest } from './set-plan';
export { setTenantPlan, type PlanChange, type TenantPlan } from './store/plans';
