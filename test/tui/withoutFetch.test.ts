/** The TUI is imported with `fetch` hidden (Ink's layout engine then never loads undici), and the global is put back as it was. */
import { describe, expect, it } from 'vitest';
import { importWithoutFetch } from '../../src/tui/withoutFetch.js';

describe('importWithoutFetch', () => {
  it('hides fetch while loading, then restores the very same property', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    const seen = await importWithoutFetch(async () => typeof globalThis.fetch);
    expect(seen).toBe('undefined');
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
  });

  it('restores fetch when loading fails', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    await expect(importWithoutFetch(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
  });
});
