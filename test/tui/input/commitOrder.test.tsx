/**
 * The input layer waits for React's commit, not for a fixed tick: under load (here, effects that
 * take 12 ms each, as a slow machine's would) every key of one write still acts on the state the
 * key before left. A handler that computes the next state from its render's closure, as most do,
 * counts each press.
 */
import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { KeymapProvider, useKeymap } from '../../../src/tui/contexts/KeymapContext.js';
import { renderTui } from '../render.js';

function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a slow effect
  }
}

/** A pane whose `s` steps a counter from its render's value, with slow effects after each commit. */
function Counter() {
  const [count, setCount] = useState(0);
  useKeymap('keys', { 'keys.sort': () => setCount(count + 1) });
  useEffect(() => busyWait(12));
  return <Text>{`count ${count}`}</Text>;
}

describe('keys of one write, under load', () => {
  it('acts on the state each key left: eight `s` in one write are eight steps', async () => {
    const ui = renderTui(
      <KeymapProvider onQuit={() => {}}>
        <Counter />
      </KeymapProvider>,
    );
    await ui.waitFor('count 0');
    await ui.press('ssssssss');
    await ui.waitFor('count 8', 3000);
    await ui.press('ss', 'sss');
    await ui.waitFor('count 13', 3000);
    expect(ui.lastFrame()).toContain('count 13');
    ui.unmount();
  });
});
