/**
 * A setup file of `npm run test:count` (scripts/count-assertions.mjs), loaded only when
 * KEYDECK_TEST_COUNT names a file (vitest.config.ts): appends one line per test file to it, with
 * how many tests ran in the file and how many `expect(…)` calls they executed. Tab-separated: the
 * file, its project, tests, assertions.
 *
 * The count is vitest's own (each `expect(value)` adds one to its expect's `assertionCalls`, the
 * figure `expect.assertions(n)` checks), read where vitest keeps it: the state of every expect, the
 * global one and each test context's, in the map at `Symbol.for('matchers-object')` (whose `get`
 * and `set` are wrapped here). vitest resets
 * the global expect's state at the start of each test, which in a `describe.concurrent` suite
 * happens while others still run: so each increment is counted as it happens, not read at a
 * test's end.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';

interface Counts {
  assertions: number;
}
const COUNTS = Symbol.for('keydeck.assertion-count');
const MATCHERS = Symbol.for('matchers-object');
type Store = { get(key: object): object | undefined; set(key: object, value: object): unknown };
const global = globalThis as unknown as Record<symbol, unknown>;

/** Wraps vitest's map of expect states once per worker: every state read through it counts its increments. */
function install(): Counts {
  const installed = global[COUNTS] as Counts | undefined;
  if (installed) return installed;
  const counts: Counts = { assertions: 0 };
  const real = global[MATCHERS] as Store;
  const proxies = new WeakMap<object, object>();
  const targets = new WeakMap<object, object>();
  const counting = (state: object): object => {
    let proxy = proxies.get(state);
    if (!proxy) {
      proxy = new Proxy(state, {
        defineProperty(target, key, descriptor) {
          const before = (target as { assertionCalls?: number }).assertionCalls ?? 0;
          if (key === 'assertionCalls' && descriptor.value === before + 1) counts.assertions++;
          return Reflect.defineProperty(target, key, descriptor);
        },
      });
      proxies.set(state, proxy);
      targets.set(proxy, state);
    }
    return proxy;
  };
  // The map itself is a read-only global: its own `get` and `set` go through the counting states.
  const realGet = real.get.bind(real);
  const realSet = real.set.bind(real);
  Object.assign(real, {
    get: (expect: object) => {
      const state = realGet(expect);
      return state === undefined ? undefined : counting(state);
    },
    set: (expect: object, state: object) => realSet(expect, targets.get(state) ?? state),
  });
  global[COUNTS] = counts;
  return counts;
}

const counts = install();
let atStart = 0;
let tests = 0;
beforeAll(() => {
  atStart = counts.assertions;
  tests = 0;
});
afterEach(() => {
  tests++;
});
// eslint-disable-next-line no-empty-pattern -- vitest reads what a hook uses from its first parameter's destructuring: this one uses nothing
afterAll(({}, suite) => {
  const out = process.env.KEYDECK_TEST_COUNT;
  if (!out) return;
  const file = path.relative(process.cwd(), suite.file.filepath);
  appendFileSync(out, `${[file, suite.file.projectName ?? '', tests, counts.assertions - atStart].join('\t')}\n`);
});
