/**
 * src/delivery: where a new key goes without touching the screen, and what rotations share:
 * destinations (./destinations.ts: a dotenv file, a command fed on stdin), delivering to them
 * (./deliver.ts, ./dotenv.ts, ./fileTarget.ts, ./command.ts), the record of where keys were
 * delivered (./deliveryRecord.ts, never a key), what rotations share (./rotation.ts: names, which
 * key a name designates; the machines and their records are src/operations/),
 * the records' destination parts (./recordSchemas.ts), a key's fingerprint (./fingerprint.ts),
 * a file's previous content kept and put back (./fileUndo.ts), and the old key's last use and spend
 * at the handover (./lastUse.ts, ./oldKeySpend.ts).
 *
 * May import: src/api, src/billing, src/config, src/terminal (the sanitiser, for paths in sentences).
 * Imported by: src/commands and src/tui (it sits below both faces; the house test enforces it).
 */
export {};
