/**
 * src/metrics: the Prometheus metrics (prom-client), shared by `keydeck monitor --metrics`
 * and `keydeck exporter`: one registry per account (./account.ts), spend per key and the usage
 * budget (./spend.ts, ./usage.ts), each governed key's budget and the guardrails' actions
 * (./guardrails.ts), the process and build info (./process.ts), the merged
 * exposition (./exposition.ts) and its HTTP face (./server.ts, ./address.ts); a cron job's run
 * for node_exporter's textfile collector (./textfile.ts).
 *
 * May import: src/api, src/billing, src/config (the atomic write), src/terminal.
 * Imported by: src/commands (monitor, the cron jobs' --metrics-textfile) and src/exporter; never by src/tui.
 */
export {};
