// Boundaries between workspace packages, checked on every `pnpm test` (see apps/trove/src/boundaries.test.ts).
// Only import rules: typing and style are the compiler's job, and a parser without type information keeps this fast.
import { readdirSync } from 'node:fs';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Every service, as the folders under services/ name them. */
const SERVICE = readdirSync(new URL('./services', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .join('|');

const serviceImport = {
  group: ['@trove/*-service'],
  message: 'Only apps/trove (the composition root) and tests import a service; share contracts through @trove/contracts.',
};
const crossServicePath = {
  regex: `^(\\.\\./)+((services/)?(${SERVICE})/(src|dist|test)|services)(/|$)`,
  message: 'A service never reaches into another service by path; share contracts through @trove/contracts.',
};
const testHarness = {
  group: ['@trove/testing'],
  message: '@trove/testing is the test harness (it reads process.env on import): tests and benches only.',
};

/** Tools, not shipped: tests and benches may start any service and use the test harness. */
const TESTS_AND_TOOLS = [
  '**/*.test.ts',
  '**/__tests__/**/*.ts',
  'services/*/test/**/*.ts',
  'services/*/bench/**/*.ts',
  'test-e2e/**/*.ts',
  'bench/**/*.ts',
  'packages/testing/**/*.ts',
];

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/dist-bench/',
      '**/*.{js,mjs,cjs}',
      // Files that break the rules on purpose, linted by boundaries.test.ts under the paths they pretend to have.
      'apps/trove/src/__tests__/fixtures/',
    ],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-imports': ['error', { patterns: [serviceImport, crossServicePath, testHarness] }],
      // require() would pass the import rule unseen.
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  {
    files: ['apps/trove/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [crossServicePath, testHarness] }] },
  },
  {
    // The web UI talks to Trove only as any program would: through @trove/client and the public API.
    files: ['apps/web/**/*.ts', 'apps/web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@trove/*', '!@trove/client'], message: 'The web UI uses the public API through @trove/client only.' }] },
      ],
    },
  },
  {
    // Tests start services together and share fixtures by path (test-e2e reads services/*/test/rules.ts).
    files: TESTS_AND_TOOLS,
    rules: { 'no-restricted-imports': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
