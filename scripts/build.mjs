// Builds dist/ with esbuild (and the library's type declarations with tsc):
//   dist/cli.js      the `keydeck` executable: a small guard built for old Node.js targets
//                    (src/bin.ts) that names the Node.js version keydeck needs, answers a lone
//                    `--version`, then loads complete.js for a completion request, else main.js;
//   dist/main.js     the command line (src/cli.ts) with every runtime dependency bundled but keytar;
//   dist/complete.js a completion request (src/complete.ts), from dist/completion.json;
//   dist/program.js  the same command line as a function (src/cli/main.ts), for the suites' CLI runs
//                    in the test's own thread (not an export of the package);
//   dist/index.js, dist/sandbox.js   the library entries (`keydeck`, `keydeck/sandbox`);
//   dist/chunks/     what they share and what they load lazily (non-TUI commands never load Ink);
//   dist/completion.json  the command tree a completion request reads (src/complete.ts), from the program;
//   dist/types/      `.d.ts` of the library entries (`npm run build` and `prepare` only).
// NODE_ENV is production (React's production build, smaller and faster to start); PACKAGE_VERSION
// is package.json's version (src/types/build.d.ts), in the bundle and in the executable alike;
// react-devtools-core is aliased to an empty module (ink imports it only when DEV is set).
// string-width is replaced by src/tui/fastStringWidth.ts (same results, faster; see there), and
// @sindresorhus/is (got's) builds its Intl.ListFormat objects when used, not at load, and got's
// `node:http2` loads only if HTTP/2 is used, and zod's messages are bundled in English only, and
// string-width's, slice-ansi's and wrap-ansi's Unicode tables are built when first used (see there),
// and React is wrapped for the ES modules that import it once, not once per module (reactOnce.mjs).
// No source maps: nothing reads them at run time, and they doubled the package.
// `buildDist(outdir)` is exported so that the benchmarks build their private copy of dist/ exactly
// the same way, and `bundleOptions(emptyModule)` so that they bundle their fixtures (the bare Ink
// app, the soak entry) with the same options; the build runs only when this file is the program.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { keepMetafile, metafileKey } from './dist-stamp.mjs';
import { reactOncePlugin } from './reactOnce.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** package.json's version as a JavaScript string, for esbuild's `define` of PACKAGE_VERSION (src/types/build.d.ts). */
const VERSION = JSON.stringify(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version);

/** src/tui/fastStringWidth.ts: string-width with the same results, faster on keydeck's frames. */
const fastStringWidth = fileURLToPath(new URL('../src/tui/fastStringWidth.ts', import.meta.url));

/**
 * esbuild plugin: every `string-width` import in the bundle (Ink's and its helpers' included)
 * gets src/tui/fastStringWidth.ts, which itself imports the real string-width.
 */
export const fastStringWidthPlugin = {
  name: 'keydeck-fast-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === fastStringWidth ? undefined : { path: fastStringWidth }));
  },
};

/**
 * `node:http` through `require`, not `import`: Node builds the ES-module face of a built-in by
 * reading every export, and `node:http`'s lazy ones (WebSocket and friends) load undici, Node's
 * whole fetch client, on the spot (50–200 ms before keydeck's first frame, bench/startup.mjs). A
 * CommonJS stand-in that calls the banner's `require` gives the same module without that.
 */
export const httpByRequirePlugin = {
  name: 'keydeck-http-by-require',
  setup(build) {
    build.onResolve({ filter: /^(node:)?http$/ }, (args) => (args.kind === 'require-call' ? undefined : { path: 'node:http', namespace: 'keydeck-http-by-require' }));
    build.onLoad({ filter: /.*/, namespace: 'keydeck-http-by-require' }, () => ({ contents: "module.exports = require('node:http');", loader: 'js' }));
  },
};

/** A short tag of a module's path, for the stand-ins bundled beside each importer (the path itself would be written in each). */
function importerTag(file) {
  return createHash('sha256').update(relative(root, file)).digest('hex').slice(0, 8);
}

/**
 * `node:fs`, `node:fs/promises` and `node:os` through `require`, as {@link httpByRequirePlugin} does
 * `node:http`: the ES-module face of `node:fs` reads every export, and its lazy ones (`promises`,
 * the streams) load Node's promise API and streams on the spot; with the two others' faces that is
 * ~20 M instructions of a completion request that needs a stat and a read (valgrind, docs/performance.md
 * "One-shot commands"). Each importer gets its own one-line stand-in, bundled beside it (one shared
 * by all would be a chunk of its own); named imports become reads of the module's properties
 * where they are used, as esbuild does for any CommonJS module.
 */
export const builtinsByRequirePlugin = {
  name: 'keydeck-builtins-by-require',
  setup(build) {
    // Static imports only: an `import()` of a CommonJS module would give its `default` alone.
    build.onResolve({ filter: /^(node:)?(fs|fs\/promises|os)$/ }, (args) =>
      args.kind === 'import-statement' ? { path: `node:${args.path.replace(/^node:/, '')}?${importerTag(args.importer)}`, namespace: 'keydeck-builtin-by-require' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'keydeck-builtin-by-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path.split('?')[0])});`, loader: 'js' }));
  },
};

/**
 * got's type checker, @sindresorhus/is, builds two `Intl.ListFormat`s when it loads, only to word
 * the message of a failed assertion. The first `Intl` object of a process loads ICU's locale data:
 * ~10 ms before keydeck's first frame and ~6 MB of resident memory for the whole session
 * (bench/startup.mjs, bench/memory.mjs). Here each is built when a message is worded, with the
 * same options and the same text. The build fails if the lines are not found (after an upgrade):
 * look at the new version, then update or drop this.
 */
export const lazyListFormatPlugin = {
  name: 'keydeck-lazy-list-format',
  setup(build) {
    build.onLoad({ filter: /[\\/]@sindresorhus[\\/]is[\\/]distribution[\\/]index\.js$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      for (const type of ['conjunction', 'disjunction']) {
        const eager = `new Intl.ListFormat('en', { style: 'long', type: '${type}' })`;
        if (!contents.includes(eager)) throw new Error(`${args.path}: \`${eager}\` not found; see lazyListFormatPlugin in scripts/build.mjs`);
        contents = contents.replace(eager, `{ format: (values) => ${eager}.format(values) }`);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * The Unicode tables that the terminal-text helpers build when they load, not when they measure:
 * string-width's `Intl.Segmenter` and its four `\p{…}` regexes (`\p{RGI_Emoji}` with the `v` flag
 * alone is ~14 ms: V8 builds its string set from ICU when the regex is created), slice-ansi's and
 * wrap-ansi's segmenters (the first `Intl.Segmenter` of a process loads ICU's break data, ~14 ms).
 * Every command that prints a table loads string-width, and most lines never need them
 * (src/tui/fastStringWidth.ts measures the text keydeck draws without them): ~38 ms of the
 * chunk's load in a `--cpu-prof` of `keydeck keys list`; `keys list` against a local sandbox, 60
 * runs each, interleaved: 362 → 325 ms (median wall), 428 → 390 ms of CPU.
 * Here each such `const NAME = EXPR;` becomes `EXPR` built on first use, with the same value; each
 * use of NAME in the file reads it through that. The build fails if a declaration is not found
 * exactly once (after an upgrade): look at the new version, then update or drop the entry.
 */
export const LAZY_UNICODE_STATICS = [
  { file: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/, version: /^8\./, names: ['segmenter', 'visibleCharacterRegex', 'spacingMarkRegex', 'rgiEmojiRegex', 'extendedPictographicRegex'] },
  { file: /[\\/]node_modules[\\/]slice-ansi[\\/]tokenize-ansi\.js$/, names: ['GRAPHEME_SEGMENTER'] },
  { file: /[\\/]node_modules[\\/]wrap-ansi[\\/]index\.js$/, names: ['segmenter'] },
];

/** `contents` with each top-level `const NAME = EXPR;` of `names` built on first use (see above). */
export function lazyStatics(contents, names, where) {
  let out = contents;
  for (const name of names) {
    const declaration = new RegExp(`^const ${name} = (.+);$`, 'gm');
    const found = [...out.matchAll(declaration)];
    if (found.length !== 1) throw new Error(`${where}: \`const ${name} = …;\` found ${found.length} times, expected once; see LAZY_UNICODE_STATICS in scripts/build.mjs`);
    const getter = `${name}$lazy`;
    const [whole, expression] = found[0];
    const before = out.slice(0, found[0].index);
    const after = out.slice(found[0].index + whole.length);
    const uses = new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, 'g');
    out = `${before.replace(uses, `${getter}()`)}let ${name}$value; const ${getter} = () => (${name}$value ??= ${expression});${after.replace(uses, `${getter}()`)}`;
  }
  return out;
}

export const lazyUnicodeStaticsPlugin = {
  name: 'keydeck-lazy-unicode-statics',
  setup(build) {
    for (const { file, names, version } of LAZY_UNICODE_STATICS) {
      build.onLoad({ filter: file }, async (args) => {
        if (version) {
          const { version: found } = JSON.parse(await readFile(join(dirname(args.path), 'package.json'), 'utf8'));
          // Only the version this was written for (older copies nested under other packages are left as they are).
          if (!version.test(found)) return undefined;
        }
        return { contents: lazyStatics(await readFile(args.path, 'utf8'), names, args.path), loader: 'js' };
      });
    }
  },
};

/**
 * zod's namespace (`import { z } from 'zod'`, which keydeck uses) re-exports `locales`: the error
 * messages of some sixty languages, each a module of its own. keydeck never switches zod's
 * language (its own words are in src/api/wording.ts; zod's English default is set by zod itself,
 * from locales/en.js, not through this index), but a namespace cannot be tree-shaken, so all of
 * them were bundled: about 200 KB of the zod chunk, evaluated by every face that validates and
 * kept as source on V8's heap for the whole session. Here the index keeps English alone
 * (`z.locales.en`). The build fails if the index no longer has the shape this expects.
 */
export const englishOnlyZodLocalesPlugin = {
  name: 'keydeck-english-only-zod-locales',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      const lines = contents.split('\n').filter((line) => line.trim() !== '');
      const shape = /^export \{ default as [A-Za-z]+ \} from "\.\/[A-Za-z-]+\.js";$/;
      if (!lines.every((line) => shape.test(line)) || !lines.includes('export { default as en } from "./en.js";')) {
        throw new Error(`${args.path}: not the list of \`export { default as xx } from "./xx.js"\` lines expected; see englishOnlyZodLocalesPlugin in scripts/build.mjs`);
      }
      return { contents: 'export { default as en } from "./en.js";\n', loader: 'js' };
    });
  },
};

/**
 * zod's add-ons keydeck never calls, reached only through zod's namespace (`z.compile` and
 * `z.withParser`, zod's ahead-of-time parsers, which keydeck's `jitless` setting does without:
 * src/api/zod.ts; `z.fromJSONSchema`; `z.core.JSONSchemaGenerator`): a namespace cannot be
 * tree-shaken, so their ~70 KB were bundled, compiled and evaluated by every command that
 * validates (~11 M instructions of zod's load, docs/performance.md "One-shot commands"). Here each
 * of those modules is replaced by one that exports the same names, each a function that throws
 * if called. The build fails if a module's exports are not plain `export function|const|class`
 * declarations (after an upgrade: look again), and test/house/oneshot.test.ts that keydeck uses none.
 */
const ZOD_ADD_ONS = /[\\/]node_modules[\\/]zod[\\/]v4[\\/](core[\\/]compile|classic[\\/]from-json-schema|core[\\/]json-schema-generator)\.js$/;
export const zodAddOnsPlugin = {
  name: 'keydeck-zod-add-ons',
  setup(build) {
    build.onLoad({ filter: ZOD_ADD_ONS }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      const names = [...contents.matchAll(/^export (?:async )?(?:function\*?|const|let|class) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
      if (names.length === 0 || /^export (?!(?:async )?(?:function|const|let|class) )/m.test(contents)) {
        throw new Error(`${args.path}: not the plain exports expected; see zodAddOnsPlugin in scripts/build.mjs`);
      }
      const stub = (name) => `export const ${name} = function () { throw new Error("zod's ${name} is not in keydeck's bundle (scripts/build.mjs zodAddOnsPlugin)"); };`;
      return { contents: names.map(stub).join('\n'), loader: 'js' };
    });
  },
};

/**
 * prom-client's index loads, with the registry and the metric types keydeck uses, its
 * Pushgateway (which requires `https`, `http`, `url` and `zlib` at once) and its cluster
 * aggregator (`cluster`): keydeck pushes nothing and runs no cluster. `https` alone is about
 * 8 MB of resident memory (TLS, certificates; `node -e "require('https')"` beside a bare node),
 * paid by `keydeck exporter` for the whole of its life though every profile it watches may be
 * http on loopback. Here the index gets those two on first use instead
 * (`require` inside a getter: esbuild still bundles them, their module bodies run when read).
 * The build fails if the index no longer has those lines.
 */
export const lazyPromClientExtrasPlugin = {
  name: 'keydeck-lazy-prom-client-extras',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]prom-client[\\/]index\.js$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      for (const [name, module] of [
        ['Pushgateway', './lib/pushgateway'],
        ['AggregatorRegistry', './lib/cluster'],
      ]) {
        const line = `exports.${name} = require('${module}');`;
        if (!contents.includes(line)) throw new Error(`${args.path}: no \`${line}\`; see lazyPromClientExtrasPlugin in scripts/build.mjs`);
        contents = contents.replace(line, `Object.defineProperty(exports, '${name}', { enumerable: true, get: () => require('${module}') });`);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * got imports `node:http2` when it loads, for its HTTP/2 path (`http2: true`), which keydeck never
 * turns on (src/api/http.ts). Node's HTTP/2 module (nghttp2 and its JavaScript), once loaded,
 * stays resident for the whole session: 1–2 MB of `keydeck monitor` (two with and two without this,
 * side by side for 5 minutes: 85.2 and 85.8 MB against 86.2 and 88.2).
 * Here got's imports of it get a stand-in that loads the real module the first time got reaches
 * for anything of it, except the nine constants got reads when it loads (http2-client.js,
 * index.js), given with Node's values; any other constant loads the real module too. The build
 * fails if got uses a name of `node:http2` the stand-in does not know (after an upgrade): look at
 * the new version, then update this.
 */
const HTTP2_CONSTANTS_AT_LOAD = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_METHOD_CONNECT: 'CONNECT',
  NGHTTP2_CANCEL: 8,
  NGHTTP2_NO_ERROR: 0,
  NGHTTP2_INTERNAL_ERROR: 2,
};
/** The names of `node:http2` got uses (members of its default import, and named imports). */
const HTTP2_NAMES_USED_BY_GOT = ['connect', 'constants', 'Http2ServerResponse'];

/**
 * The names of `node:http2` one of got's files uses, and the constants it reads from it (by
 * `http2.constants.X`, `http2Constants.X` or a destructuring of `http2.constants`).
 */
function http2UsesOf(contents) {
  const names = new Set();
  const constants = new Set();
  for (const m of contents.matchAll(/\bhttp2\.([A-Za-z_$][\w$]*)/g)) names.add(m[1]);
  for (const m of contents.matchAll(/import\s*(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*'node:http2'/g)) {
    for (const spec of m[1].split(',')) if (spec.trim()) names.add(spec.trim().split(/\s+as\s+/)[0]);
  }
  for (const m of contents.matchAll(/\bhttp2(?:\.constants|Constants)\.([A-Z0-9_]+)/g)) constants.add(m[1]);
  for (const m of contents.matchAll(/const\s*\{([^}]*)\}\s*=\s*http2\.constants/g)) {
    for (const spec of m[1].split(',')) if (spec.trim()) constants.add(spec.trim().split(/\s*:\s*/)[0]);
  }
  names.delete('org'); // a URL in a comment (http2.org)
  return { names: [...names], constants: [...constants] };
}

export const lazyHttp2Plugin = {
  name: 'keydeck-lazy-http2',
  setup(build) {
    const inGot = /[\\/]node_modules[\\/]got[\\/]/;
    build.onResolve({ filter: /^(node:)?http2$/ }, (args) => (inGot.test(args.importer) ? { path: 'node:http2', namespace: 'keydeck-lazy-http2' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'keydeck-lazy-http2' }, () => ({
      loader: 'js',
      contents: [
        "let real; const load = () => (real ??= require('node:http2'));",
        `const atLoad = ${JSON.stringify(HTTP2_CONSTANTS_AT_LOAD)};`,
        'const constants = new Proxy(atLoad, { get: (known, name) => (Object.hasOwn(known, name) ? known[name] : load().constants[name]) });',
        ...HTTP2_NAMES_USED_BY_GOT.map(
          (name) => `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => ${name === 'constants' ? 'constants' : `load()[${JSON.stringify(name)}]`} });`,
        ),
      ].join('\n'),
    }));
    // got's own files, read once here: checked against the lists above, then handed to esbuild.
    build.onLoad({ filter: /[\\/]node_modules[\\/]got[\\/]dist[\\/]source[\\/].*\.js$/ }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      const { names, constants } = http2UsesOf(contents);
      const unknownNames = names.filter((name) => !HTTP2_NAMES_USED_BY_GOT.includes(name));
      const unknownConstants = constants.filter((name) => !Object.hasOwn(HTTP2_CONSTANTS_AT_LOAD, name));
      if (unknownNames.length + unknownConstants.length > 0) {
        throw new Error(`${args.path} uses node:http2's ${[...unknownNames, ...unknownConstants].join(', ')}; see lazyHttp2Plugin in scripts/build.mjs`);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * `node:process` (and `process`) imported by bundled packages (env-paths, execa, open, …) is the
 * global `process`, the object that module's default export is. Node's ES-module facade of
 * `node:process` reads every property of `process` when it is first imported, its lazy getters
 * among them (`allowedNodeEnvironmentFlags` parses every option Node has, `stdin` opens the
 * stream): 3–9 ms of a one-shot command's start (bench/oneshot.mjs, docs/performance.md). Named
 * imports become reads of the global's properties where they are used, as esbuild does for any
 * CommonJS module.
 */
export const processGlobalPlugin = {
  name: 'process-global',
  setup(b) {
    b.onResolve({ filter: /^(node:)?process$/ }, () => ({ path: 'process', namespace: 'keydeck-process-global' }));
    b.onLoad({ filter: /.*/, namespace: 'keydeck-process-global' }, () => ({ contents: 'module.exports = process;', loader: 'js' }));
  },
};

/**
 * The modules a service command's session and the one-shot reads load (their static imports
 * make the rest of {@link oneShotGroupsPlugin}'s groups): `keys list`, `billing credits`, and what
 * src/cli/shared.ts `runScripted` loads for every service command.
 */
export const ONE_SHOT_ROOTS = ['src/commands/output.ts', 'src/commands/api-command.ts', 'src/commands/sandboxTarget.ts', 'src/commands/keysList.ts', 'src/commands/billingCredits.ts'];
/**
 * The modules whose static imports stay out of those groups: the command line's entry, what a
 * completion request loads (src/complete.ts answers `__complete` without the session), and the
 * sandbox server (it shares src/api's wire format, not the client's session).
 */
const ONE_SHOT_KEPT_APART = [/^src\/cli\.ts$/, /^src\/complete\.ts$/, /^src\/commands\/completion\.ts$/, /^src\/config\/profileNames\.ts$/, /^src\/sandbox\//];
/**
 * The TUI's first frame (src/tui/run.tsx draws it with Ink alone, before the client and
 * `node:http` load: test/build/dist.test.ts): what of the session it imports is a group of its
 * own, so that it loads what it loaded before, and not the whole session.
 */
const ONE_SHOT_FIRST_FRAME = 'src/tui/run.tsx';
/**
 * A completion request (src/complete.ts imports src/commands/completion.ts, which reads profile
 * names with src/config/profileNames.ts): what of keydeck it loads (the command tree's walk, the
 * manual's topics, the config's paths, the trust checks, the error type, the closed pipe's
 * handling) is a group of its own, one chunk: profile names load no chunk beyond the command
 * tree's (docs/performance.md, "One-shot commands").
 */
const ONE_SHOT_COMPLETION = ['src/commands/completion.ts', 'src/config/profileNames.ts'];

/**
 * Fewer, larger chunks on the one-shot path. esbuild's code splitting makes one chunk per set of
 * entry points (the bundle's, and every `import()` target) that reach a module, so the ~60
 * modules a `keys list` loads came in ~45 chunks, each a round of Node's ES-module loader
 * (resolve, read, compile from the cache, link: ~1 ms of CPU each, docs/performance.md).
 * Here the modules of {@link ONE_SHOT_ROOTS}' static import graph are put in groups, the
 * commands' (src/commands/) and the session's (the layers below: the client, config,
 * credentials, terminal, errors…; what the TUI's first frame imports of it a group apart,
 * {@link ONE_SHOT_FIRST_FRAME}), less what {@link ONE_SHOT_KEPT_APART} reaches. A module
 * outside a group that imports one of its members gets, in its place, a stand-in that imports
 * the whole group and re-exports the member (`export *`: the same bindings, live); so every
 * entry point that reaches a member reaches all of them, and esbuild gives each group one chunk.
 * Each module is still bundled once (one instance in a process) and evaluated after its own
 * imports; what changes is that a group's modules are evaluated together, the first time any of
 * them is imported (none has an effect at load but its definitions). The groups are found by a
 * first build of the same entry points (metafile only, nothing written); the build fails if a
 * group's member reaches, through a module outside the group, a member again (the stand-in would
 * make an import cycle), and esbuild fails on a name two members export alike that an outside
 * module imports (ambiguous through `export *`), or on a default import of a member.
 */
export const oneShotGroupsPlugin = {
  name: 'keydeck-one-shot-groups',
  setup(b) {
    const self = oneShotGroupsPlugin;
    /** Absolute path of each grouped module → its group's name. */
    let groupOf = new Map();
    /** Group name → its members' absolute paths, sorted. */
    let members = new Map();
    b.onStart(async () => {
      const { plugins = [], ...rest } = b.initialOptions;
      const first = await build({ ...rest, plugins: plugins.filter((p) => p !== self), metafile: true, write: false, logLevel: 'silent' });
      const inputs = first.metafile.inputs;
      const closure = (roots) => {
        const seen = new Set();
        const queue = [...roots];
        while (queue.length > 0) {
          const m = queue.pop();
          if (seen.has(m) || !inputs[m]) continue;
          seen.add(m);
          for (const i of inputs[m].imports) if (i.kind === 'import-statement' && !i.external) queue.push(i.path);
        }
        return seen;
      };
      const apart = closure(Object.keys(inputs).filter((m) => ONE_SHOT_KEPT_APART.some((re) => re.test(m))));
      const grouped = [...closure(ONE_SHOT_ROOTS)].filter((m) => /^src\//.test(m) && !/^src\/(cli|tui)\//.test(m) && !apart.has(m));
      const firstFrame = closure([ONE_SHOT_FIRST_FRAME]);
      groupOf = new Map(grouped.map((m) => [join(root, m), m.startsWith('src/commands/') ? 'commands' : firstFrame.has(m) ? 'first-frame' : 'session']));
      // A completion request, of the command tree or of profile names: what it loads of keydeck, one chunk.
      for (const m of closure(ONE_SHOT_COMPLETION)) if (/^src\//.test(m)) groupOf.set(join(root, m), 'completion');
      members = new Map();
      for (const [file, group] of groupOf) members.set(group, [...(members.get(group) ?? []), file].sort());
      // No cycle through a stand-in: what a member imports from outside its group never leads back into it.
      for (const m of [...groupOf.keys()].map((file) => relative(root, file).split(sep).join('/'))) {
        const group = groupOf.get(join(root, m));
        const outside = inputs[m].imports.filter((i) => i.kind === 'import-statement' && !i.external && groupOf.get(join(root, i.path)) !== group).map((i) => i.path);
        const back = [...closure(outside)].find((n) => groupOf.get(join(root, n)) === group);
        if (back) throw new Error(`${m} reaches ${back} (its own group) through a module outside the group; see oneShotGroupsPlugin in scripts/build.mjs`);
      }
    });
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === self || args.namespace !== 'file' || (args.kind !== 'import-statement' && args.kind !== 'dynamic-import')) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: 'file', pluginData: self });
      const group = resolved.errors.length === 0 ? groupOf.get(resolved.path) : undefined;
      // A member's `import()` of a member gets the stand-in too: as an entry point of its own, the member would split the group.
      if (group === undefined || (args.kind === 'import-statement' && groupOf.get(args.importer) === group)) return undefined;
      return { path: relative(root, resolved.path).split(sep).join('/'), namespace: 'keydeck-one-shot-member' };
    });
    b.onResolve({ filter: /^keydeck-one-shot-group:/ }, (args) => ({ path: args.path.slice('keydeck-one-shot-group:'.length), namespace: 'keydeck-one-shot-group' }));
    b.onResolve({ filter: /^keydeck-one-shot-member:/ }, (args) => ({ path: args.path.slice('keydeck-one-shot-member:'.length), namespace: 'keydeck-one-shot-member' }));
    b.onLoad({ filter: /.*/, namespace: 'keydeck-one-shot-member' }, (args) => ({
      contents: `import ${JSON.stringify(`keydeck-one-shot-group:${groupOf.get(join(root, args.path))}`)};\nexport * from ${JSON.stringify(join(root, args.path))};\n`,
      loader: 'js',
      resolveDir: root,
    }));
    // The group: its members (each after its own imports), then their stand-ins, so that the
    // stand-ins share the members' chunk (a stand-in has no code of its own: the cycle it makes
    // with this module runs nothing before the members are evaluated).
    b.onLoad({ filter: /.*/, namespace: 'keydeck-one-shot-group' }, (args) => {
      const files = members.get(args.path) ?? [];
      const stand = files.map((file) => `keydeck-one-shot-member:${relative(root, file).split(sep).join('/')}`);
      return { contents: [...files, ...stand].map((file) => `import ${JSON.stringify(file)};`).join('\n'), loader: 'js', resolveDir: root };
    });
  },
};

/**
 * keydeck's esbuild options without entry points and output dir; `emptyModule` is the path of
 * an `export default {}` file that react-devtools-core is aliased to.
 */
export function bundleOptions(emptyModule) {
  return {
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: false,
    legalComments: 'none',
    minifySyntax: true,
    minifyWhitespace: true,
    jsx: 'automatic',
    define: {
      'process.env.NODE_ENV': '"production"',
      PACKAGE_VERSION: VERSION,
      // Bundled CommonJS dependencies use __filename and __dirname: they get the banner's, under
      // names no module declares. (The
      // banner used to declare `const __dirname` itself, which collided with the ESM modules that
      // declare their own, `open` and `clipboardy`: their chunks could not load.)
      __filename: '__keydeckFilename',
      __dirname: '__keydeckDirname',
    },
    alias: { 'react-devtools-core': emptyModule },
    plugins: [
      oneShotGroupsPlugin,
      processGlobalPlugin,
      fastStringWidthPlugin,
      httpByRequirePlugin,
      builtinsByRequirePlugin,
      lazyListFormatPlugin,
      lazyHttp2Plugin,
      englishOnlyZodLocalesPlugin,
      zodAddOnsPlugin,
      lazyUnicodeStaticsPlugin,
      lazyPromClientExtrasPlugin,
      reactOncePlugin(root),
    ],
    // Native or optional at run time: never bundled.
    external: ['keytar', '@lydell/node-pty', 'node-pty'],
    banner: {
      // require() of bundled CommonJS dependencies (esbuild's shim calls the free `require`).
      js: [
        "import { createRequire as __keydeckCreateRequire } from 'node:module';",
        "import { fileURLToPath as __keydeckFileURLToPath } from 'node:url';",
        'const require = __keydeckCreateRequire(import.meta.url);',
        'const __keydeckFilename = __keydeckFileURLToPath(import.meta.url);',
        "const __keydeckDirname = __keydeckFileURLToPath(new URL('.', import.meta.url));",
      ].join(' '),
    },
    logLevel: 'warning',
  };
}

/**
 * Where the library's declarations are emitted before they are copied into dist/types, with tsc's
 * record of the sources (under node_modules: a reinstall starts it afresh).
 */
const TYPES_CACHE = join(root, 'node_modules', '.cache', 'keydeck', 'declarations');

/** The bundled entry points of dist/ (output name → source); dist/cli.js is the guard, built apart. */
export const ENTRY_POINTS = { main: 'src/cli.ts', complete: 'src/complete.ts', program: 'src/cli/main.ts', index: 'src/index.ts', sandbox: 'src/sandbox/index.ts' };

/**
 * The declaration files under `dir` that `entries` (paths relative to `dir`) reach through their
 * relative specifiers (`from './x.js'`, `import('./x.js')`: tsc writes every one with `.js`),
 * entries included; relative paths. Throws when one is missing.
 */
async function reachableDeclarations(dir, entries) {
  const found = new Set();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop();
    if (found.has(file)) continue;
    found.add(file);
    const text = await readFile(join(dir, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)["'](\.{1,2}\/[^"']+)\.js["']/gm)) {
      queue.push(join(dirname(file), `${specifier}.d.ts`));
    }
  }
  return [...found];
}

/**
 * Builds keydeck into `outdir` (emptied first): the guard `cli.js`, the bundle and its chunks,
 * and, with `types`, the library's declarations in `outdir/types` (tsc, tsconfig.types.json,
 * emitted incrementally into {@link TYPES_CACHE}; those the two entries reach).
 * @returns esbuild's metafile of the bundle (its inputs, chunks and their imports)
 * @throws when esbuild or tsc fails.
 */
export async function buildDist(outdir, { types = false } = {}) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const empty = join(outdir, '.empty.js');
  await writeFile(empty, 'export default {};\n');
  const { metafile } = await build({ ...bundleOptions(empty), entryPoints: ENTRY_POINTS, outdir, metafile: true });
  // The command tree a completion request reads without loading the program (src/complete.ts), from the
  // program just built (src/cli/main.ts completionTable), in a process of its own.
  const tree = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      'const { completionTable } = await import(process.argv[1]); process.stdout.write(JSON.stringify(completionTable()));',
      pathToFileURL(join(outdir, 'program.js')).href,
    ],
    { encoding: 'utf8' },
  );
  await writeFile(join(outdir, 'completion.json'), `${tree}\n`);
  // The guard: no banner, no bundle but its pure imports, syntax every Node.js from 14 on reads.
  await build({
    absWorkingDir: root,
    entryPoints: { cli: 'src/bin.ts' },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node14', // dynamic import() as it is (esbuild would turn it into require() for older targets)
    define: { PACKAGE_VERSION: VERSION },
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  // An executable: `npx keydeck` in the clone and the packed tarball (npm keeps the bit) run it directly.
  await chmod(join(outdir, 'cli.js'), 0o755);
  if (types) {
    const require = createRequire(import.meta.url);
    const typescript = require.resolve('typescript7/package.json');
    const tsc = join(dirname(typescript), require(typescript).bin.tsc);
    // Emitted incrementally into a cache of their own (tsc keeps what it knows of the sources
    // there), then copied: `dist/` is emptied above, and tsc does not look whether the files it
    // emitted before are still there. A build whose sources did not change the declarations takes
    // ~0.8 s instead of ~2.6 (every `npm test` builds, test/global-setup.ts). Only what the two
    // entries' declarations reach is copied: the cache keeps the declarations of a source file
    // removed or no longer imported since, which tsc never deletes.
    const cache = join(TYPES_CACHE, 'types');
    const entries = ['index.d.ts', join('sandbox', 'index.d.ts')];
    const emit = () =>
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.types.json', '--outDir', cache, '--incremental', '--tsBuildInfoFile', join(TYPES_CACHE, 'types.tsbuildinfo')], {
        cwd: root,
        stdio: 'inherit',
      });
    emit();
    let files;
    try {
      files = await reachableDeclarations(cache, entries);
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error;
      // A file of the cache was removed behind tsc's back (its record says it is there): afresh.
      await rm(TYPES_CACHE, { recursive: true, force: true });
      emit();
      files = await reachableDeclarations(cache, entries);
    }
    for (const file of files) {
      await mkdir(dirname(join(outdir, 'types', file)), { recursive: true });
      await copyFile(join(cache, file), join(outdir, 'types', file));
    }
  }
  return metafile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // The bundle's metafile is kept for test/house/oneshot.test.ts (scripts/dist-stamp.mjs METAFILE),
  // under the digest of the inputs taken before the build: a change made while it runs is not credited to it.
  const key = metafileKey();
  keepMetafile(key, await buildDist(join(root, 'dist'), { types: !process.argv.includes('--no-types') }));
}
