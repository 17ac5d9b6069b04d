/**
 * src/operations: keydeck's multi-step operations as persisted state machines (issue 42;
 * DESIGN.md "Boundaries"): create and deliver a key, rotate a consumption key, rotate a management
 * key, a USDC top-up from instruction to verify, a pledge's key (and auto top-up, issue 47). Each
 * module names its states and crash points in one table (its doc comment, and docs/crash-safety.md),
 * writes its state before each effect, and recovers by reading the world (the service's lists, the
 * stored credential's prefix, each destination's content) before its own record: observe → decide
 * → one step, as a Kubernetes controller reconciles. The TUI and the commands drive the same
 * machines; test/crash walks every state boundary with a kill (src/failpoints).
 *
 * Here: ./createKey.ts (create and deliver a key, and its record ./record.ts), ./pledgeKey.ts (a
 * pledge's key: the same machine), ./rotateKey.ts and ./rotateRecovery.ts (rotate a consumption
 * key), ./targets.ts (delivering one key to an operation's destinations, step by step), ./creating.ts
 * (what a failed creating call leaves); ./mgmtRotate.ts (`mgmt-keys rotate`, its record
 * ./mgmtRotationRecord.ts, the places a key lives ./credentialPlace.ts). The USDC top-up's machine
 * is the top-up record itself (src/billing/journalEntry.ts, verifyUsdc.ts), which both faces and
 * src/billing's own procedures drive; auto top-up sits here on that record (./autoTopUp.ts, its
 * state between runs ./autoTopUpSummary.ts, and the faces' runner ./autoTopUpRunner.ts).
 *
 * May import: src/api, src/billing, src/config, src/credentials, src/delivery, src/failpoints.
 * Imported by: src/commands, src/tui and src/exporter (the faces drive them), and src/watcher
 * (auto top-up's runner, after each balance read).
 */
export {};
