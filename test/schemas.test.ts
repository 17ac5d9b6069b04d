import { describe, expect, it } from 'vitest';
import { TopUpAmountSchema, TxHashSchema, KeyNameSchema } from '../src/api/schemas.js';
import { KeydeckApiError, redactSecrets } from '../src/api/errors.js';

describe('request validation shared by client and sandbox', () => {
  it('accepts amounts of at least 10 USD with at most two decimals', () => {
    for (const ok of [10, 10.5, 10.01, 25, 999.99, 0.1 + 9.9 + 0.2]) expect(TopUpAmountSchema.safeParse(ok).success).toBe(true);
    for (const bad of [9.99, 0, -10, 10.001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(TopUpAmountSchema.safeParse(bad).success).toBe(false);
    }
  });
  it('accepts only 0x + 64 hex transaction hashes', () => {
    expect(TxHashSchema.safeParse(`0x${'ab'.repeat(32)}`).success).toBe(true);
    expect(TxHashSchema.safeParse(`0x${'ab'.repeat(31)}`).success).toBe(false);
    expect(TxHashSchema.safeParse(`0x${'zz'.repeat(32)}`).success).toBe(false);
  });
  it('refuses empty and control-character names', () => {
    expect(KeyNameSchema.safeParse('  ').success).toBe(false);
    expect(KeyNameSchema.safeParse('a\u0007b').success).toBe(false);
    expect(KeyNameSchema.parse('  ci deploy ')).toBe('ci deploy');
  });
});

describe('redaction', () => {
  it('never lets a full key or bearer token through an error', () => {
    const full = `mk_${'A1b2C3d4'}${'x'.repeat(32)}`;
    const err = new KeydeckApiError('unauthorized', `rejected ${full} (Authorization: Bearer sess_tok_123456)`);
    const text = `${err.message} ${JSON.stringify(err)} ${String(err.stack)}`;
    expect(text).not.toContain(full);
    expect(text).not.toContain('sess_tok_123456');
    expect(err.message).toContain('mk_A1b2C3d4…');
    expect(redactSecrets('token abcdefgh here', ['abcdefgh'])).toBe('token [redacted] here');
  });
});
