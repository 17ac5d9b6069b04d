/**
 * Fields of the config file this keydeck does not know (./config.ts): a field a newer keydeck
 * wrote (the CLI and the exporter share the file, and are not always upgraded together) or a typo.
 * They are taken out before the file is validated, said by name (never by value: a pasted token
 * stays unseen), and kept when keydeck writes the file again, so an older keydeck never loses what
 * a newer one wrote. A field keydeck knows with a value it refuses is still an error.
 *
 * Where they are taken out: the top level, each profile, a profile's `topUpMethods`. Not inside a
 * profile's `autoTopUp`: a policy that authorises charges is acted on only when every field of it
 * is understood (a cap a newer keydeck added and this one ignored would be passed), so an unknown
 * field there is an error as before.
 */

/** The fields keydeck knows, by place. */
export interface KnownFields {
  readonly top: readonly string[];
  readonly profile: readonly string[];
  readonly topUpMethods: readonly string[];
}

/** What was taken out: the dotted paths, and the values to write back. */
export interface UnknownFields {
  /** Dotted paths, in the file's order: `telemetry`, `profiles.prod.baseURL`, `profiles.prod.topUpMethods.paypal`. */
  readonly paths: readonly string[];
  readonly top: Readonly<Record<string, unknown>>;
  readonly profiles: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly topUpMethods: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** No unknown field. */
export const NO_UNKNOWN_FIELDS: UnknownFields = { paths: [], top: {}, profiles: {}, topUpMethods: {} };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `object` without the keys not in `known`, and those keys with their values. */
function split(object: Record<string, unknown>, known: readonly string[]): { kept: Record<string, unknown>; extra: Record<string, unknown> } {
  const kept: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) (known.includes(key) ? kept : extra)[key] = value;
  return { kept, extra };
}

/**
 * `data` (the parsed JSON) without the fields keydeck does not know, and what was taken out.
 * Anything that is not an object where an object belongs is left for the schema to refuse.
 */
export function stripUnknownFields(data: unknown, known: KnownFields): { data: unknown; unknown: UnknownFields } {
  if (!isObject(data)) return { data, unknown: NO_UNKNOWN_FIELDS };
  const paths: string[] = [];
  const { kept: top, extra: topExtra } = split(data, known.top);
  paths.push(...Object.keys(topExtra));
  const profilesExtra: Record<string, Record<string, unknown>> = {};
  const methodsExtra: Record<string, Record<string, unknown>> = {};
  if (isObject(top.profiles)) {
    const profiles: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(top.profiles)) {
      if (!isObject(entry)) {
        profiles[name] = entry;
        continue;
      }
      const { kept, extra } = split(entry, known.profile);
      if (Object.keys(extra).length > 0) profilesExtra[name] = extra;
      paths.push(...Object.keys(extra).map((key) => `profiles.${name}.${key}`));
      if (isObject(kept.topUpMethods)) {
        const methods = split(kept.topUpMethods, known.topUpMethods);
        kept.topUpMethods = methods.kept;
        if (Object.keys(methods.extra).length > 0) methodsExtra[name] = methods.extra;
        paths.push(...Object.keys(methods.extra).map((key) => `profiles.${name}.topUpMethods.${key}`));
      }
      profiles[name] = kept;
    }
    top.profiles = profiles;
  }
  return { data: top, unknown: { paths, top: topExtra, profiles: profilesExtra, topUpMethods: methodsExtra } };
}

/** `config` (as keydeck writes it) with `unknown` put back where it was, for the profiles still there. */
export function withUnknownFields<T extends { profiles: Record<string, object> }>(config: T, unknown: UnknownFields): T {
  if (unknown.paths.length === 0) return config;
  const profiles: Record<string, object> = {};
  for (const [name, entry] of Object.entries(config.profiles)) {
    const methods = (entry as { topUpMethods?: object }).topUpMethods;
    profiles[name] = {
      ...entry,
      ...unknown.profiles[name],
      ...(methods !== undefined && unknown.topUpMethods[name] && { topUpMethods: { ...methods, ...unknown.topUpMethods[name] } }),
    };
  }
  return { ...config, ...unknown.top, profiles };
}
