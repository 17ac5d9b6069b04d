/**
 * src/billing: the account's money and spend as keydeck reasons about them, for both faces.
 *
 * What lives here: the top-up procedures and their shared record on disk (./topups.ts,
 * ./verifyUsdc.ts, ./journal.ts with its model in ./journalEntry.ts, its file in ./journalFile.ts,
 * its summary in ./journalSummary.ts and the way past a damaged one in ./journalLoss.ts: "credited"
 * only on evidence that names the top-up, ./evidence.ts, ./usedHash.ts), input rules for amounts and hashes (./input.ts), the
 * USDC instruction and its EIP-681 link (./instruction.ts, ./eip681.ts), the balance history
 * (./historyStore.ts, ./historyDb.ts, ./history.ts) with burn rates, run-out, chart and sparkline,
 * each watched profile's poll state kept across restarts (./pollState.ts),
 * the low-balance alert (./alert.ts), spend per key with the usage read budget shared by every
 * keydeck process (./usageBudget.ts, ./usageTracker.ts, ./usageReads.ts, ./keyHistory.ts,
 * ./spend.ts) and the runaway-key judgement (./runaway.ts); the pool subscriptions: which
 * subscriptions and pledges have no key, whether one may be minted, a key's blocks
 * (./pledges.ts), the pools in words (./poolView.ts) and cancelling a renewal (./renewals.ts); a key's published limits, each figure
 * with its source (./keyLimits.ts, for the Keys pane and `keys show` alike); auto top-up's decision
 * (./autoTopUp.ts) and what it counts from the service's list of top-ups and the record; a key's
 * guardrails as figures and words: its budget's period and spend, the soft cap's worst case, its
 * deadlines (./guardrails.ts, ./guardrailWords.ts)
 * (./serviceTopUps.ts, ./autoTopUpCount.ts); words for people in ./usageWords.ts
 * and ./statusSummary.ts. No terminal drawing: sentences and numbers only.
 *
 * May import: src/api, src/config, src/credentials (a credential's id), src/terminal.
 * Imported by: src/commands, src/tui, src/delivery, src/metrics, src/exporter, src/watcher, src/operations.
 */
export {};
