/**
 * Command hints that carry the run's flags (src/terminal/commandHint.ts): under `--sandbox` every
 * hint of a service command in a sentence gets the flag, once, outside quoted names; runs at once
 * keep their own flags.
 */
import { describe, expect, it } from 'vitest';
import { commandHint, runHintFlags, withHintFlags, withRunFlags } from '../../src/terminal/commandHint.js';

const SANDBOX = ['--sandbox'];

describe('withHintFlags', () => {
  it('adds --sandbox to every service command hint, in backticks or not, after flags already given', () => {
    expect(withHintFlags('to proceed run `keydeck keys delete k_1 --yes`', SANDBOX)).toBe('to proceed run `keydeck --sandbox keys delete k_1 --yes`');
    expect(withHintFlags('move it aside with keydeck billing history --accept-loss; see keydeck keys list', SANDBOX)).toBe(
      'move it aside with keydeck --sandbox billing history --accept-loss; see keydeck --sandbox keys list',
    );
    expect(withHintFlags('sign in with `keydeck --profile work auth login`', SANDBOX)).toBe('sign in with `keydeck --sandbox --profile work auth login`');
    expect(withHintFlags('(keydeck mgmt-keys list)', SANDBOX)).toBe('(keydeck --sandbox mgmt-keys list)');
  });

  it('leaves alone what is not a hint: prose, other commands, hints with the flag, quoted names', () => {
    for (const text of [
      'keydeck does not send it; keydeck keeps its record',
      'run keydeck profile list or keydeck help topups',
      'run `keydeck --sandbox keys list`',
      'Deleted the key "keydeck keys list" (id k_1).',
      'the keydeck keyring',
      // A hint about another service: --sandbox and --base-url do not go together.
      'no such profile "x": `keydeck auth login --profile x --base-url URL` creates it',
    ]) {
      expect(withHintFlags(text, SANDBOX)).toBe(text);
    }
    expect(withHintFlags('run keydeck keys list', [])).toBe('run keydeck keys list');
  });

  it('uses the flags of the run under way, each run its own', async () => {
    expect(runHintFlags()).toEqual([]);
    const [a, b] = await Promise.all([
      withRunFlags(SANDBOX, async () => {
        await new Promise((r) => setTimeout(r, 5));
        return withHintFlags('run keydeck keys list');
      }),
      withRunFlags([], async () => {
        await new Promise((r) => setTimeout(r, 1));
        return withHintFlags('run keydeck keys list');
      }),
    ]);
    expect(a).toBe('run keydeck --sandbox keys list');
    expect(b).toBe('run keydeck keys list');
    expect(withRunFlags(SANDBOX, () => commandHint('billing credits'))).toBe('keydeck --sandbox billing credits');
  });
});
