/**
 * The text a metrics endpoint answers: the process's registry (./process.ts) and every
 * account's (./account.ts) in one exposition (Prometheus text format 0.0.4,
 * https://prometheus.io/docs/instrumenting/exposition_formats/).
 *
 * The accounts' registries hold the same metric names with different `profile` and `origin`
 * labels; the format wants each metric once, with one `# HELP` and one `# TYPE` and all its
 * series together, so their texts are merged by metric name. Each account's text is written by
 * prom-client (which escapes label values and help as the format requires) and kept until the
 * account changes ({@link MetricsSource.version}): a scrape of many accounts between two polls
 * costs a merge of kept strings, not a serialisation of every series (bench/exporter.mjs).
 */
import { Registry } from 'prom-client';

/** The content type of the text: Prometheus text format 0.0.4. */
export const EXPOSITION_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** A registry and a number that changes whenever anything in it may have changed. */
export interface MetricsSource {
  readonly registry: Registry;
  readonly version: number;
}

/** One metric of a registry's text: its name, its `# HELP` and `# TYPE` lines, its samples. */
interface Family {
  readonly name: string;
  readonly head: string;
  readonly samples: string;
}

/** Splits prom-client's text (metrics separated by a blank line, each `# HELP`, `# TYPE`, samples) into families. */
function families(text: string): Family[] {
  const out: Family[] = [];
  // A blank line only ever separates two metrics: a newline in help or a label value is written as `\n`.
  for (const block of text.split('\n\n')) {
    const trimmed = block.endsWith('\n') ? block.slice(0, -1) : block;
    if (trimmed === '') continue;
    const first = trimmed.indexOf('\n');
    const second = first < 0 ? -1 : trimmed.indexOf('\n', first + 1);
    const head = second < 0 ? trimmed : trimmed.slice(0, second);
    const name = /^# HELP (\S+)/.exec(head)?.[1] ?? head;
    out.push({ name, head, samples: second < 0 ? '' : trimmed.slice(second + 1) });
  }
  return out;
}

/** Writes merged expositions, keeping each source's text while its version stays the same. */
export class Exposition {
  readonly #kept = new WeakMap<Registry, { version: number; families: Family[] }>();

  /**
   * The exposition of `process` (written afresh: its gauges are read at scrape time) followed by
   * the merged `accounts`.
   * @throws Error when a registry's collect function throws
   */
  async text(process: Registry | undefined, accounts: readonly MetricsSource[]): Promise<string> {
    const parts: string[] = [];
    if (process) parts.push((await process.metrics()).trimEnd());
    const merged = new Map<string, { head: string; samples: string[] }>();
    for (const source of accounts) {
      let kept = this.#kept.get(source.registry);
      if (!kept || kept.version !== source.version) {
        const version = source.version;
        kept = { version, families: families(await source.registry.metrics()) };
        this.#kept.set(source.registry, kept);
      }
      for (const family of kept.families) {
        let entry = merged.get(family.name);
        if (!entry) merged.set(family.name, (entry = { head: family.head, samples: [] }));
        if (family.samples !== '') entry.samples.push(family.samples);
      }
    }
    for (const { head, samples } of merged.values()) parts.push(samples.length > 0 ? `${head}\n${samples.join('\n')}` : head);
    return `${parts.join('\n\n')}\n`;
  }
}
