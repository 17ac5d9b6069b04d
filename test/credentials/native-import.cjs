// Node's own `import()`, for test/credentials/thread.ts: a module vitest runs is evaluated in a
// context where `import()` is vitest's (or missing); this file is loaded by Node's `require`, so
// the CLI's snapshot is loaded as Node loads it in a process.
module.exports = (specifier) => import(specifier);
