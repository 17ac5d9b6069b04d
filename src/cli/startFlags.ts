/**
 * V8's flags for the commands left open for hours, given at process start:
 * never changed while the program runs (Node's documentation of changing them after start: "may
 * result in unpredictable behavior, including crashes and data loss"). A command named in
 * {@link START_FLAGS} starts again in the same process, with those flags before the script, by
 * `process.execve` (the same pid, environment and standard streams: systemd, a container and a
 * shell see one process), before it loads anything of its own. Where `process.execve` is missing
 * (Windows, Node before 22.15) or refused, the command runs on with V8's defaults: the flags save
 * memory, nothing depends on them. Each flag's measured effect is in docs/performance.md
 * ("V8 flags").
 */

/**
 * The flags each resident command starts with (command name → flags; `keydeck` would be the
 * full-screen app). Only where a benchmark
 * shows they pay (bench/exporter.mjs, bench/memory.mjs; the figures in docs/performance.md):
 * - `--max-semi-space-size=1`: a young generation of 1 MB semi-spaces, which V8 otherwise grows to
 *   16 MB under start-up's allocation and keeps for the process's life, mostly empty.
 * - `--no-opt`, `--no-maglev`: no optimizing compiler; a process that polls every minute spends its
 *   time waiting, and their code pages (of the node binary) and zones are its largest share
 *   beyond a bare node.
 * - `--optimize-for-size`: V8's heap sized and grown for memory, not speed.
 */
export const START_FLAGS: Readonly<Record<string, readonly string[]>> = {
  // Not the full-screen app (the program's own action, `keydeck`): a small young generation saves
  // it about 40 MB after 10 minutes but costs its keys (CPU per move 0.6 -> 0.8x the bare Ink
  // list, premature promotion and more full collections) and its start (a second start of node,
  // ~70 ms of CPU before its first frame). docs/performance.md has the figures and the opt-in.
  monitor: ['--max-semi-space-size=1', '--no-opt', '--no-maglev', '--optimize-for-size'],
  exporter: ['--max-semi-space-size=1', '--no-opt', '--no-maglev', '--optimize-for-size'],
};

/**
 * When `command` has {@link START_FLAGS} that this process did not start with, replaces this
 * process by the same node, script and arguments with those flags added (its own node flags kept),
 * and never returns. Otherwise, or when that cannot be done, returns: the command runs on as it is.
 */
export function startWithFlags(command: string): void {
  const flags = START_FLAGS[command];
  if (flags === undefined || flags.every((flag) => process.execArgv.includes(flag))) return;
  const script = process.argv[1];
  if (typeof process.execve !== 'function' || script === undefined) return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, script, ...process.argv.slice(2)]);
  } catch {
    // Not replaced (refused by the system, or by a runner that shares this process): V8's defaults.
  }
}
