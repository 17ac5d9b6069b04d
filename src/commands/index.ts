/**
 * src/commands: the non-interactive face (`keydeck keys|mgmt-keys|billing|auth|profile|…`):
 * one module per command, lines for people or one JSON document with `--json`, exit codes of
 * ./output.ts, tables of ./table.ts, every refusal a row of a wording table (./wordingKeys.ts,
 * ./wordingBilling.ts, ./wordingAccount.ts). Every text from outside goes through src/terminal's
 * sanitiser before it is printed.
 *
 * May import: src/watcher (monitor's account watcher), src/operations, src/api, src/billing,
 * src/config, src/credentials, src/delivery, src/metrics, src/terminal, src/sandbox (`keydeck sandbox`); never src/tui (the monitor's Ink face is imported from src/cli).
 * Imported by: src/cli only (the house test enforces it).
 */
export {};
