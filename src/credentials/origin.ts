/**
 * Which service a stored key belongs to (docs/architecture.md, "Boundaries": credential → network). A key is
 * stored per profile and per service origin (scheme, host, port), as `gh` stores a token per
 * host: keychain account and file entry `<profile>@<origin>`, e.g. `default@https://api.example.com`.
 * A key is only ever read back for the origin it was stored for, so `--base-url` naming another
 * service never sends it there. Keys stored before keydeck kept them per origin sit under the bare
 * profile name; they count as the key of the profile's saved base URL ({@link OriginTarget.legacy}).
 */

/** Where a key is looked up or stored: the service origin, and whether a pre-origin key counts. */
export interface OriginTarget {
  /** `https://api.example.com` (URL `origin`: scheme, host, port when not the default). */
  readonly origin: string;
  /**
   * True when a key stored under the bare profile name (before keys were kept per origin) belongs
   * to {@link origin}: the profile's saved base URL has that origin.
   */
  readonly legacy: boolean;
}

/**
 * The origin of a base URL: `https://API.example.com:443/v1` → `https://api.example.com`.
 * @throws TypeError when `baseUrl` is not a URL
 */
export function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/**
 * The {@link OriginTarget} of a profile used with `baseUrl` (flag, env or profile), given the
 * profile's own saved base URL (undefined when it has none).
 */
export function originTarget(baseUrl: string, savedBaseUrl: string | undefined): OriginTarget {
  const origin = originOf(baseUrl);
  let legacy: boolean;
  try {
    legacy = savedBaseUrl !== undefined && originOf(savedBaseUrl) === origin;
  } catch {
    // a saved base URL that is not a URL is no legacy match
    legacy = false;
  }
  return { origin, legacy };
}

/** The keychain account (and file entry) of `profile`'s key for `origin`; the bare profile name without one. */
export function credentialAccount(profile: string, origin: string | undefined): string {
  return origin === undefined ? profile : `${profile}@${origin}`;
}
