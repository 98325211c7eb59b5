import { spawnSync } from 'node:child_process';
import { isRunning } from './process';

describe('whether a pid runs', () => {
  it('knows this process runs and an exited one does not', () => {
    expect(isRunning(process.pid)).toBe(true);
    expect(isRunning(spawnSync(process.execPath, ['-e', '']).pid!)).toBe(false);
  });
});
