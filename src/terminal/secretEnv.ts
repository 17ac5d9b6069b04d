/**
 * The one filter of keydeck's secrets out of a child's environment, for every program keydeck
 * starts with the user's environment: the `--on-low`/`--on-anomaly` hooks (./notify.ts) and the
 * destination commands of a new key (src/delivery/command.ts), which also refuse a command line
 * naming one (src/delivery/destinations.ts). Dropped:
 * - by name: `KEYDECK_TOKEN…` (`KEYDECK_TOKEN`, `KEYDECK_TOKEN_PROD`) and `KEYDECK_SK…`
 *   (`KEYDECK_SK` and any name that begins so), whatever they hold;
 * - by value: any variable that holds a key value: `sk_`, `sk-`, `mk_` or `mk-` followed by 16
 *   or more key characters (letters, digits, `-`, `_`: `sk_live-abc_def-…` too), anywhere in it;
 * - any variable that holds one of the given secrets (the credential keydeck signs in with, a
 *   session token perhaps, whatever its form).
 */

/** True for a variable keydeck treats as a secret of its own by name: `KEYDECK_TOKEN…`, `KEYDECK_SK…`. */
export function isSecretVariable(name: string): boolean {
  return /^KEYDECK_(TOKEN|SK)/.test(name);
}

/** A full key value (`sk_`/`sk-`/`mk_`/`mk-` and 16 more key characters) anywhere in a text. */
const KEY_VALUE_IN_TEXT = /(?:^|[^A-Za-z0-9])(?:sk|mk)[-_][A-Za-z0-9_-]{16,}/;

/** True when `value` holds a full key value (see the module comment). */
export function holdsKeyValue(value: string): boolean {
  return KEY_VALUE_IN_TEXT.test(value);
}

/**
 * `env` without keydeck's secrets (see the module comment). `secrets`: values to drop any
 * variable holding (8 characters or more; shorter ones are ignored).
 */
export function withoutSecrets(env: NodeJS.ProcessEnv, secrets: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const hidden = secrets.filter((s) => s.length >= 8);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretVariable(name) || holdsKeyValue(value) || hidden.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}
