import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** The most JavaScript the first screen may load, gzipped (issue 30: a phone on a slow network). */
const FIRST_SCREEN_BUDGET = 300 * 1024;

/**
 * Measures the JavaScript the page loads before its first screen shows (the entry chunk and what it imports
 * statically), gzipped, prints it, and fails the build above the budget.
 */
function firstScreenBudget(): Plugin {
  return {
    name: 'trove-first-screen-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(Object.values(bundle).flatMap((o) => (o.type === 'chunk' ? [[o.fileName, o] as const] : [])));
      const seen = new Set<string>();
      const visit = (name: string) => {
        if (seen.has(name)) return;
        seen.add(name);
        for (const imported of chunks.get(name)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);
      const bytes = [...seen].reduce((sum, name) => sum + gzipSync(chunks.get(name)!.code).length, 0);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      this.info(`first screen: ${kb(bytes)} of JavaScript gzipped (budget ${kb(FIRST_SCREEN_BUDGET)})`);
      if (bytes > FIRST_SCREEN_BUDGET) this.error(`the first screen loads ${kb(bytes)} of JavaScript gzipped, over its budget of ${kb(FIRST_SCREEN_BUDGET)}`);
    },
  };
}

/**
 * The UI's build: one page whose files go under /assets, named by their content's hash (the gateway caches them for
 * good). Nothing inline, so the page runs under a CSP of script-src 'self' and style-src 'self'.
 */
export default defineConfig({
  base: '/',
  plugins: [firstScreenBudget()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
