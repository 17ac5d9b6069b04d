/**
 * src/exporter: `keydeck exporter`, the headless face for Prometheus: no Ink, no
 * React, no terminal. ./run.ts is the process (HTTP face, signals, reload), ./profile.ts one
 * profile (its account watcher, src/watcher, and what the exporter makes of it), ./profiles.ts and
 * ./options.ts what to watch, ./credentials.ts where each profile's key comes from (never argv),
 * ./log.ts its log lines; `--auto-topup` and `--enforce` act on each profile after its polls
 * (./autoTopUp.ts, ./guardrails.ts).
 *
 * May import: src/watcher (each profile's account watcher), src/operations (auto top-up, the
 * guardrails' pass), src/api, src/billing, src/config, src/credentials, src/delivery, src/metrics,
 * src/terminal;
 * never src/tui or src/commands (the house test enforces it).
 * Imported by: src/cli only.
 */
export {};
