/**
 * Left alone, the header draws no frame for what its own polls change (each React commit is a
 * whole frame drawn again by Ink): its "updated just now" woke at its 15-second step though polls
 * every 2 s keep it "just now", and made a commit for the same text.
 */
import { Text } from 'ink';
import { describe, expect, it } from 'vitest';
import { useAge } from '../../src/tui/hooks/useAge.js';
import { renderTui } from './render.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('idle frames', () => {
  it('an age read from a time that moves without a render commits only when its text changes', async () => {
    let at = Date.now();
    function Age() {
      return <Text>updated {useAge(() => at, Date.now, 1)}</Text>;
    }
    const ui = renderTui(<Age />);
    await ui.waitFor('updated just now');
    const before = ui.frames().length;
    // Moved every 300 ms (a poll kept in a ref): still "just now" at each 1-second step, no commit.
    const moving = setInterval(() => (at = Date.now()), 300);
    await sleep(2500);
    clearInterval(moving);
    expect(ui.frames().length - before).toBe(0);
    // Left alone, the age goes on: the next step draws it.
    await ui.waitFor('updated 1 s ago', 3000);
    ui.unmount();
  });
});
