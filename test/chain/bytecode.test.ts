/**
 * The sandbox's USDC bytecode (src/sandbox/chain/sandboxUsdc.ts) is the committed Solidity's: a
 * fresh solc-js compile with the script's settings gives the same bytes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { compileSandboxUsdc, moduleText } from '../../scripts/compile-sandbox-usdc.mjs';

describe('the sandbox USDC', () => {
  it('is compiled from the committed SandboxUsdc.sol (run scripts/compile-sandbox-usdc.mjs --write after changing it)', () => {
    const committed = readFileSync(new URL('../../src/sandbox/chain/sandboxUsdc.ts', import.meta.url), 'utf8');
    expect(committed).toBe(moduleText(compileSandboxUsdc()));
  }, 60_000);
});
