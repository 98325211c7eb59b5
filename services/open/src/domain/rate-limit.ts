// The gateway limits tenants with the same answer; it lives once in the platform.
export { decide } from '@trove/platform';

// Auth limits portal logins per client address the same way; the rules live once in the platform.
export { clientKey, trustProxySetting } from '@trove/platform';
