/**
 * Failpoints: the named boundaries of keydeck's own process where the crash-point harness
 * (test/crash/) kills it, to prove that every multi-step operation survives a kill at any step
 *. The idea and the word are those of FreeBSD's fail(9), etcd's gofail and TiKV's
 * fail-rs: a call at each boundary that does nothing unless a test armed it from outside.
 *
 * What lives in src/failpoints: {@link failpoint} and the names of the boundaries. May import:
 * nothing of keydeck's. Imported by: every layer that crosses a boundary (src/api, src/config,
 * src/credentials, src/delivery, src/billing, src/operations).
 *
 * ## The boundaries
 *
 * | name                         | where                                                              |
 * |------------------------------|--------------------------------------------------------------------|
 * | `request:<operation>`        | a request to the service is about to be sent (src/api/core.ts)     |
 * | `answered:<operation>`       | the service's answer arrived, before keydeck read it               |
 * | `store.written:<where>`      | a credential was stored (`keychain`, `file`)                       |
 * | `store.deleted`              | a stored credential was removed                                    |
 * | `file.renamed:<file name>`   | an atomic write's rename is done (a destination, a record, config) |
 * | `command.spawned:<program>`  | a destination command was started                                  |
 * | `command.exited:<program>`   | a destination command ended, before keydeck acted on its status    |
 * | `record.written:<record>`    | a record in SQLite was committed, its summary written (`topups`)   |
 *
 * `<operation>` is the client's operation name (`createCreditKey`); `<file name>` the last part
 * of the path (`.env`, `rotations.json`), `<program>` the last part of argv[0].
 *
 * ## Arming one (for tests only)
 *
 * - `KEYDECK_FAILPOINT=<name>#<n>` (`#<n>` optional, default 1): at the n-th time the process
 *   reaches `<name>`, it kills itself with SIGKILL — no handler runs, no buffer is flushed, as a
 *   power cut or `kill -9` would leave it.
 * - `KEYDECK_FAILPOINT_TRACE=<file>`: every boundary reached is appended to that file, one
 *   `<name>#<n>` a line (written synchronously, before a kill), so a harness can list the points
 *   an operation passes and then kill a fresh run at each one.
 *
 * With neither set (every real run), a failpoint costs one read of the environment. Names are
 * made of what keydeck itself chose (operation names, file and program base names): control
 * characters are replaced, so a trace line is always one line.
 *
 * ## The steps of the operations: the same points, counted per context
 *
 * The machines of src/operations name a point at each step of their loop (`<machine>.<step>`
 * once a step's effect is done, `<machine>.<step>:recorded` after its record write:
 * src/operations/kit.ts). They are armed, traced and acted on by the same three variables, read
 * from the environment of the context that drives the machine (one command run, one TUI session:
 * {@link failpointsFrom}) and counted there, so that walks in one thread do not count each
 * other's points. `kill` (the default) kills the process there; `halt` stops the drive with a
 * {@link FailpointHalt} that no step catches (the kit turns it into its `crashed` failure), as a
 * kill there would leave the operation.
 *
 * ## Halting in-process (for tests only)
 *
 * A face that runs in a test's own thread (the TUI, rendered there) cannot be killed without the
 * test. With `KEYDECK_FAILPOINT_ACTION=halt` beside `KEYDECK_FAILPOINT`, the armed point halts
 * instead: the call throws {@link FailpointHalt}, and so does every failpoint this thread reaches
 * after it, until {@link resetFailpoints}. So no request leaves after the point and no record is
 * committed past the next boundary: the world a kill there leaves, as far as the operation under
 * way goes. Code that handles failures lets a halt go through ({@link isFailpointHalt}) instead of
 * recording it as one.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';

/**
 * How often each boundary was reached in this process (for `#<n>`), and the point that halted it
 * (`halted`). The one state at module level in src/ outside memos: it is only touched while a test
 * armed failpoints, which it does only in runs of the CLI as a process of their own
 * (test/crash/harness.ts refuses the in-thread runner), or for a walk in the test's own thread,
 * which resets it ({@link resetFailpoints}).
 */
const reached = new Map<string, number>();
const halt: { halted: string | undefined } = { halted: undefined };

/** What an armed failpoint throws when told to halt instead of kill (see the module comment). */
export class FailpointHalt extends Error {
  override readonly name = 'FailpointHalt';
  /** The point that halted the thread (`<name>#<n>`). */
  readonly point: string;
  constructor(point: string) {
    super(`halted at the failpoint ${point}`);
    this.point = point;
  }
}

/** True when `error` is a failpoint's halt (an in-process crash walk): never to be handled as a failure. */
export function isFailpointHalt(error: unknown): boolean {
  return error instanceof FailpointHalt;
}

/** The point this thread halted at, if it did (a walk waits for it). */
export function haltedAt(): string | undefined {
  return halt.halted;
}

/** Forgets the counts and the halt (before each run of an in-process walk). */
export function resetFailpoints(): void {
  reached.clear();
  halt.halted = undefined;
}

/** A failpoint's name: `kind` and, when given, `:detail`, control characters replaced. */
function nameOf(kind: string, detail?: string): string {
  const name = detail === undefined ? kind : `${kind}:${detail}`;
  return name.replace(/[\u0000-\u001f\u007f-\u009f#]/g, '?');
}

/**
 * Marks the boundary `kind` (`detail`: what it concerns, see the table above). Does nothing
 * unless `KEYDECK_FAILPOINT` or `KEYDECK_FAILPOINT_TRACE` is set; then records it in the trace
 * and, when it is the armed one, kills the process (SIGKILL: this call never returns then), or
 * halts the thread (`KEYDECK_FAILPOINT_ACTION=halt`: see the module comment).
 * @throws FailpointHalt at the armed point when told to halt, and at every point after it
 */
export function failpoint(kind: FailpointKind, detail?: string): void {
  const armed = process.env.KEYDECK_FAILPOINT;
  const trace = process.env.KEYDECK_FAILPOINT_TRACE;
  if (!armed && !trace) return;
  if (halt.halted !== undefined) throw new FailpointHalt(halt.halted);
  const name = nameOf(kind, detail);
  const n = (reached.get(name) ?? 0) + 1;
  reached.set(name, n);
  const here = `${name}#${n}`;
  if (trace) appendFileSync(trace, `${here}\n`);
  if (!armed || !(armed === here || (n === 1 && armed === name))) return;
  if (process.env.KEYDECK_FAILPOINT_ACTION === 'halt') {
    halt.halted = here;
    throw new FailpointHalt(here);
  }
  process.kill(process.pid, 'SIGKILL');
}

/** One context's named points (see the module comment): `reach` is called at each. */
export interface Failpoints {
  /**
   * Marks the point `name`: traced, and at the armed one killed (`kill`) or halted.
   * @throws FailpointHalt at the armed point when told to halt
   */
  reach(name: string): void;
}

/**
 * The failpoints of one context, armed by its environment `env` (`KEYDECK_FAILPOINT`,
 * `KEYDECK_FAILPOINT_TRACE`, `KEYDECK_FAILPOINT_ACTION`: the module comment), counted in the
 * context (nothing at module level). Undefined when none is set (every real run).
 */
export function failpointsFrom(env: NodeJS.ProcessEnv): Failpoints | undefined {
  const armed = env.KEYDECK_FAILPOINT;
  const trace = env.KEYDECK_FAILPOINT_TRACE;
  if (!armed && !trace) return undefined;
  const halts = env.KEYDECK_FAILPOINT_ACTION === 'halt';
  const counts = new Map<string, number>();
  return {
    reach(point) {
      const name = nameOf(point);
      const n = (counts.get(name) ?? 0) + 1;
      counts.set(name, n);
      const here = `${name}#${n}`;
      if (trace) appendFileSync(trace, `${here}\n`);
      if (!armed || !(armed === here || (n === 1 && armed === name))) return;
      if (halts) throw new FailpointHalt(here);
      process.kill(process.pid, 'SIGKILL');
    },
  };
}

/** True when a traced point is a boundary of the process (the table above), not an operation's step. */
export function isBoundary(point: string): boolean {
  return BOUNDARY_KINDS.some((kind) => point === kind || point.startsWith(`${kind}:`) || point.startsWith(`${kind}#`));
}

const BOUNDARY_KINDS: readonly FailpointKind[] = ['request', 'answered', 'store.written', 'store.deleted', 'file.renamed', 'command.spawned', 'command.exited', 'record.written'];

/** The kinds of boundary (the table of the module docstring). */
export type FailpointKind = 'request' | 'answered' | 'store.written' | 'store.deleted' | 'file.renamed' | 'command.spawned' | 'command.exited' | 'record.written';

/** `file.renamed`'s detail for a path: its last part. */
export function fileDetail(file: string): string {
  return path.basename(file);
}
