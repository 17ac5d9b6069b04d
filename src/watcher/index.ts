/**
 * src/watcher: the account watcher (./accountWatcher.ts), the one loop that reads an account again
 * and again for every face that does: the TUI (through a hook, src/tui/hooks/useAccountWatcher.ts),
 * `keydeck monitor` and `keydeck exporter` (each watched profile). Balance, history, the key list
 * and billing status when asked for, usage within the shared read budget, auto top-up when the face
 * was asked for it (./autoTopUpRun.ts); its schedule (./schedule.ts: jitter, backoff,
 * Retry-After), its snapshot and events (./types.ts: data, worded by the faces), the alerts a
 * reading tells (./readingAlerts.ts), its usage slice (./usageSlice.ts); one watcher per profile
 * of the config file (./profileWatchers.ts: the Accounts view, `monitor --all-profiles`).
 *
 * May import: src/api, src/billing, src/operations (auto top-up's runner, types only), src/config,
 * src/credentials (a profile's stored credential).
 * Imported by: the faces (src/tui, src/commands, src/exporter).
 */
export {};
