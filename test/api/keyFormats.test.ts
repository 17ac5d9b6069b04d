/**
 * Item 3: `sk-`/`mk-` (the newer keys page shows key values as `"sk-..."`) are key
 * formats wherever keydeck reads, validates, scans for or redacts a key value: the creating
 * answer's schema keeps an `sk-` key, the credential check refuses an `sk-` as keydeck's
 * credential and takes an `mk-` as a management key, redaction cuts `sk-…`/`mk-…` to their
 * prefix, and a list's `sk-…` value is dropped as an `sk_…` is.
 */
import { describe, expect, it } from 'vitest';
import { keyPrefixOf, redactSecrets } from '../../src/api/errors.js';
import { parseBody } from '../../src/api/failures.js';
import { CreatedSubscriptionKeySchema } from '../../src/api/poolSchemas.js';
import { readAnswer } from '../../src/api/reader.js';
import { ConsumptionKeyListSchema, ConsumptionKeyValueSchema, CreatedConsumptionKeySchema, CreatedManagementKeySchema, ManagementKeyValueSchema } from '../../src/api/schemas.js';
import { describeCredential } from '../../src/credentials/describe.js';
import { checkCredentialToken, tokenKind } from '../../src/credentials/token.js';

const SK_DASH = `sk-${'Ab3'.repeat(16)}`;
const MK_DASH = `mk-${'Zq9'.repeat(16)}`;
const wire = (v: unknown) => parseBody(JSON.stringify(v));

describe('sk- and mk- are key formats', () => {
  it('validation: both separators, and nothing else', () => {
    for (const v of [SK_DASH, `sk_${'a'.repeat(40)}`]) expect(ConsumptionKeyValueSchema.safeParse(v).success).toBe(true);
    for (const v of [MK_DASH, `mk_${'a'.repeat(40)}`]) expect(ManagementKeyValueSchema.safeParse(v).success).toBe(true);
    for (const v of ['sk', 'sk.abc', 'xsk-abc', 'mk-short', 'sk- spaced']) {
      expect(ConsumptionKeyValueSchema.safeParse(v).success && ManagementKeyValueSchema.safeParse(v).success).toBe(false);
    }
  });

  it('the creating answers keep an sk- / mk- key (the one time it is shown)', () => {
    const credit = readAnswer(
      { schema: CreatedConsumptionKeySchema, creates: true },
      wire({ id: 'k', name: 'n', keyType: 'credit', apiKey: SK_DASH, isActive: true, createdAt: '2026-01-01T00:00:00Z' }),
    );
    expect(credit.ok && credit.data.apiKey).toBe(SK_DASH);
    const sub = readAnswer({ schema: CreatedSubscriptionKeySchema, creates: true }, wire({ success: true, data: { id: 'k', apiKey: SK_DASH } }));
    expect(sub.ok && sub.data.apiKey).toBe(SK_DASH);
    const mgmt = readAnswer({ schema: CreatedManagementKeySchema, creates: true }, wire({ id: 'm', name: 'n', keyPrefix: 'mk-Zq9Zq9Z', apiKey: MK_DASH }));
    expect(mgmt.ok && mgmt.data.apiKey).toBe(MK_DASH);
  });

  it('a list’s sk- value is dropped and counted, wherever it is', () => {
    const r = readAnswer(
      { schema: ConsumptionKeyListSchema },
      wire([{ id: 'k', name: 'n', keyPlan: 'credits', keyType: 'credit', isActive: true, createdAt: '2026-01-01T00:00:00Z', apiKey: SK_DASH, note: SK_DASH }]),
    );
    expect(r.ok && r.hiddenKeyValues).toBe(2);
    expect(JSON.stringify(r.ok && r.data)).not.toContain(SK_DASH);
  });

  it('redaction: sk-… and mk-… become their prefix; a word such as sk-learn is left alone', () => {
    const out = redactSecrets(`sent ${SK_DASH} and ${MK_DASH}; installed sk-learn and mk-docs`);
    expect(out).toBe(`sent ${SK_DASH.slice(0, 11)}… and ${MK_DASH.slice(0, 11)}…; installed sk-learn and mk-docs`);
    expect(keyPrefixOf(SK_DASH)).toBe(SK_DASH.slice(0, 11));
  });

  it('the credential check: an mk- is a management key, an sk- is refused as keydeck’s credential', () => {
    expect(tokenKind(MK_DASH)).toBe('management');
    expect(tokenKind(SK_DASH)).toBe('consumption');
    expect(() => checkCredentialToken(SK_DASH, 'KEYDECK_TOKEN')).toThrow(/KEYDECK_TOKEN is a consumption key/);
    expect(describeCredential(MK_DASH, 'env', 'default', 'sign in again').label).toBe(`KEYDECK_TOKEN (management key ${MK_DASH.slice(0, 11)})`);
  });
});
