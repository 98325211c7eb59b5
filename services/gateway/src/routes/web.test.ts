import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { webRoutes } from './web';

function appServing(folder: string) {
  const app = express();
  const router = express.Router();
  webRoutes(router, folder);
  app.use(router);
  return app;
}

describe("the web UI's pages and files", () => {
  let build: string;
  beforeAll(() => {
    build = mkdtempSync(join(tmpdir(), 'trove-web-'));
    mkdirSync(join(build, 'assets'));
    writeFileSync(join(build, 'index.html'), '<!doctype html><script type="module" src="/assets/index-abc.js"></script>');
    writeFileSync(join(build, 'assets', 'index-abc.js'), 'console.log("ui")');
    writeFileSync(join(build, 'assets', 'notes.txt'), 'not served');
  });
  afterAll(() => rmSync(build, { recursive: true, force: true }));

  it('answers the same page at / and at every screen, under a policy of scripts from this origin only', async () => {
    const app = appServing(build);
    for (const path of ['/', '/app/keys', '/app/collections/fasteners']) {
      const res = await request(app).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self';");
      expect(res.text).toContain('/assets/index-abc.js');
    }
  });

  it('serves its scripts for good, and no other file', async () => {
    const app = appServing(build);
    const res = await request(app).get('/assets/index-abc.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');
    expect((await request(app).get('/assets/notes.txt')).status).toBe(404);
    expect((await request(app).get('/assets/missing.js')).status).toBe(404);
  });

  it('says the UI was not built, with 503, when the build is missing', async () => {
    const res = await request(appServing(join(build, 'nothing'))).get('/app/keys');
    expect(res.status).toBe(503);
    expect(res.text).toContain('The web UI was not built');
  });
});
