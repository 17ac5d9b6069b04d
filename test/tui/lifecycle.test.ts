/**
 * The app's exit site (src/tui/lifecycle.ts) and the work handed over to it: the exit waits for
 * that work (work handed over meanwhile too) before the cleanups close what it uses (the
 * sandbox, the clients, the history database), and goes on, saying so, once its budget is spent.
 */
import { describe, expect, it } from 'vitest';
import { createLifecycle } from '../../src/tui/lifecycle.js';

/** A lifecycle around nothing (no Ink), its stderr and the order of what happened. */
function rig(workBudgetMs?: number, noticeAfterMs?: number) {
  const order: string[] = [];
  let said = '';
  const stderr = { write: (text: string) => ((said += text), true) } as unknown as NodeJS.WritableStream;
  const lifecycle = createLifecycle({
    unmount: () => order.push('unmounted'),
    waitUntilExit: async () => undefined,
    stderr,
    setExitCode: () => undefined,
    ...(workBudgetMs !== undefined && { workBudgetMs }),
    ...(noticeAfterMs !== undefined && { noticeAfterMs }),
  });
  lifecycle.onCleanup(() => void order.push('cleaned up'));
  return { lifecycle, order, said: () => said };
}

/** A promise settled by hand. */
function gate() {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

describe('the exit and the work handed over', () => {
  it('waits for the work (and work handed over meanwhile, failed or not) before the cleanups', async () => {
    const { lifecycle, order, said } = rig();
    const record = gate();
    const stop = gate();
    void lifecycle.waitUntil(record.promise.then(() => void order.push('record written')));
    const exited = lifecycle.exit(0);
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['unmounted']);
    // Handed over during the exit (a flow's cleanup at the unmount): waited too, its failure its owner's.
    void lifecycle.waitUntil(stop.promise);
    stop.promise.catch(() => void order.push('stop failed'));
    record.open();
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['unmounted', 'record written']);
    stop.fail(new Error('gone'));
    expect(await exited).toBe(0);
    expect(order).toEqual(['unmounted', 'record written', 'stop failed', 'cleaned up']);
    expect(said()).toBe('');
  });

  it('goes on once its budget is spent, and says so', async () => {
    const { lifecycle, order, said } = rig(50);
    void lifecycle.waitUntil(new Promise(() => undefined));
    expect(await lifecycle.exit(130)).toBe(130);
    expect(order).toEqual(['unmounted', 'cleaned up']);
    expect(said()).toMatch(/^keydeck: left work still under way/);
  });

  it('says it is waiting once the wait is noticeable, and a second ctrl-c leaves at once', async () => {
    const { lifecycle, order, said } = rig(60_000, 50);
    void lifecycle.waitUntil(new Promise(() => undefined));
    const exited = lifecycle.exit(130);
    await new Promise((r) => setTimeout(r, 20));
    expect(said()).toBe('');
    await new Promise((r) => setTimeout(r, 80));
    expect(said()).toBe('keydeck: finishing the work under way (at most 60 s; ctrl-c again leaves now)\n');
    expect(order).toEqual(['unmounted']);
    // The second ctrl-c: the wait ends now, the first call's code stands.
    const started = Date.now();
    expect(lifecycle.exit(130)).toBe(exited);
    expect(await exited).toBe(130);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(order).toEqual(['unmounted', 'cleaned up']);
    expect(said()).toMatch(/\nkeydeck: left work still under way/);
  });

  it('says nothing of a wait that ends before it is noticed', async () => {
    const { lifecycle, said } = rig(60_000, 50);
    void lifecycle.waitUntil(new Promise((r) => setTimeout(r, 10)));
    expect(await lifecycle.exit(0)).toBe(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(said()).toBe('');
  });
});
