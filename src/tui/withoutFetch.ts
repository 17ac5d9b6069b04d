/**
 * Startup: Ink's layout engine (yoga-layout) ships its WebAssembly as a base64 data URL and, when
 * a global `fetch` exists, "fetches" it: on Node that first call loads undici, Node's whole HTTP
 * client, only to decode a string (~100–200 ms before the first frame on this project's
 * machines, bench/startup.mjs). With no `fetch` in sight yoga decodes the same bytes itself.
 * keydeck's HTTP client is got; only the chain reader (viem, loaded when a USDC step first reads
 * the chain, src/api/chain/reader.ts) uses `fetch`, long after start. So the TUI is imported with
 * `fetch` hidden and the global put back, untouched, right after. Imports nothing: it must run
 * before Ink loads.
 */

/**
 * Runs `load` (a dynamic import of the module graph that contains Ink) with `globalThis.fetch`
 * hidden, and restores the global exactly as it was (property descriptor included), whether
 * `load` resolves or rejects.
 */
export async function importWithoutFetch<T>(load: () => Promise<T>): Promise<T> {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!descriptor?.configurable) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true, enumerable: descriptor.enumerable ?? false });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', descriptor);
  }
}
