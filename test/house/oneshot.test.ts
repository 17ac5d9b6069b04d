/**
 * The one-shot path stays light (docs/performance.md, "One-shot commands"): what a
 * command in a script, a shell loop or a Tab of completion loads before it answers. esbuild's
 * metafile of dist/'s bundle (kept by scripts/build.mjs; or, when the sources changed since that
 * build, a bundle made here as scripts/build.mjs makes dist/'s: its options and entry points, nothing
 * written) gives the static import graph of the chunks such a command loads:
 * dist/main.js, the program (src/cli/main.ts), what every service command runs through
 * (src/cli/shared.ts: output, api-command, sandboxTarget), the commands themselves (`keys list`,
 * `billing credits`), and a completion request's own entry (dist/complete.js, which the executable
 * loads instead of dist/main.js). None of those chunks may hold Ink, React, Fastify,
 * viem or got (the commands send through Node's own HTTP client, src/api/nodeHttp.ts), nor import
 * `node:sqlite`. What they need beyond that loads on use, by a dynamic `import()`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a JavaScript module without declarations
import { bundleOptions, ENTRY_POINTS } from '../../scripts/build.mjs';
import { keepMetafile, keptMetafile, metafileKey } from '../../scripts/dist-stamp.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The modules whose chunks a one-shot command loads (each is the entry of a chunk: loaded by `import()`). */
const ONE_SHOT_MODULES = {
  'the program (every command)': ['src/cli/main.ts'],
  'a service command (src/cli/shared.ts runScripted)': ['src/commands/output.ts', 'src/commands/api-command.ts', 'src/commands/sandboxTarget.ts'],
  'keys list': ['src/commands/keysList.ts'],
  'billing credits': ['src/commands/billingCredits.ts'],
  // Profile names (src/config/profileNames.ts) are read by a static import of completion.ts: in its chunk.
  'a completion request (__complete)': ['src/commands/completion.ts'],
} as const;

/** Packages the one-shot path never loads, and why. */
const FORBIDDEN_PACKAGES: ReadonlyArray<[RegExp, string]> = [
  [/node_modules\/(ink|ink-table|@alcalzone\/ink-table|ink-testing-library)\//, 'Ink (the TUI)'],
  [/node_modules\/(react|react-reconciler|scheduler)\//, 'React (the TUI)'],
  [/node_modules\/yoga-layout\//, "Yoga (Ink's layout)"],
  [/node_modules\/(fastify|@fastify\/[^/]+)\//, 'Fastify (the sandbox server)'],
  [/node_modules\/(viem|ox|abitype|@noble\/[^/]+)\//, 'viem (the chain reader)'],
  [/node_modules\/got\//, "got (the resident faces' HTTP client)"],
];
/** Node built-ins the one-shot path never imports statically. */
const FORBIDDEN_BUILTINS = ['node:sqlite', 'sqlite'];

let metafile: Metafile;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-oneshot-graph-'));
  // The metafile of the dist/ build that the global set-up found current or made (scripts/dist-stamp.mjs
  // METAFILE): its key is the digest of the build's inputs taken before that build started, so a
  // source, script or package changed since (even during the build) makes it stale, and then the
  // bundle is made again here (~10 s of CPU in esbuild's own process) and kept under the key of now.
  const kept = keptMetafile();
  if (kept) {
    metafile = kept;
    return;
  }
  const key = metafileKey();
  const empty = path.join(dir, 'empty.js');
  writeFileSync(empty, 'export default {};\n');
  metafile = (await build({ ...bundleOptions(empty), absWorkingDir: ROOT, entryPoints: ENTRY_POINTS, outdir: path.join(ROOT, 'dist'), metafile: true, write: false })).metafile!;
  keepMetafile(key, metafile);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The output chunk whose entry is `source` (a module loaded by `import()`), or dist/main.js. */
function chunkOf(source: string): string {
  // A member of the one-shot groups is imported through its stand-in (scripts/build.mjs oneShotGroupsPlugin).
  const found = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint === source || o.entryPoint === `keydeck-one-shot-member:${source}`);
  if (!found) throw new Error(`${source} is not loaded by an import() in the bundle: update ONE_SHOT_MODULES`);
  return found[0];
}

/** Every chunk `start` loads through static imports (itself included). */
function staticClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const chunk = queue.pop()!;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    for (const i of metafile.outputs[chunk]!.imports) if (i.kind === 'import-statement' && !i.external) queue.push(i.path);
  }
  return seen;
}

describe('the one-shot path', () => {
  const main = () => Object.keys(metafile.outputs).find((o) => /(^|\/)main\.js$/.test(o))!;
  /** dist/complete.js: what the executable (src/bin.ts) loads for a completion request, instead of dist/main.js. */
  const complete = () => Object.keys(metafile.outputs).find((o) => /(^|\/)complete\.js$/.test(o))!;

  for (const [what, modules] of Object.entries(ONE_SHOT_MODULES)) {
    it(`${what}: no Ink, React, Fastify, viem, got or node:sqlite among its static imports`, () => {
      const chunks = new Set([...staticClosure(main()), ...staticClosure(complete()), ...modules.flatMap((m) => [...staticClosure(chunkOf(m))])]);
      const inputs = [...chunks].flatMap((c) => Object.keys(metafile.outputs[c]!.inputs));
      const packages = FORBIDDEN_PACKAGES.flatMap(([pattern, why]) => inputs.filter((i) => pattern.test(i)).map((i) => `${why}: ${i}`));
      const builtins = [...chunks].flatMap((c) =>
        metafile.outputs[c]!.imports.filter((i) => i.external && i.kind === 'import-statement' && FORBIDDEN_BUILTINS.includes(i.path)).map((i) => `${i.path} in ${c}`),
      );
      expect([...new Set(packages)].slice(0, 10)).toEqual([]);
      expect(builtins).toEqual([]);
      // Sanity: the graph is the real one (each module is in it, with the bundle's own entry).
      for (const m of [...modules, 'src/cli.ts', 'src/complete.ts']) expect(inputs).toContain(m);
    });
  }

  it('loads `keys list` and `billing credits` in few chunks: the commands and the session in one chunk each', () => {
    const loaded = (command: string) =>
      new Set([
        ...staticClosure(main()),
        ...[...ONE_SHOT_MODULES['the program (every command)'], ...ONE_SHOT_MODULES['a service command (src/cli/shared.ts runScripted)'], command].flatMap((m) => [...staticClosure(chunkOf(m))]),
      ]);
    for (const command of ['src/commands/keysList.ts', 'src/commands/billingCredits.ts']) {
      const chunks = loaded(command);
      // Each a round of Node's ES-module loader (docs/performance.md, "One-shot commands"): 53 before the groups.
      expect(chunks.size, command).toBeLessThanOrEqual(33);
      const chunkHolding = (m: string) => [...chunks].filter((c) => Object.keys(metafile.outputs[c]!.inputs).includes(m));
      expect(chunkHolding('src/commands/output.ts')).toEqual(chunkHolding(command));
      expect(chunkHolding('src/api/client.ts')).toEqual(chunkHolding('src/api/nodeHttp.ts'));
      // What the TUI's first frame imports of the session is a group of its own (no client, no node:http: test/build/dist.test.ts).
      expect(chunkHolding('src/config/profile.ts')).toEqual(chunkHolding('src/config/config.ts'));
      expect(chunkHolding('src/config/profile.ts')).not.toEqual(chunkHolding('src/api/client.ts'));
      // Every module is bundled once: one instance of it in a process.
      for (const m of ['src/commands/output.ts', 'src/api/client.ts', 'src/config/lock.ts', 'src/errors/index.ts']) expect(chunkHolding(m), m).toHaveLength(1);
    }
  });

  it('loads a completion of profile names in the chunks of the command tree’s: no chunk more', () => {
    const chunks = staticClosure(complete());
    // 12 before the groups, then 9 with a group of profile names and 6 for the command tree (through dist/main.js); now one group for both
    // (scripts/build.mjs ONE_SHOT_COMPLETION), loaded by its own entry (src/complete.ts), with `node:process`'s stand-in and esbuild's helpers apart.
    expect(chunks.size).toBeLessThanOrEqual(4);
    // No `import()` of its own: a Tab after `--profile` loads nothing the command tree's completion does not.
    expect(Object.values(metafile.outputs).filter((o) => o.entryPoint?.endsWith('src/config/profileNames.ts'))).toEqual([]);
    const holding = (m: string) => [...chunks].filter((c) => Object.keys(metafile.outputs[c]!.inputs).includes(m));
    for (const m of ['src/config/profileNames.ts', 'src/config/paths.ts', 'src/config/trust.ts', 'src/config/strictModes.ts', 'src/errors/index.ts', 'src/commands/manualTopics.ts']) {
      expect(holding(m), m).toEqual(holding('src/commands/completion.ts'));
    }
    expect(holding('src/commands/completion.ts')).toHaveLength(1);
  });

  it('imports no `node:fs`, `node:fs/promises` or `node:os` as an ES module anywhere in the bundle (their facades read every lazy export)', () => {
    // `node:fs`'s facade loads Node's promise API and streams (scripts/build.mjs builtinsByRequirePlugin): ~20 M instructions of a completion.
    const found = Object.entries(metafile.outputs).flatMap(([chunk, o]) =>
      o.imports.filter((i) => i.external && i.kind === 'import-statement' && /^(node:)?(fs|fs\/promises|os)$/.test(i.path)).map((i) => `${i.path} in ${chunk}`),
    );
    expect(found).toEqual([]);
    // Sanity: they are in the bundle, through require (the trust checks read files; env-paths reads the home dir).
    expect(Object.values(metafile.outputs).some((o) => o.imports.some((i) => i.external && i.kind === 'require-call' && i.path === 'node:fs'))).toBe(true);
  });

  it('imports no `node:process` anywhere in the bundle (its ES-module facade reads every lazy getter of `process`)', () => {
    const found = Object.entries(metafile.outputs).flatMap(([chunk, o]) => o.imports.filter((i) => i.external && /^(node:)?process$/.test(i.path)).map((i) => `${i.path} in ${chunk}`));
    expect(found).toEqual([]);
    // Sanity: a bundled package that imports it is in the bundle (env-paths, for the config's place).
    expect(Object.values(metafile.outputs).some((o) => Object.keys(o.inputs).some((i) => i.includes('node_modules/env-paths/')))).toBe(true);
  });

  it("builds every schema with zod's settings (src/api/zod.ts): no module of keydeck imports zod but that one", () => {
    // esbuild's metafile: every bundled input and the modules it imports (type-only imports are gone).
    const importers = Object.entries(metafile.inputs)
      .filter(([file, input]) => file.startsWith('src/') && input.imports.some((i) => /^node_modules\/zod\//.test(i.path)))
      .map(([file]) => file);
    expect(importers).toEqual(['src/api/zod.ts']);
    // Sanity: the schemas are in the graph, built through it (the wire's, the config's).
    for (const m of ['src/api/schemas.ts', 'src/config/config.ts']) expect(metafile.inputs[m]!.imports.map((i) => i.path)).toContain('src/api/zod.ts');
  });

  it("bundles none of zod's add-ons keydeck never calls (scripts/build.mjs zodAddOnsPlugin), and keydeck calls none", () => {
    const addOns = Object.keys(metafile.inputs).filter((i) => /^node_modules\/zod\/v4\/(core\/compile|classic\/from-json-schema|core\/json-schema-generator)\.js$/.test(i));
    // zod's ahead-of-time parsers, fromJSONSchema and the JSON Schema generator: ~70 KB of zod's chunk before.
    expect(addOns.map((i) => path.basename(i)).sort()).toEqual(['compile.js', 'from-json-schema.js', 'json-schema-generator.js']);
    for (const i of addOns) {
      const bytes = Object.values(metafile.outputs).reduce((sum, o) => sum + (o.inputs[i]?.bytesInOutput ?? 0), 0);
      expect(bytes, i).toBeLessThan(2_000);
    }
    const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    const callers = sources.filter((f) =>
      /\bz\.(compile|withParser|fromJSONSchema|ZodCompile\w*)\b|JSONSchemaGenerator|from 'zod\/(compile|v4\/core)'/.test(readFileSync(path.join(ROOT, 'src', f), 'utf8')),
    );
    expect(callers).toEqual([]);
    expect(sources.length).toBeGreaterThan(100);
  });

  it('does not load the program for a completion request (src/complete.ts answers it), nor zod for profile names', () => {
    for (const start of [complete(), ...ONE_SHOT_MODULES['a completion request (__complete)'].map(chunkOf)]) {
      const inputs = [...staticClosure(start)].flatMap((c) => Object.keys(metafile.outputs[c]!.inputs));
      expect(inputs.filter((i) => i.includes('node_modules/commander/') || i.startsWith('src/cli/') || i.startsWith('node_modules/zod/'))).toEqual([]);
    }
  });
});
