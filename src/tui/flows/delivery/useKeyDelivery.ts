/**
 * The TUI's access to key delivery (src/delivery/) outside an operation's steps: checking a
 * destination before a key exists, delivering a key already shown (it stays on screen), where a
 * key went, and the outcomes as lines for a dialog (command output sanitised, withheld when it
 * held the key, at most a few lines).
 */
import { useMemo } from 'react';
import { checkDestinations, deliverKey, type DeliveryOutcome } from '../../../delivery/deliver.js';
import type { Destination } from '../../../delivery/destinations.js';
import { visible } from '../../../terminal/sanitize.js';
import { DeliveryRecord } from '../../../delivery/deliveryRecord.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';

/** What {@link useKeyDelivery} gives. */
export interface KeyDelivery {
  /** Checks a destination before the key is created; rejects with a DeliveryError (one sentence). */
  readonly check: (d: Destination) => Promise<void>;
  /** Delivers `key` to each destination; never rejects for a destination's failure. */
  readonly deliver: (key: string, destinations: readonly Destination[]) => Promise<DeliveryOutcome[]>;
  /** Remembers where key `keyId` went (the outcomes that took it), for its rotation; never rejects. */
  readonly remember: (keyId: string, outcomes: readonly DeliveryOutcome[]) => Promise<void>;
  /** Where key `keyId` was delivered by keydeck, if known. */
  readonly recall: (keyId: string) => Promise<Destination[] | undefined>;
}

/** See the module comment. */
export function useKeyDelivery(): KeyDelivery {
  const { dataDir, profile, waitUntil } = useServices();
  const { baseUrl } = useSession();
  return useMemo(() => {
    const record = new DeliveryRecord(dataDir);
    const which = (keyId: string) => ({ profile: profile.name, origin: baseUrl ? new URL(baseUrl).origin : '', keyId });
    return {
      check: (d: Destination) => checkDestinations([d]),
      // A file half-way through its write is finished even when the app ends first.
      deliver: (key: string, destinations: readonly Destination[]) => waitUntil(deliverKey(key, destinations, { lockDir: dataDir })),
      remember: async (keyId: string, outcomes: readonly DeliveryOutcome[]) => {
        await waitUntil(
          record.remember(
            which(keyId),
            outcomes.filter((o) => o.ok).map((o) => o.destination),
          ),
        ).catch(() => undefined); // remembered for the next rotation only; a failure costs only that
      },
      recall: async (keyId: string) => record.recall(which(keyId)),
    };
  }, [dataDir, profile.name, baseUrl, waitUntil]);
}

/** Most lines of a command's output shown in a dialog. */
const MAX_OUTPUT_LINES = 4;

/**
 * Outcomes as dialog lines: `✓ wrote KEYDECK_API_KEY into .env (a new file, mode 0600)`,
 * `✕ \`gh …\` failed (exit 1)`, then up to {@link MAX_OUTPUT_LINES} lines of a command's output,
 * indented and sanitised. Never the key.
 */
export function outcomeLines(outcomes: readonly DeliveryOutcome[]): string[] {
  const lines: string[] = [];
  for (const o of outcomes) {
    lines.push(`${o.ok ? '✓' : '✕'} ${visible(o.sentence)}`);
    const c = o.command;
    if (!c) continue;
    if (c.outputHidden) lines.push('    (its output is not shown: it held the key)');
    else {
      const out = c.output.replace(/\r\n/g, '\n').trim();
      if (out === '') continue;
      const all = out.split('\n');
      for (const line of all.slice(0, MAX_OUTPUT_LINES)) lines.push(`    ${visible(line, { maxLength: 200 })}`);
      if (all.length > MAX_OUTPUT_LINES || c.truncated) lines.push('    …');
    }
  }
  return lines;
}
