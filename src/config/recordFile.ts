/**
 * A list of entries kept in one JSON file of keydeck's data dir (`{ "version": 1, "<field>": [...] }`),
 * shared by the records of multi-step operations (src/operations/record.ts, the kit's record of
 * every key operation): read as keydeck reads its own files (./trust.ts), changed only under
 * keydeck's cross-process lock of the data dir (./lock.ts), written atomically with mode 0600
 * (./atomic.ts). A file that cannot be trusted or read, or is not in the format (empty, cut, edited),
 * is reported, never guessed at, and left in place: a damaged one is {@link RECORD_DAMAGED} (the
 * commands exit 3). A missing file is an empty record: these files are only ever replaced whole
 * (a rename), so a missing one was never written or was removed on purpose; each operation's
 * recovery reads the service's lists before its record anyway (docs/crash-safety.md).
 */
import { z } from '../api/zod.js';
import { writeFileAtomically } from './atomic.js';
import { withConfigLock } from './lock.js';
import { RECORD_DAMAGED } from './recordDamage.js';
import { readTrustedFile } from './trust.js';

/** How a {@link RecordFile} names itself in its errors. */
export interface RecordFileOptions {
  /** The data dir (its lock guards every change). */
  readonly dir: string;
  /** The file's path. */
  readonly file: string;
  /** The array's field in the file (`rotations`). */
  readonly field: string;
  /** The record in words (`the rotation record`). */
  readonly what: string;
  /** What is under way while the file matters (`no rotation is under way`). */
  readonly idle: string;
  /** What the file may hold that matters (`rotations under way: …`), said when it cannot be read. */
  readonly held: string;
  /** Builds the record's own error from a sentence. */
  readonly error: (sentence: string) => Error;
}

/** See the module comment. */
export class RecordFile<E> {
  readonly #options: RecordFileOptions;
  readonly #schema: z.ZodType<{ version: 1 } & Record<string, E[]>>;

  /** `entry`: the schema of one entry. */
  constructor(entry: z.ZodType<E>, options: RecordFileOptions) {
    this.#options = options;
    this.#schema = z.object({ version: z.literal(1), [options.field]: z.array(entry) }) as unknown as z.ZodType<{ version: 1 } & Record<string, E[]>>;
  }

  /**
   * Every entry.
   * @throws the record's error when the file is not trusted, not readable or not in the format
   */
  async read(): Promise<E[]> {
    const { file, what, error, field } = this.#options;
    let read;
    try {
      read = await readTrustedFile(file, 'config file');
    } catch (err) {
      throw error(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (read.kind === 'missing') return [];
    if (read.kind === 'refused') throw error(`${what}: ${read.problem.sentence}`);
    let data: unknown;
    try {
      data = JSON.parse(read.text);
    } catch {
      throw this.#damaged(read.text.trim() === '' ? 'it is empty' : 'it is not JSON');
    }
    const parsed = this.#schema.safeParse(data);
    if (!parsed.success) throw this.#damaged("it is not in keydeck's format");
    return parsed.data[field] ?? [];
  }

  /** The error of a file that cannot be read as it is: {@link RECORD_DAMAGED}, the file left in place. */
  #damaged(problem: string): Error {
    const { file, what, idle, held, error } = this.#options;
    return Object.assign(
      error(`${what} ${file} cannot be read (${problem}), and is left in place; it may hold ${held}. Nothing that depends on it is done until it is repaired, or moved away once ${idle}`),
      { code: RECORD_DAMAGED },
    );
  }

  /**
   * Reads the entries, lets `body` change the array in place, and writes it back, under the lock.
   * @returns what `body` returned
   * @throws what `body` throws (nothing is written then); the read's and the write's errors
   */
  async change<T>(body: (all: E[]) => T): Promise<T> {
    return withConfigLock(this.#options.dir, async () => {
      const all = await this.read();
      const result = body(all);
      await writeFileAtomically(this.#options.file, `${JSON.stringify({ version: 1, [this.#options.field]: all }, null, 2)}\n`, 0o600);
      return result;
    });
  }
}
