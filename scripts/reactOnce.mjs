// esbuild plugin for scripts/build.mjs: React's CommonJS modules (`react`, `react/jsx-runtime`)
// wrapped for ES-module importers once in the bundle, not once per importing module.
//
// esbuild gives every ES module that imports a CommonJS module its own interop object
// (`__toESM(require_react())`): a copy of the module's exports as getters, one closure each. The
// TUI's ~90 modules that import React (keydeck's own and Ink's) made ~90 copies of React's ~40
// exports at start-up: ~4,000 closures and ~1 MB of the heap that start-up allocates, keeps for
// the process's life, and that V8 counts when it decides to grow its young generation
// (docs/performance.md, "Where the memory goes"). Here those imports resolve to one ES module per
// package that imports it once and re-exports its names: the same functions, one interop object.
// A `require('react')` (react-reconciler's, ink's CommonJS parts) is left as it is.
import { createRequire } from 'node:module';

const NAMESPACE = 'keydeck-react-once';

/** The plugin; `root`: the directory React is resolved from (the repository's). */
export function reactOncePlugin(root) {
  const require = createRequire(`${root}/package.json`);
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /^react(?:\/jsx-runtime)?$/ }, (args) => {
        // The wrapper's own import, and require() calls, get the package itself.
        if (args.namespace === NAMESPACE || args.kind === 'require-call') return undefined;
        return { path: args.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        // The names are the package's own, read from it at build time (its production build:
        // NODE_ENV is set the same way for the bundle).
        const names = Object.keys(require(args.path)).filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name));
        return {
          contents: [`import m from ${JSON.stringify(args.path)};`, 'export default m;', `export const { ${names.join(', ')} } = m;`].join('\n'),
          loader: 'js',
          resolveDir: root,
        };
      });
    },
  };
}
