/**
 * Where each key was delivered (a rotation "delivers it with the same destinations"):
 * `<data dir>/deliveries.json` remembers, per profile, service origin and key id, the destinations
 * that took the key (dotenv paths and variables, command lines as typed), so that `keys rotate`
 * without destination flags, and the TUI's `R`, deliver the successor to the same places, and the
 * successor is remembered in turn. Never a key value. Written atomically (0600) under keydeck's
 * lock of the data dir; at most {@link MAX_DELIVERY_ENTRIES} keys (the oldest forgotten first). A
 * file that cannot be read is treated as empty for recall (delivery never depends on it) and is
 * replaced on the next write.
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { writeFileAtomically } from '../config/atomic.js';
import { withConfigLock } from '../config/lock.js';
import { readTrustedFile } from '../config/trust.js';
import { DestinationSchema } from './recordSchemas.js';
import type { Destination } from './destinations.js';

/** Most keys remembered. */
export const MAX_DELIVERY_ENTRIES = 1_000;

const EntrySchema = z.object({
  profile: z.string(),
  origin: z.string(),
  keyId: z.string(),
  at: z.string(),
  destinations: z.array(DestinationSchema),
  /** The key's fingerprint (./fingerprint.ts), so that a file can be checked to hold it; never the key. */
  fingerprint: z.string().optional(),
});
type Entry = z.infer<typeof EntrySchema>;
const FileSchema = z.object({ version: z.literal(1), keys: z.array(EntrySchema) });

/** Which key: its profile, service origin and id. */
export interface DeliveredKey {
  readonly profile: string;
  readonly origin: string;
  readonly keyId: string;
}

/** Two destinations are the same place (the same file and variable, or the same command line). */
function samePlace(a: Destination, b: Destination): boolean {
  return a.kind === 'file' && b.kind === 'file' ? a.path === b.path && a.variable === b.variable : a.kind === 'command' && b.kind === 'command' && a.argv.join('\0') === b.argv.join('\0');
}

/** The record of one data dir. */
export class DeliveryRecord {
  readonly #dir: string;
  readonly #file: string;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string) {
    this.#dir = dataDir;
    this.#file = path.join(dataDir, 'deliveries.json');
  }

  async #read(): Promise<Entry[]> {
    try {
      const read = await readTrustedFile(this.#file, 'config file');
      if (read.kind !== 'text') return [];
      const parsed = FileSchema.safeParse(JSON.parse(read.text));
      return parsed.success ? parsed.data.keys : [];
    } catch {
      // a record that cannot be read remembers no destination
      return [];
    }
  }

  /** Where `key` was delivered, or undefined when keydeck does not know. */
  async recall(key: DeliveredKey): Promise<Destination[] | undefined> {
    const entry = (await this.#read()).find((e) => e.keyId === key.keyId && e.profile === key.profile && e.origin === key.origin);
    return entry && entry.destinations.length > 0 ? entry.destinations : undefined;
  }

  /** What is remembered of `key`: where it went, when, and its fingerprint; undefined when nothing. */
  async entry(key: DeliveredKey): Promise<{ destinations: Destination[]; at: string; fingerprint?: string } | undefined> {
    const e = (await this.#read()).find((x) => x.keyId === key.keyId && x.profile === key.profile && x.origin === key.origin);
    return e ? { destinations: e.destinations, at: e.at, ...(e.fingerprint !== undefined && { fingerprint: e.fingerprint }) } : undefined;
  }

  /**
   * Adds `destinations` (those that took the key) to what is remembered of `key`, with its
   * `fingerprint` when known.
   * @throws the write's error (callers say it and go on: the key is delivered either way)
   */
  async remember(key: DeliveredKey, destinations: readonly Destination[], fingerprint?: string): Promise<void> {
    if (destinations.length === 0) return;
    await withConfigLock(this.#dir, async () => {
      const all = await this.#read();
      const i = all.findIndex((e) => e.keyId === key.keyId && e.profile === key.profile && e.origin === key.origin);
      const before = i === -1 ? [] : all[i]!.destinations;
      // A file is named by its absolute path: the next rotation may run from another directory.
      const merged = [...before, ...destinations.filter((d) => !before.some((b) => samePlace(b, d)))].map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d, given: d.path }));
      if (i !== -1) all.splice(i, 1);
      const known = fingerprint ?? (i === -1 ? undefined : all[i]!.fingerprint);
      all.push({ ...key, at: new Date().toISOString(), destinations: merged, ...(known !== undefined && { fingerprint: known }) });
      const kept = all.slice(-MAX_DELIVERY_ENTRIES);
      await writeFileAtomically(this.#file, `${JSON.stringify({ version: 1, keys: kept }, null, 2)}\n`, 0o600);
    });
  }
}
