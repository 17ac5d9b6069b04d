/**
 * Runs an ES module in a fresh Node process (the project's Node) and parses the one JSON document
 * it prints: for what a test's own worker cannot show, such as V8's flags or what a bundle builds
 * when it loads. Used by test/terminal/heap.test.ts and test/build/unicode.test.ts.
 */
import { execFileSync } from 'node:child_process';

/**
 * The JSON that `source` (an ES module's text) prints on stdout, run by `node …nodeFlags
 * --input-type=module --eval source` with a 30 s limit.
 * @throws when the process fails, times out or prints no JSON
 */
export function runInFreshNode<T>(source: string, nodeFlags: readonly string[] = []): T {
  return JSON.parse(execFileSync(process.execPath, [...nodeFlags, '--input-type=module', '--eval', source], { encoding: 'utf8', timeout: 30_000 }).trim()) as T;
}
