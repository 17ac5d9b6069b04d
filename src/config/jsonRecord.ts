/**
 * A small record of keydeck's own kept as one JSON file, `{ "version": 1, "<key>": [ … ] }`, mode
 * 0600: read as keydeck reads its own files (./trust.ts), every change a read-modify-write under
 * the directory's cross-process lock (./lock.ts), written atomically (./atomic.ts). A file that
 * cannot be trusted, read or parsed is one sentence naming it, never guessed at. Used by the
 * records of multi-step operations (src/operations/mgmtRotationRecord.ts; the consumption keys'
 * src/delivery/rotationRecord.ts has the same shape).
 */
import type { z } from 'zod';
import { writeFileAtomically } from './atomic.js';
import { withConfigLock } from './lock.js';
import { readTrustedFile } from './trust.js';

/** A record that cannot be trusted or read: `message` is one sentence naming the file. */
export class JsonRecordError extends Error {
  override readonly name = 'JsonRecordError';
}

/** Where a {@link JsonRecordFile} lives and what it holds. */
export interface JsonRecordOptions<T extends { readonly id: string }> {
  /** The directory whose lock guards it (keydeck's data dir). */
  readonly dir: string;
  /** The file. */
  readonly file: string;
  /** The name of its list (`rotations`). */
  readonly key: string;
  /** One item. */
  readonly item: z.ZodType<T>;
  /** The record in words, for the sentences (`the management-key rotation record`). */
  readonly what: string;
}

/** See the module comment. */
export class JsonRecordFile<T extends { readonly id: string }> {
  readonly #o: JsonRecordOptions<T>;

  constructor(options: JsonRecordOptions<T>) {
    this.#o = options;
  }

  /**
   * The items; none when the file does not exist.
   * @throws JsonRecordError when it is not trusted, not readable, not JSON or not in keydeck's format
   */
  async read(): Promise<T[]> {
    const { file, what, key, item } = this.#o;
    let read;
    try {
      read = await readTrustedFile(file, 'config file');
    } catch (err) {
      throw new JsonRecordError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (read.kind === 'missing') return [];
    if (read.kind === 'refused') throw new JsonRecordError(`${what}: ${read.problem.sentence}`);
    let data: unknown;
    try {
      data = JSON.parse(read.text);
    } catch {
      throw new JsonRecordError(`${what} ${file} is not JSON: move it away once nothing is under way`);
    }
    const version = (data as { version?: unknown } | null)?.version;
    const list = (data as Record<string, unknown> | null)?.[key];
    const items = Array.isArray(list) ? list.map((x) => item.safeParse(x)) : undefined;
    if (version !== 1 || items === undefined || items.some((p) => !p.success)) {
      throw new JsonRecordError(`${what} ${file} is not in keydeck's format: move it away once nothing is under way`);
    }
    return items.map((p) => p.data as T);
  }

  /**
   * Reads the items, lets `body` change the list in place, and writes it back, under the lock.
   * @returns what `body` returned
   * @throws JsonRecordError (see {@link read}); what `body` throws (nothing is written then); the
   *   lock's or the write's error
   */
  async change<R>(body: (all: T[]) => R): Promise<R> {
    const { dir, file, key } = this.#o;
    return withConfigLock(dir, async () => {
      const all = await this.read();
      const result = body(all);
      await writeFileAtomically(file, `${JSON.stringify({ version: 1, [key]: all }, null, 2)}\n`, 0o600);
      return result;
    });
  }

  /**
   * Replaces the item `id` with `next(current)` and returns it.
   * @throws the error `missing()` gives when no item has that id (another process removed it); see {@link change}
   */
  async update(id: string, next: (current: T) => T, missing: () => Error): Promise<T> {
    return this.change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i === -1) throw missing();
      all[i] = next(all[i]!);
      return all[i]!;
    });
  }

  /** Removes the item `id`; nothing when there is none. @throws see {@link change} */
  async remove(id: string): Promise<void> {
    await this.change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i !== -1) all.splice(i, 1);
    });
  }
}
