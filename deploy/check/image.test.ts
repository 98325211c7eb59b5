import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Arg,
  Copy,
  DockerfileParser,
  Env,
  From,
  Healthcheck,
  type Instruction,
  JSONInstruction,
  Label,
  Run,
  User,
  Volume,
} from 'dockerfile-ast';
import semver from 'semver';
import { parse } from 'yaml';

/**
 * deploy/Dockerfile and the .dockerignore beside the build context, checked without a Docker daemon (none runs on
 * CI's machine): the Dockerfile as dockerfile-ast parses it, the Node of its base image against every engines.node
 * range in pnpm-lock.yaml, and the ignore file by Docker's matching rules. Each rule is shown failing on a fixture
 * under fixtures/image-*, with its message.
 */

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(__dirname, 'fixtures');

interface Stage {
  name?: string;
  /** The image or earlier stage it starts from, its build arguments resolved. */
  from: string;
  instructions: Instruction[];
}

/** Replaces ${NAME}, ${NAME:-default} and $NAME with the values given (the global ARGs a FROM may use). */
function substitute(text: string, values: Map<string, string>): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, name?: string, fallback?: string, bare?: string) => {
      const key = name ?? bare ?? '';
      return values.get(key) || fallback || '';
    },
  );
}

/** A property's value without the quotes Dockerfiles allow around it (LABEL a="b", ENV a='b'). */
function unquote(value: string | null): string {
  return (value ?? '').replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
}

function stagesOf(text: string): Stage[] {
  const dockerfile = DockerfileParser.parse(text);
  const globals = new Map<string, string>();
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property) globals.set(property.getName(), unquote(property.getUnescapedValue()));
  }
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction instanceof From) {
      stages.push({
        name: instruction.getBuildStage() ?? undefined,
        from: substitute(instruction.getImage() ?? '', globals),
        instructions: [],
      });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

/** The stage and the earlier stages it builds on, oldest first: what its image inherits. */
function lineage(stages: Stage[], stage: Stage): Stage[] {
  const parent = stages.find((s) => s.name && s.name === stage.from && s !== stage);
  return parent ? [...lineage(stages, parent), stage] : [stage];
}

function jsonValues(instruction: Instruction): string[] | undefined {
  if (!(instruction instanceof JSONInstruction)) return undefined;
  const strings = instruction.getJSONStrings();
  return strings.length > 0 ? strings.map((s) => s.getJSONValue()) : undefined;
}

/** Every engines.node range of the locked packages, by package. */
function engineRanges(lockfile: string): [string, string][] {
  const lock = parse(lockfile) as { packages?: Record<string, { engines?: { node?: string } }> };
  return Object.entries(lock.packages ?? {}).flatMap(([name, meta]) =>
    meta.engines?.node ? [[name, meta.engines.node] as [string, string]] : [],
  );
}

/** The lowest Node version a node image tag can hold (24.19-slim: 24.19.0; 24-slim: 24.0.0), or undefined. */
function nodeVersionOf(image: string): string | undefined {
  const slash = image.lastIndexOf('/');
  const [name, tag = ''] = image
    .slice(slash + 1)
    .split('@')[0]
    .split(':');
  if (name !== 'node') return undefined;
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-|$)/.exec(tag);
  return m ? `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}` : '';
}

function nodeProblems(stages: Stage[], lockfile: string): string[] {
  const problems: string[] = [];
  const ranges = engineRanges(lockfile);
  // Each base image once: the build runs the dev tools on it and the final stage the service.
  for (const image of new Set(stages.filter((s) => !stages.some((o) => o.name === s.from)).map((s) => s.from))) {
    const version = nodeVersionOf(image);
    if (version === undefined) continue;
    if (version === '') {
      problems.push(`base image ${image} names no Node version: pin one (node:24.19-trixie-slim), so the engines check means something`);
      continue;
    }
    if (semver.major(version) % 2 !== 0)
      problems.push(`base image ${image} is Node ${semver.major(version)}, not an LTS line (even majors are)`);
    const outside = ranges.filter(([, range]) => !semver.validRange(range) || !semver.satisfies(version, range));
    if (outside.length > 0)
      problems.push(
        `base image ${image} (Node ${version}) is outside the engines.node of ${outside.length} locked package(s): ${outside.map(([name, range]) => `${name} (${range})`).join(', ')}`,
      );
  }
  if (!stages.some((s) => nodeVersionOf(s.from) !== undefined)) problems.push('no stage is based on a node image');
  return problems;
}

function finalStageProblems(stages: Stage[]): string[] {
  const problems: string[] = [];
  const final = stages.at(-1);
  if (!final) return ['no FROM: not a Dockerfile'];
  if (stages.length < 2)
    problems.push(
      'one stage only: build in one stage and copy the result into a clean final one, so compilers and dev dependencies stay out of the image',
    );
  const inherited = lineage(stages, final).flatMap((s) => s.instructions);
  const last = <T extends Instruction>(kind: abstract new (...args: never[]) => T) =>
    inherited.filter((i): i is T => i instanceof kind).at(-1);

  const user = last(User)?.getArguments()[0]?.getValue().split(':')[0];
  if (!user || user === 'root' || user === '0')
    problems.push('the final stage runs as root: end with USER and a numeric non-root user (USER 1000:1000)');
  else if (!/^\d+$/.test(user))
    problems.push(`USER ${user} is a name: give its number, as Kubernetes' runAsNonRoot can only verify a numeric user`);

  const healthcheck = last(Healthcheck);
  if (!healthcheck || healthcheck.getSubcommand()?.getValue().toUpperCase() !== 'CMD') problems.push('the final stage has no HEALTHCHECK');

  const versionLabel = inherited
    .filter((i): i is Label => i instanceof Label)
    .flatMap((label) => label.getProperties().map((p) => ({ label, name: p.getName(), value: unquote(p.getUnescapedValue()) })))
    .filter((p) => p.name === 'org.opencontainers.image.version')
    .at(-1);
  if (!versionLabel) problems.push('no org.opencontainers.image.version label: label the image with its version, from a build argument');
  else {
    const variable = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/.exec(versionLabel.value)?.[1];
    const stageOfLabel = lineage(stages, final).find((s) => s.instructions.includes(versionLabel.label));
    const declared = stageOfLabel?.instructions
      .slice(0, stageOfLabel.instructions.indexOf(versionLabel.label))
      .some((i) => i instanceof Arg && i.getProperty()?.getName() === variable);
    if (!variable) problems.push(`the version label is fixed text (${versionLabel.value}): take it from a build argument (ARG VERSION)`);
    else if (!declared)
      problems.push(
        `the version label uses \${${variable}}, which no ARG of its stage declares before it (a build argument is in scope only in the stage that declares it)`,
      );
  }

  const entrypoint = inherited.filter((i) => i.getKeyword() === 'ENTRYPOINT').at(-1);
  const entry = entrypoint ? jsonValues(entrypoint) : undefined;
  if (!entrypoint) problems.push('no ENTRYPOINT: the launcher (apps/trove/dist/main.js) should be one, so any --target can be passed');
  else if (!entry) problems.push('ENTRYPOINT is in shell form: use the exec form (JSON), so node is PID 1 and receives SIGTERM itself');
  else if (!entry.some((arg) => arg.endsWith('apps/trove/dist/main.js')))
    problems.push(`ENTRYPOINT ${JSON.stringify(entry)} does not run the launcher apps/trove/dist/main.js`);
  const cmd = inherited.filter((i) => i.getKeyword() === 'CMD').at(-1);
  if (!cmd || JSON.stringify(jsonValues(cmd)) !== JSON.stringify(['--target=all']))
    problems.push('CMD is not ["--target=all"]: the whole system by default, --target=<service> in its place for one');

  // Only what `pnpm deploy --prod` made may reach the final stage: the production dependencies, not the build's.
  const copiedStages = final.instructions
    .filter((i): i is Copy => i instanceof Copy)
    .map((copy) => copy.getFromFlag()?.getValue())
    .flatMap((name) => stages.filter((s) => s.name === name));
  const deploysProd = copiedStages.some((stage) =>
    lineage(stages, stage)
      .flatMap((s) => s.instructions)
      .some((i) => i instanceof Run && /\bdeploy\b/.test(i.getArgumentsContent() ?? '') && /--prod\b/.test(i.getArgumentsContent() ?? '')),
  );
  if (!deploysProd)
    problems.push('the final stage copies from no stage that runs `pnpm deploy --prod`: only production dependencies belong in the image');

  // With a read-only root filesystem the volumes are the only writable paths.
  const volumes = inherited
    .filter((i): i is Volume => i instanceof Volume)
    .flatMap((v) => jsonValues(v) ?? v.getArguments().map((a) => a.getValue()));
  const env = new Map(
    inherited
      .filter((i): i is Env => i instanceof Env)
      .flatMap((e) => e.getProperties().map((p) => [p.getName(), unquote(p.getUnescapedValue())] as const)),
  );
  for (const [variable, why] of [
    ['DATA_DIR', 'the embedded database'],
    ['TMPDIR', "uploads' temporary files"],
  ] as const) {
    const path = env.get(variable);
    if (!path)
      problems.push(`${variable} is not set in the final stage: point it at a VOLUME (${why} must be writable on a read-only root)`);
    else if (!volumes.some((v) => path === v || path.startsWith(`${v.replace(/\/$/, '')}/`)))
      problems.push(`${variable}=${path} is on no VOLUME: ${why} must be writable on a read-only root filesystem`);
  }
  return problems;
}

/** Docker's .dockerignore matching (moby/patternmatcher): the last pattern that matches a path or a folder above it decides. */
function ignoredBy(dockerignore: string): (path: string) => boolean {
  const patterns = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      let source = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === '*' && pattern[i + 1] === '*') {
          source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
          i += pattern[i + 2] === '/' ? 2 : 1;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '[^/]';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  return (path) => {
    const parts = path.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const { negated, regex } of patterns) if (candidates.some((c) => regex.test(c))) ignored = !negated;
    return ignored;
  };
}

/** Paths of this repository the context must leave out, and why. */
const MUST_IGNORE: [string, string][] = [
  ['node_modules/jest/package.json', 'dependencies are installed from the lockfile'],
  ['services/search/node_modules/.bin/tsc', 'dependencies are installed from the lockfile'],
  ['packages/db/dist/index.js', 'build output is made by the build'],
  ['apps/web/dist/index.html', 'build output is made by the build'],
  ['apps/trove/tsconfig.tsbuildinfo', 'build output is made by the build'],
  ['.git/HEAD', 'history is not needed'],
  ['coverage/lcov.info', 'test output'],
  ['test-e2e/screenshots/portal.png', 'test output'],
  ['.env', 'secrets'],
  ['deploy/.env', 'secrets'],
];
/** Paths the build needs. */
const MUST_KEEP = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'apps/trove/src/main.ts',
  'apps/web/index.html',
  'packages/db/worker/pglite.cjs',
];

function dockerignoreProblems(dockerignore: string | undefined): string[] {
  if (dockerignore === undefined)
    return ['no .dockerignore: the whole folder, node_modules and .env included, is sent as the build context'];
  const ignored = ignoredBy(dockerignore);
  return [
    ...MUST_IGNORE.filter(([path]) => !ignored(path)).map(([path, why]) => `.dockerignore lets ${path} into the context (${why})`),
    ...MUST_KEEP.filter((path) => ignored(path)).map((path) => `.dockerignore leaves out ${path}, which the build needs`),
  ];
}

function checkImage(dir: string, lockfile: string): string[] {
  const stages = stagesOf(readFileSync(join(dir, 'Dockerfile'), 'utf8'));
  const ignorePath = join(dir, '.dockerignore');
  return [
    ...finalStageProblems(stages),
    ...nodeProblems(stages, lockfile),
    ...dockerignoreProblems(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : undefined),
  ];
}

const LOCKFILE = readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8');

describe('deploy/Dockerfile and .dockerignore', () => {
  test('pass every check', () => {
    const stages = stagesOf(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8'));
    expect([
      ...finalStageProblems(stages),
      ...nodeProblems(stages, LOCKFILE),
      ...dockerignoreProblems(readFileSync(join(ROOT, '.dockerignore'), 'utf8')),
    ]).toEqual([]);
  });
});

/**
 * The fixtures' lockfile: one package that needs Node 20.19 or later (as mongodb does) and one that stops at Node 24
 * (as opossum does), so a fixture's Node version fails for a reason the test names.
 */
const FIXTURE_LOCKFILE = `lockfileVersion: '9.0'
packages:
  needs-recent-node@1.0.0:
    engines: {node: '>=20.19.0'}
  stops-at-24@1.0.0:
    engines: {node: ^24 || ^22 || ^20}
`;

describe('the image checks on the fixtures', () => {
  test('the sound fixture passes, so each broken one fails for its own defect', () => {
    expect(checkImage(join(FIXTURES, 'image-valid'), FIXTURE_LOCKFILE)).toEqual([]);
  });

  test.each<[string, string[]]>([
    [
      'image-single-stage',
      [
        'one stage only: build in one stage and copy the result into a clean final one, so compilers and dev dependencies stay out of the image',
        'the final stage copies from no stage that runs `pnpm deploy --prod`: only production dependencies belong in the image',
      ],
    ],
    ['image-root-user', ['the final stage runs as root: end with USER and a numeric non-root user (USER 1000:1000)']],
    ['image-named-user', ["USER node is a name: give its number, as Kubernetes' runAsNonRoot can only verify a numeric user"]],
    ['image-no-healthcheck', ['the final stage has no HEALTHCHECK']],
    [
      'image-label-out-of-scope',
      [
        'the version label uses ${VERSION}, which no ARG of its stage declares before it (a build argument is in scope only in the stage that declares it)',
      ],
    ],
    ['image-fixed-label', ['the version label is fixed text (1.0.0): take it from a build argument (ARG VERSION)']],
    [
      'image-old-node',
      [
        'base image node:20.17-bookworm-slim (Node 20.17.0) is outside the engines.node of 1 locked package(s): needs-recent-node@1.0.0 (>=20.19.0)',
      ],
    ],
    [
      'image-odd-node',
      [
        'base image node:25.2-trixie-slim is Node 25, not an LTS line (even majors are)',
        'base image node:25.2-trixie-slim (Node 25.2.0) is outside the engines.node of 1 locked package(s): stops-at-24@1.0.0 (^24 || ^22 || ^20)',
      ],
    ],
    [
      'image-too-new-node',
      [
        'base image node:26.7-trixie-slim (Node 26.7.0) is outside the engines.node of 1 locked package(s): stops-at-24@1.0.0 (^24 || ^22 || ^20)',
      ],
    ],
    [
      'image-unversioned-node',
      ['base image node:lts-slim names no Node version: pin one (node:24.19-trixie-slim), so the engines check means something'],
    ],
    ['image-shell-entrypoint', ['ENTRYPOINT is in shell form: use the exec form (JSON), so node is PID 1 and receives SIGTERM itself']],
    ['image-fixed-target', ['CMD is not ["--target=all"]: the whole system by default, --target=<service> in its place for one']],
    [
      'image-dev-dependencies',
      ['the final stage copies from no stage that runs `pnpm deploy --prod`: only production dependencies belong in the image'],
    ],
    ['image-tmpdir-off-volume', ["TMPDIR=/tmp is on no VOLUME: uploads' temporary files must be writable on a read-only root filesystem"]],
    ['image-no-dockerignore', ['no .dockerignore: the whole folder, node_modules and .env included, is sent as the build context']],
    [
      'image-dockerignore-gaps',
      [
        '.dockerignore lets .env into the context (secrets)',
        '.dockerignore lets deploy/.env into the context (secrets)',
        '.dockerignore leaves out pnpm-workspace.yaml, which the build needs',
      ],
    ],
  ])('%s fails with its problem', (fixture, expected) => {
    expect(checkImage(join(FIXTURES, fixture), FIXTURE_LOCKFILE).sort()).toEqual([...expected].sort());
  });
});
