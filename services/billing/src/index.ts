export { billingModule } from './module';
export { setPlanCommand } from './set-plan';
export { setTenantPlan, type PlanChange, type TenantPlan } from './store/plans';
