/**
 * What a component is told again and again, unchanged, is not kept. React keeps each update on
 * its hook's queue until the component renders again, an update that changed nothing included,
 * with its updater and all the updater holds; a component that nothing re-renders (the account's
 * lists read again in the background and found the same, a provider told at every poll that the
 * balance is not burning) would hold every one of them for as long as the app runs. Left alone
 * for a day, the TUI grew V8's heap by ~50 MB so (docs/performance.md, "The TUI's memory
 * (round 5)"). Measured here with WeakRefs to what each update held, after a full collection
 * (the inspector's `HeapProfiler.collectGarbage`; no V8 flag).
 */
import { Session } from 'node:inspector/promises';
import { Text } from 'ink';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { useChangedState } from '../../src/tui/hooks/useChangedState.js';
import { useResource, type Resource } from '../../src/tui/hooks/useResource.js';
import { renderTui } from './render.js';

/** A full garbage collection, once the current job's WeakRef targets are released. */
async function collectGarbage(): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
}

const alive = (refs: ReadonlyArray<WeakRef<object>>) => refs.filter((r) => r.deref() !== undefined).length;

const READS = 40;

describe('updates that change nothing', () => {
  it('a list read again quietly and found the same keeps none of the lists read again', async () => {
    const reads: WeakRef<object>[] = [];
    let resource: Resource<{ id: string; name: string }[]> | undefined;
    let size = 50;
    function Keys() {
      const r = useResource(async () => {
        const list = Array.from({ length: size }, (_, i) => ({ id: `k${i}`, name: `key ${i}` }));
        reads.push(new WeakRef(list));
        return list;
      });
      resource = r;
      return <Text>{r.data ? `${r.data.length} keys` : 'loading'}</Text>;
    }
    const ui = renderTui(<Keys />);
    await ui.waitFor('50 keys');
    const frames = ui.frames().length;
    // The background reads of an unchanged account: nothing to draw, and nothing re-renders it.
    for (let i = 0; i < READS; i++) expect(await resource!.reload({ quiet: true })).toBe(true);
    expect(ui.frames().length).toBe(frames);
    await collectGarbage();
    expect(reads).toHaveLength(READS + 1);
    // Only the list shown (the first read) is held.
    expect(alive(reads)).toBe(1);
    // And a list that did change is still drawn.
    size = 51;
    expect(await resource!.reload({ quiet: true })).toBe(true);
    await ui.waitFor('51 keys');
    ui.unmount();
  });

  it("a state told the same at every poll keeps nothing of what it was told (React's useState keeps all)", async () => {
    // The Usage provider at each poll: not burning (the same undefined), and its dismissals
    // kept by an updater that returns them as they are.
    const told = async (useStateOf: typeof useChangedState) => {
      const held: WeakRef<object>[] = [];
      let set: ((next: ReadonlySet<string> | ((s: ReadonlySet<string>) => ReadonlySet<string>)) => void) | undefined;
      function Told() {
        const [dismissed, setDismissed] = useStateOf<ReadonlySet<string>>(new Set());
        set = setDismissed;
        return <Text>{dismissed.size} dismissed</Text>;
      }
      const ui = renderTui(<Told />);
      await ui.waitFor('0 dismissed');
      const frames = ui.frames().length;
      for (let i = 0; i < READS; i++) {
        const reading = { at: i, samples: Array.from({ length: 50 }, (_, n) => n) };
        held.push(new WeakRef(reading));
        set!((d) => (reading.at < 0 ? new Set(d) : d));
        await new Promise((r) => setTimeout(r, 0));
      }
      expect(ui.frames().length).toBe(frames);
      await collectGarbage();
      const kept = alive(held);
      // A change is still a change: drawn.
      set!((d) => new Set([...d, 'account']));
      await ui.waitFor('1 dismissed');
      ui.unmount();
      return kept;
    };
    expect(await told(useChangedState)).toBe(0);
    // The cause, as React 19 does it: every updater kept until the component renders again.
    expect(await told(useState as unknown as typeof useChangedState)).toBe(READS);
  });
});
