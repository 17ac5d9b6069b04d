/**
 * Every environment variable keydeck reads: `keydeck help environment` prints this
 * list, and the manual's page docs/environment.md says the same (test/docs/manual.test.ts keeps them equal).
 */

/** One variable: its name and what it does. */
export interface EnvironmentVariable {
  readonly name: string;
  readonly meaning: string;
}

/** The variables, keydeck's own first. */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'KEYDECK_TOKEN', meaning: 'a session token or mk_ key to use instead of the stored one; never stored (keydeck exporter ignores it: it names no profile)' },
  {
    name: 'KEYDECK_TOKEN_<PROFILE>',
    meaning: 'keydeck exporter only: the session token or mk_ key of profile PROFILE (its name upper-cased, "." and "-" as "_": prod-eu is KEYDECK_TOKEN_PROD_EU), before the stored one; never stored',
  },
  { name: 'KEYDECK_SK', meaning: 'keydeck key-info only: the consumption key (sk_) whose own budget to read (else stdin); never stored, never echoed, never taken from the command line' },
  { name: 'KEYDECK_BASE_URL', meaning: 'the service’s base URL (same as --base-url)' },
  {
    name: 'KEYDECK_PROFILE',
    meaning:
      'the profile to use (same as --profile); without either, a .keydeck file in the working directory or above it, else the config file’s profileRules, else its current profile, else default: keydeck auth status says which rule chose it',
  },
  { name: 'KEYDECK_ALLOW_INSECURE_HTTP', meaning: '1 (or true, yes): send the key over plain http:// to a host outside this machine (same as --allow-insecure-http); without it keydeck refuses' },
  { name: 'KEYDECK_CONFIG_DIR', meaning: 'where the config file and the fallback key file live (default: the platform’s config dir)' },
  {
    name: 'KEYDECK_DATA_DIR',
    meaning:
      'where keydeck keeps its data, never a secret: the top-up record topups.db, the balance history history.db (also the per-key spend history and the shared record of usage reads), the sandbox database sandbox.db (default: the platform’s data dir, ~/.local/share/keydeck on Linux)',
  },
  { name: 'KEYDECK_HISTORY_DB', meaning: 'the balance history database file (default: history.db in the data dir)' },
  {
    name: 'KEYDECK_SANDBOX_DB',
    meaning:
      'the sandbox’s database file, for keydeck --sandbox and keydeck sandbox without --db (default: sandbox.db in the data dir); keydeck --sandbox keeps its loopback port beside it (sandbox.db.port) and takes it again when free, so the key stored at setup still belongs to the next start’s sandbox; and where it is served now, with the demo session token (sandbox.db.json, mode 0600), so that every keydeck --sandbox process uses one sandbox',
  },
  { name: 'KEYDECK_QUIET', meaning: '1 (or true, yes): no warnings on stderr, errors still (same as --quiet): for scripts and cron jobs, whose output is mailed' },
  { name: 'KEYDECK_TIMEOUT_MS', meaning: 'the deadline of each call to the service in ms, retries included (default 10000); commands then exit 4' },
  { name: 'KEYDECK_KEYCHAIN_TIMEOUT_MS', meaning: 'the deadline of each OS keychain call in ms (default 3000)' },
  {
    name: 'KEYDECK_CHAIN_RPC',
    meaning:
      'the Base JSON-RPC endpoint USDC transfers are checked on (same as --chain-rpc; https, or http to this machine; default the profile’s chainRpc, else https://mainnet.base.org); it learns the transaction hash and the deposit address',
  },
  {
    name: 'KEYDECK_AUTOTOPUP_SETTLE_SECONDS',
    meaning:
      'auto top-up’s settle wait after it sees the balance below its threshold and before it charges, in seconds: MIN-MAX (random in between, drawn on each machine) or one number; default 5-30, at most 600; 0 charges at once (for tests, or one machine alone): see Auto top-up in keydeck help topups',
  },
  { name: 'KEYDECK_CHAIN_CHECKS', meaning: '0 (or false): never read the chain, as --no-chain; USDC transfers are judged by the service alone' },
  { name: 'NO_COLOR', meaning: 'set (non-empty): no colour, in the commands and the TUI' },
  { name: 'FORCE_COLOR', meaning: 'colour even when not a terminal (0 or false: never); wins over NO_COLOR, as in Node' },
  { name: 'TERM', meaning: 'dumb: no colour, no spinner; the full-screen app and keydeck monitor refuse and point at the commands' },
  { name: 'PAGER', meaning: 'the pager keydeck help TOPIC goes through on a terminal (empty or cat: none; unset: less, with LESS=FRX unless LESS is set)' },
  { name: 'CI', meaning: 'set: no spinner' },
  { name: 'TMUX, STY', meaning: 'inside tmux or GNU screen: clipboard (OSC 52) and notification sequences go through its passthrough' },
  {
    name: 'CREDENTIALS_DIRECTORY',
    meaning: 'set by systemd (LoadCredential=): keydeck exporter reads a --token-file (or a --token-dir file) inside it as systemd hands it over, without the owner-only mode check',
  },
  { name: 'DBUS_SESSION_BUS_ADDRESS', meaning: 'unset on Linux: no keychain is tried (the key is then stored only with --insecure-storage)' },
  {
    name: 'KEYDECK_FAILPOINT',
    meaning:
      'for keydeck’s own crash tests (test/crash): NAME#N acts the N-th time keydeck reaches the named point NAME: a boundary of the process (src/failpoints) or a step of an operation (MACHINE.STEP, src/operations/kit.ts); never set it otherwise',
  },
  { name: 'KEYDECK_FAILPOINT_TRACE', meaning: 'for keydeck’s own crash tests: a file each named point keydeck reaches (boundaries and steps) is appended to, one NAME#N a line' },
  {
    name: 'KEYDECK_FAILPOINT_ACTION',
    meaning: 'for keydeck’s own crash tests: kill (the default) kills keydeck (SIGKILL) at the armed point; halt stops the operation under way in the test’s own thread instead (src/failpoints)',
  },
  { name: 'NODE_DISABLE_COMPILE_CACHE', meaning: '1: Node does not keep keydeck’s compiled code between runs (slower start)' },
];

/** The text of `keydeck help environment`: one variable a line, names aligned. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT_VARIABLES.map((v) => v.name.length));
  return ['Environment variables keydeck reads:', '', ...ENVIRONMENT_VARIABLES.map((v) => `  ${v.name.padEnd(width)}  ${v.meaning}`), ''].join('\n');
}
