/**
 * The test harness: fresh databases on the test server, one service module started as a test would use it
 * (startTestService), or several wired together as a system (startTestSystem).
 * Test-only: it reads process.env (TEST_DATABASE_URL, TEST_LOG_LEVEL) on import, so only tests and benches
 * depend on it, never a production package.
 */
export { TEST_SERVER_URL, createTestDatabase, type TestDatabase } from './database';
export { startTestService, testConfig, type TestService } from './service';
export { testClient, type TestClient } from './client';
export { startTestSystem, type TestSystem } from './system';
export { collectEvents, eventually, type CollectedEvents } from './events';
