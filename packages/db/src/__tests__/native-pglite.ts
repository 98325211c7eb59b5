import nodeModule from 'node:module';

type NodeModuleClass = {
  new (id: string): { filename: string; paths: string[]; require(id: string): unknown };
  _nodeModulePaths(dir: string): string[];
};

/**
 * PGlite reads its WASM and data files through dynamic import(), which jest's module sandbox refuses unless node runs
 * with --experimental-vm-modules. Test files that open PGlite swap the package for this copy, loaded by Node's own
 * loader (jest's stand-in for `node:module` subclasses the real Module class):
 *
 *   jest.mock('@electric-sql/pglite', () => jest.requireActual('<path to this file>').loadPGliteNatively());
 */
export function loadPGliteNatively(): unknown {
  const Module = nodeModule as unknown as NodeModuleClass;
  const parent = new Module(__filename);
  parent.filename = __filename;
  parent.paths = Module._nodeModulePaths(__dirname);
  return parent.require('@electric-sql/pglite');
}
