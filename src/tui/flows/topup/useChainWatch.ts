/**
 * The deposit address watched while the USDC step is on screen: USDC transfers
 * to it, read with `eth_getLogs` at most once per 4 s (src/billing/chainWatch.ts), listed with
 * their amount, sender, hash and confirmations so one can be verified without a pasted hash. A
 * transfer already credited on keydeck's record is never offered. The chain reader is loaded only
 * here, when a USDC step is shown; a chain that cannot be read is one line, and the step goes on.
 */
import { useEffect, useState } from 'react';
import type { FoundTransfer } from '../../../api/chain/reader.js';
import { rpcHostOf } from '../../../api/chain/rpcUrl.js';
import type { ChainSettings } from '../../../billing/chainSettings.js';
import { isUnfinished, type JournalEntry } from '../../../billing/journal.js';

/** What the USDC step shows of the chain. */
export interface ChainWatchView {
  /** One line: where the chain is watched, or why it cannot be read; undefined when it is not read. */
  readonly status?: string;
  /** Transfers to the deposit address not credited on record, oldest first. */
  readonly transfers: readonly FoundTransfer[];
}

const NONE: ChainWatchView = { transfers: [] };

/** Options of {@link useChainWatch}. */
export interface ChainWatchOptions {
  /** The step is shown and its pane active: watch. */
  readonly active: boolean;
  readonly entry?: JournalEntry;
  readonly baseUrl?: string;
  /** The shell's chain settings (services.chainSettings); absent: nothing is read. */
  readonly settingsOf?: (baseUrl: string) => Promise<ChainSettings>;
  /** Hashes credited on record (lower case): never offered. */
  readonly credited: ReadonlySet<string>;
}

/** See the module comment. */
export function useChainWatch(options: ChainWatchOptions): ChainWatchView {
  const { active, entry, baseUrl, settingsOf } = options;
  const [view, setView] = useState<ChainWatchView>(NONE);
  // Watched while the top-up is unfinished: a verify moving it to `verifying` and back does not
  // restart the watch (which would drop the list and read the whole range again).
  const address = entry?.method === 'usdc' && isUnfinished(entry.state) ? entry.address : undefined;
  const since = entry?.createdAt;
  useEffect(() => {
    setView(NONE);
    if (!active || address === undefined || baseUrl === undefined || settingsOf === undefined) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void (async () => {
      let settings: ChainSettings;
      try {
        settings = await settingsOf(baseUrl);
      } catch (error) {
        if (!stopped) setView({ status: `chain not read: ${(error as Error).message}`, transfers: [] });
        return;
      }
      if (stopped || !settings.enabled) return;
      const { DepositWatch, WATCH_INTERVAL_MS } = await import('../../../billing/chainWatch.js');
      if (stopped) return;
      const watch = new DepositWatch(settings.rpcUrl, address as `0x${string}`, Date.parse(since ?? '') || Date.now());
      const watching = `watching for USDC on Base through ${rpcHostOf(settings.rpcUrl)}, every ${WATCH_INTERVAL_MS / 1000} s`;
      setView({ status: watching, transfers: [] });
      const tick = async () => {
        const polled = await watch.poll();
        if (stopped) return;
        setView(polled.kind === 'ok' ? { status: watching, transfers: polled.transfers } : (v) => ({ status: polled.sentence, transfers: v.transfers }));
        timer = setTimeout(() => void tick(), WATCH_INTERVAL_MS);
      };
      await tick();
    })();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [active, address, since, baseUrl, settingsOf]);
  const transfers = view.transfers.filter((t) => !options.credited.has(t.txHash.toLowerCase()));
  return transfers.length === view.transfers.length ? view : { ...view, transfers };
}
