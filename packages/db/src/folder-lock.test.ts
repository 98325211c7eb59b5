import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './factory';
import { DataFolderLockedError } from './folder-lock';

jest.setTimeout(60_000);

/**
 * Another process that opens the embedded database in `dataDir` through this package's sources (compiled on load by
 * swc, as jest does here), says `open`, and then either holds it or, told `close` on stdin, closes it, says `closed`
 * and stays alive.
 */
const OTHER_PROCESS = `
const { transformFileSync } = require('@swc/core');
require.extensions['.ts'] = (module, file) =>
  module._compile(transformFileSync(file, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code, file);
const { openDatabase } = require(${JSON.stringify(join(__dirname, 'factory.ts'))});
openDatabase({ dataDir: process.argv[1] }).then(async (database) => {
  await database.ping();
  process.stdout.write('open\\n');
  process.stdin.on('data', async () => {
    await database.close();
    process.stdout.write('closed\\n');
  });
});
`;

interface Other {
  child: ChildProcess;
  /** Resolves when the process has written `line`; rejects if it exits first. */
  said(line: string): Promise<void>;
  exited: Promise<unknown>;
}

function otherProcess(dataDir: string): Other {
  const child = spawn(process.execPath, ['-e', OTHER_PROCESS, dataDir], { cwd: __dirname, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((res) => child.once('exit', res));
  const said = async (line: string) => {
    for (;;) {
      if (out.split('\n').includes(line)) return;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the other process exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, said, exited };
}

describe('the embedded database data folder lock', () => {
  let dataDir: string;
  const others: Other[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'trove-lock-'));
  });
  afterEach(async () => {
    for (const o of others.splice(0)) {
      o.child.kill('SIGKILL');
      await o.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses to open a folder another live process has open, naming that process", async () => {
    const other = otherProcess(dataDir);
    others.push(other);
    await other.said('open');

    const opening = openDatabase({ dataDir });

    await expect(opening).rejects.toBeInstanceOf(DataFolderLockedError);
    await expect(opening).rejects.toThrow(`in use by process ${other.child.pid} `);
  });

  it('refuses a second open of the same folder in one process until the first is closed', async () => {
    const first = await openDatabase({ dataDir });
    try {
      await expect(openDatabase({ dataDir })).rejects.toThrow(`in use by process ${process.pid} `);
    } finally {
      await first.close();
    }
    const second = await openDatabase({ dataDir });
    await second.close();
  });

  it('takes over at once the lock of a process that was killed with the folder open', async () => {
    const other = otherProcess(dataDir);
    await other.said('open');
    other.child.kill('SIGKILL');
    await other.exited;

    const started = Date.now();
    const database = await openDatabase({ dataDir });
    try {
      await database.ping();
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await database.close();
    }
  });

  it('lets another process open the folder once the holder has closed it, while the holder still runs', async () => {
    const other = otherProcess(dataDir);
    others.push(other);
    await other.said('open');
    other.child.stdin!.write('close\n');
    await other.said('closed');

    const database = await openDatabase({ dataDir });
    await database.ping();
    await database.close();
  });
});
