/**
 * Wire-format schemas of the service interface (the service's resources).
 *
 * One source of truth for field names: the client parses every response with these, and the
 * sandbox validates its request bodies with the request schemas below. Response objects are
 * "loose": unknown extra fields are kept, never fatal (the real service may send more than the service's resources
 * shows). Amounts are USD numbers; timestamps are ISO 8601 strings.
 */
import { z } from './zod.js';
import { microsToDecimal, microsToUsd, parseUsdMicros } from './money.js';
import { TopUpMethodNameSchema } from './methodName.js';

/**
 * The schema `build` makes, built the first time it is used (a parse, or the first parse of a
 * schema that holds it), not when this module loads: zod's `z.lazy`, which parses, fails and
 * words its issues exactly as the schema it holds. A command reads one or two resources, and
 * building every schema of the wire at load cost each one-shot command (`keys list`, `billing
 * credits`) about a tenth of its instructions (docs/performance.md, "One-shot commands"); a
 * command that lists keys now builds the keys' schemas alone (test/house/schemasOnUse.test.ts).
 */
export function onFirstUse<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(build);
}

/** An ISO 8601 timestamp string (not parsed into a Date: the wire keeps strings). */
const isoTimestamp = z.string().min(1);

/**
 * `schema` (an object of an answer) reading null as "not set" for every optional field that does
 * not itself give null a meaning (the newer billing page sends
 * `"subscriptionExpiresAt": null`, and one null must never break a whole list): such a field sent
 * as null is left out before the schema reads the object, as if it had not been sent. A field
 * whose null means something (`lastUsedAt: null`, never used) keeps its null. The output type is
 * the schema's own.
 */
export function nullAsUnset<S extends z.ZodObject>(schema: S) {
  const unset = Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => field.safeParse(undefined).success && !field.safeParse(null).success)
    .map(([name]) => name);
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const name of unset) {
      if ((value as Record<string, unknown>)[name] !== null) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      delete copy[name];
    }
    return copy ?? value;
  }, schema);
}

/**
 * A USD amount in an answer: a JSON number or a decimal string (the older
 * documentation pages), read exactly into µUSD by ./money.ts and carried as the USD number
 * `micros / 1e6`. Anything else is an issue naming the field.
 */
export const UsdAmountSchema = onFirstUse(() =>
  z.union([z.number(), z.string()], { error: 'must be a USD amount (a number or a decimal string)' }).transform((value, ctx) => {
    const micros = parseUsdMicros(value);
    if (micros === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a USD amount (a number or a decimal string)' });
      return z.NEVER;
    }
    return microsToUsd(micros);
  }),
);

/** A consumption key as listed by `GET /api/keys` (never carries `apiKey`). */
export const ConsumptionKeySchema = onFirstUse(() =>
  nullAsUnset(
    z.looseObject({
      id: z.string().min(1),
      name: z.string(),
      /** Seen values: `standard`, `credits`; the Pro tier's value is not shown, so any string. */
      keyPlan: z.string(),
      /** `subscription` or `credit`; kept a string so an unknown future type is not fatal. */
      keyType: z.string(),
      isActive: z.boolean(),
      /** Subscription keys only. Seen value: `active`. */
      subscriptionStatus: z.string().optional(),
      /** Subscription keys only: 30 days after the key's start. */
      subscriptionExpiresAt: isoTimestamp.optional(),
      createdAt: isoTimestamp,
      /** Not in the consumption key's fields; the newer documentation pages list it on consumption keys. Null: never used. */
      lastUsedAt: isoTimestamp.nullable().optional(),
    }),
  ),
);
export type ConsumptionKey = z.infer<typeof ConsumptionKeySchema>;

/** The service's `GET /api/keys`: an array of consumption keys. */
export const ConsumptionKeyListSchema = onFirstUse(() => z.array(ConsumptionKeySchema));

/**
 * A full consumption key value: `sk_` or `sk-` (the newer keys page shows `"sk-..."`)
 * followed by at least one character.
 */
export const ConsumptionKeyValueSchema = onFirstUse(() => z.string().regex(/^sk[_-][A-Za-z0-9_-]+$/, 'must be an sk_ (or sk-) key'));
/** A full management key value: `mk_`, or `mk-` as the newer pages write keys, followed by at least eight characters. */
export const ManagementKeyValueSchema = onFirstUse(() => z.string().regex(/^mk[_-][A-Za-z0-9_-]{8,}$/, 'must be an mk_ (or mk-) key'));

/**
 * The service's `POST /api/keys/credit` response: the created credit key with its full `apiKey`,
 * returned only this once. `keyPlan` is not listed for this response, so it is optional.
 */
export const CreatedConsumptionKeySchema = onFirstUse(() =>
  nullAsUnset(
    z.looseObject({
      id: z.string().min(1),
      name: z.string(),
      keyType: z.string(),
      keyPlan: z.string().optional(),
      apiKey: ConsumptionKeyValueSchema,
      isActive: z.boolean(),
      createdAt: isoTimestamp,
    }),
  ),
);
export type CreatedConsumptionKey = z.infer<typeof CreatedConsumptionKeySchema>;

/** The service's `DELETE /api/keys/:id` response. */
export const DeletedKeySchema = onFirstUse(() => z.looseObject({ deleted: z.literal(true) }));
export type DeletedKey = z.infer<typeof DeletedKeySchema>;

/** A management key as listed by `GET /api/keys/management` (never carries `apiKey`). */
export const ManagementKeySchema = onFirstUse(() =>
  nullAsUnset(
    z.looseObject({
      id: z.string().min(1),
      name: z.string(),
      /** `mk_` followed by 8 characters. */
      keyPrefix: z.string(),
      isActive: z.boolean(),
      /** ISO 8601; a never-used key may carry null (not shown in the spec, so tolerated). */
      lastUsedAt: isoTimestamp.nullable().optional(),
      createdAt: isoTimestamp,
    }),
  ),
);
export type ManagementKey = z.infer<typeof ManagementKeySchema>;

/** The service's `GET /api/keys/management`: an array of management keys. */
export const ManagementKeyListSchema = onFirstUse(() => z.array(ManagementKeySchema));

/** The service's `POST /api/keys/management` response: `apiKey` is the full key, shown once. */
export const CreatedManagementKeySchema = onFirstUse(() =>
  z.looseObject({
    id: z.string().min(1),
    name: z.string(),
    keyPrefix: z.string(),
    apiKey: ManagementKeyValueSchema,
  }),
);
export type CreatedManagementKey = z.infer<typeof CreatedManagementKeySchema>;

/**
 * The credit balance record Credit balance record (data of `GET /api/billing/credits`). Money as a number or a decimal
 * string (USD); `creditKeyCount` may be missing when the older pages' `creditKeyId` (the id of
 * the one credit key, or null) stands in for it: 1 with an id, 0 without; `userId` may be missing
 * (the older pages do not show it): null then.
 */
export const CreditBalanceSchema = onFirstUse(() =>
  nullAsUnset(
    z.looseObject({
      /** Sum of all top-ups ever made, USD. */
      totalTopUp: UsdAmountSchema,
      /** Currently available balance, USD, real-time. */
      remaining: UsdAmountSchema,
      hasCreditKey: z.boolean(),
      /** Number of active credit keys. */
      creditKeyCount: z.number().int().min(0).optional(),
      /** The older pages' stand-in for `creditKeyCount`: the credit key's id, or null. */
      creditKeyId: z.string().nullable().optional(),
      /** Null until the first top-up. */
      userId: z.string().nullable().optional(),
    }),
  ).transform((record, ctx) => {
    let creditKeyCount = record.creditKeyCount;
    if (creditKeyCount === undefined) {
      if (record.creditKeyId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['creditKeyCount'], message: 'must be a number (or creditKeyId must be present)' });
        return z.NEVER;
      }
      creditKeyCount = record.creditKeyId === null ? 0 : 1;
    }
    return { ...record, creditKeyCount, userId: record.userId ?? null };
  }),
);
export type CreditBalance = z.infer<typeof CreditBalanceSchema>;

/** The card checkout session Card checkout session (data of a `card_checkout` top-up). */
export const CardCheckoutSessionSchema = onFirstUse(() =>
  z.looseObject({
    sessionUrl: z.string().min(1),
    sessionId: z.string().min(1),
  }),
);
export type CardCheckoutSession = z.infer<typeof CardCheckoutSessionSchema>;

/** The USDC payment instruction USDC payment instruction (data of a `usdc` top-up). `amount` is a string. */
export const UsdcPaymentInstructionSchema = onFirstUse(() =>
  z.looseObject({
    address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'),
    /** Network name; the seen value is `base`. */
    chain: z.string(),
    /**
     * The amount to send, USD, as a decimal string: a string as sent (the newer pages'
     * `"50"`) or a number turned into its decimal (the older pages' `25`). Above 0.
     */
    amount: z.union([z.string(), z.number()], { error: 'must be an amount (a decimal string or a number)' }).transform((value, ctx) => {
      const micros = parseUsdMicros(value);
      if (micros === undefined || micros <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be an amount above 0 (a decimal string or a number)' });
        return z.NEVER;
      }
      return typeof value === 'string' ? value : microsToDecimal(micros);
    }),
  }),
);
export type UsdcPaymentInstruction = z.infer<typeof UsdcPaymentInstructionSchema>;

/** The verified top-up result Verified top-up result. USD numbers. */
export const VerifiedTopUpSchema = onFirstUse(() =>
  z.looseObject({
    /** USD credited (a number, or a decimal string). */
    credited: UsdAmountSchema,
    /** Balance in USD after crediting (a number, or a decimal string as on the older pages). */
    balance: UsdAmountSchema,
  }),
);
export type VerifiedTopUp = z.infer<typeof VerifiedTopUpSchema>;

/** The service's endpoints for billing envelope: `{ success, data }`; `success: false` is an error whatever the status. */
export const BillingEnvelopeSchema = onFirstUse(() =>
  z.looseObject({
    success: z.boolean(),
    data: z.unknown().optional(),
    error: z.unknown().optional(),
  }),
);

/**
 * The error body shape of docs/real-service.md (`{ error: { code, message } }`, also inside the billing
 * envelope). The real service's shape is not shown: parsed only when present.
 */
export const ErrorBodySchema = onFirstUse(() =>
  z.looseObject({
    error: z.looseObject({ code: z.string(), message: z.string().optional() }),
  }),
);

// ---------------------------------------------------------------------------------------------
// Requests (validated by the client before sending, and by the sandbox on receipt).

/** Longest key name accepted, in characters. */
export const MAX_NAME_LENGTH = 128;
/** Minimum top-up, USD. */
export const MIN_TOP_UP_USD = 10;
/** Largest amount keydeck will send in one top-up, USD (a sanity bound; the spec sets none). */
export const MAX_TOP_UP_USD = 1_000_000;

/** A key name: trimmed, non-empty, at most {@link MAX_NAME_LENGTH} characters, no control characters. */
export const KeyNameSchema = onFirstUse(() =>
  z
    .string()
    .trim()
    .min(1, 'name must not be empty')
    .max(MAX_NAME_LENGTH, `name must be at most ${MAX_NAME_LENGTH} characters`)
    // No C0/C1 control, DEL, bidi override, zero-width or other invisible format character, no line
    // separator: a name is shown on terminals and must look like what it is.
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, 'name must not contain control, direction or invisible characters'),
);

/** Why `value` is refused as a key name ({@link KeyNameSchema}'s first message), or undefined. */
export function keyNameProblem(value: string): string | undefined {
  const r = KeyNameSchema.safeParse(value);
  return r.success ? undefined : (r.error.issues[0]?.message ?? 'invalid name');
}

/** True when `value` (USD) has at most two decimals, tolerant of binary floating point. */
export function hasAtMostTwoDecimals(value: number): boolean {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

/** A top-up amount in USD: finite, ≥ 10, ≤ 1,000,000, at most two decimals. */
export const TopUpAmountSchema = onFirstUse(() =>
  z
    .number({ error: 'amount must be a number' })
    .refine(Number.isFinite, 'amount must be a finite number')
    .refine((v) => v >= MIN_TOP_UP_USD, `amount must be at least ${MIN_TOP_UP_USD} USD`)
    .refine((v) => v <= MAX_TOP_UP_USD, `amount must be at most ${MAX_TOP_UP_USD} USD`)
    .refine(hasAtMostTwoDecimals, 'amount must have at most two decimals'),
);

/**
 * The service's endpoints top-up `method` kinds, by the seed's names. The names sent on the wire for the card kinds are
 * a profile setting (the documentation pages call them `stripe` and `stripe_direct`).
 */
export const TopUpMethodSchema = onFirstUse(() => z.enum(['card_checkout', 'card_direct', 'usdc']));
export type TopUpMethod = z.infer<typeof TopUpMethodSchema>;

export { TopUpMethodNameSchema };

/** A Base L2 transaction hash: `0x` followed by 64 hex digits. */
export const TxHashSchema = onFirstUse(() => z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'txHash must be 0x followed by 64 hex digits'));

/** A key id as used in a path: non-empty, no slash, not a dot segment (`.`, `..`), not a full key value, bounded. */
export const KeyIdSchema = onFirstUse(() =>
  z
    .string()
    .min(1, 'id must not be empty')
    .max(200, 'id is too long')
    .regex(/^[^/?#\s]+$/, 'id must not contain /, ?, # or spaces')
    .refine((id) => id !== '.' && id !== '..', 'id must not be . or ..')
    // A full key value never goes into a request's path (the message never repeats it).
    .refine((id) => !/^(sk|mk)(_[A-Za-z0-9_-]{12,}|-[A-Za-z0-9_-]{16,})$/.test(id), 'id is a key value (sk_…, mk_…), not an id'),
);

/** The service's `POST /api/keys/credit` and `POST /api/keys/management` body. */
export const CreateKeyRequestSchema = onFirstUse(() => z.strictObject({ name: KeyNameSchema }));
/** The service's `PUT /api/keys/:id` body: `name` and/or `isActive`. */
export const UpdateKeyRequestSchema = onFirstUse(() =>
  z.strictObject({ name: KeyNameSchema.optional(), isActive: z.boolean().optional() }).refine((b) => b.name !== undefined || b.isActive !== undefined, 'give name or isActive'),
);
export type UpdateKeyRequest = z.infer<typeof UpdateKeyRequestSchema>;
/** The service's `POST /api/billing/topup` body. */
export const TopUpRequestSchema = onFirstUse(() => z.strictObject({ amount: TopUpAmountSchema, method: TopUpMethodNameSchema }));
export type TopUpRequest = z.infer<typeof TopUpRequestSchema>;
/** The service's `POST /api/billing/verify-topup` body. */
export const VerifyTopUpRequestSchema = onFirstUse(() => z.strictObject({ txHash: TxHashSchema, amount: TopUpAmountSchema }));
export type VerifyTopUpRequest = z.infer<typeof VerifyTopUpRequestSchema>;
