/**
 * The account as a file (docs/guardrails.md): `keydeck.policy.yaml` (or `.json`, read by the same
 * parser: JSON is YAML), the keys an account should have and the rules keydeck keeps for it:
 *
 * ```yaml
 * keys:
 *   - name: web
 *     type: credit                         # default; a subscription key cannot be made by keydeck
 *     to: [".env:OPENAI_API_KEY"]          # as --to-file; { command: "gh secret set X" } as --to-command
 *     budget: { limit: 5, period: day, action: disable, thresholds: [0.8, 0.95] }
 *     maxAge: 90d                          # then rotated (onMaxAge: rotate, the default) or flagged
 *     expiresIn: 30d                       # a credit key disabled this long after its creation
 *     warnBefore: 7d
 * budgets:                                 # keys by pattern ("*": every key), first match wins
 *   - { match: "ci-*", limit: 20, period: week, action: warn }
 * account:
 *   alertBelow: 5                          # the low-balance threshold, USD
 *   thresholds: [0.8, 0.95]                # the budgets' alert thresholds unless a budget gives its own
 *   autoTopUp: { below: 10, amount: 25, maxPerDay: 50, maxPerMonth: 200 }   # or: off
 * ```
 *
 * Read as keydeck reads its own files (./trust.ts: a regular file of this user, not writable by
 * group or others, in directories only the user or root may change): it says where new keys go and
 * which commands take them. Validated by zod; every problem names the file, its line and column,
 * and the field (`keydeck.policy.yaml:7:13: keys[0].budget.limit: …`). Destinations are kept as
 * written here (src/operations parses them, relative paths from the file's directory).
 */
import path from 'node:path';
import parseDuration from 'parse-duration';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { z } from '../api/zod.js';
import { KeyNameSchema } from '../api/schemas.js';
import { MAX_POLICY_USD } from './autoTopUp.js';
import { BUDGET_ACTIONS, BUDGET_PERIODS, MAX_BUDGET_USD, MAX_RULE_SECONDS } from './guardrailRules.js';
import { checkTrustedDir, readTrustedFile } from './trust.js';
import { KeydeckError } from '../errors/index.js';

/** The policy file's name when none is given, looked for in the current directory. */
export const DEFAULT_POLICY_FILE = 'keydeck.policy.yaml';
/** Largest policy file read, bytes. */
export const MAX_POLICY_BYTES = 1024 * 1024;

/** Why a policy file cannot be used: `policy_missing`, `policy_untrusted`, `policy_invalid` (its sentence names the line). */
export class PolicyFileError extends KeydeckError {
  override readonly name = 'PolicyFileError';
  override readonly code: 'policy_missing' | 'policy_untrusted' | 'policy_invalid';
  constructor(code: PolicyFileError['code'], message: string) {
    super(code, message);
    this.code = code;
  }
}

/** `90d`, `12h`, `2w`: a duration with its unit, in seconds (at least a minute). */
const Duration = z.string({ error: 'must be a duration with its unit, such as 90d, 12h or 2w' }).transform((text, ctx) => {
  const ms = /[a-z]/i.test(text) ? parseDuration(text.trim()) : null;
  const seconds = ms === null || ms === undefined ? Number.NaN : Math.round(ms / 1000);
  if (!Number.isFinite(seconds) || seconds < 60 || seconds > MAX_RULE_SECONDS) {
    ctx.addIssue({ code: 'custom', message: `must be a duration with its unit, such as 90d, 12h or 2w (a minute to ten years), not "${text}"` });
    return z.NEVER;
  }
  return seconds;
});

const Usd = (most: number) => z.number({ error: 'must be an amount in USD (a number)' }).positive('must be above 0').max(most, `must be at most ${most} USD`);

/** A budget as the file writes it. */
const BudgetSchema = z.strictObject({
  limit: Usd(MAX_BUDGET_USD),
  period: z.enum(BUDGET_PERIODS, { error: `must be ${BUDGET_PERIODS.join(', ')}` }),
  action: z.enum(BUDGET_ACTIONS, { error: `must be ${BUDGET_ACTIONS.join(', ')}` }).default('warn'),
  thresholds: z.array(z.number().gt(0, 'a threshold is a fraction of the limit above 0').lt(1, 'a threshold is a fraction of the limit below 1 (the limit itself is always said)')).max(10).optional(),
  reenable: z.boolean().optional(),
});

/** A destination: `PATH[:VAR]` (as --to-file), `{ file: … }` or `{ command: … }` (as --to-command). */
const DestinationSchema = z.union([z.string().min(1), z.strictObject({ file: z.string().min(1) }), z.strictObject({ command: z.string().min(1) })], {
  error: 'a destination is "PATH[:VAR]", { file: "PATH[:VAR]" } or { command: "CMD ARGS" }',
});

const KeySchema = z.strictObject({
  name: KeyNameSchema,
  type: z.enum(['credit', 'subscription']).default('credit'),
  to: z.array(DestinationSchema).max(20).default([]),
  budget: BudgetSchema.optional(),
  maxAge: Duration.optional(),
  onMaxAge: z.enum(['rotate', 'flag']).optional(),
  expiresIn: Duration.optional(),
  warnBefore: Duration.optional(),
});

const PatternBudgetSchema = BudgetSchema.extend({ match: z.string().min(1).max(128) });

const AutoTopUpSchema = z.strictObject({
  below: Usd(MAX_POLICY_USD),
  amount: Usd(MAX_POLICY_USD).optional(),
  to: Usd(MAX_POLICY_USD).optional(),
  maxPerDay: Usd(MAX_POLICY_USD).optional(),
  maxPerMonth: Usd(MAX_POLICY_USD).optional(),
  method: z.string().min(1).max(64).optional(),
});

const PolicySchema = z
  .strictObject({
    keys: z.array(KeySchema).max(500).default([]),
    budgets: z.array(PatternBudgetSchema).max(100).default([]),
    account: z
      .strictObject({
        alertBelow: z.number().min(0).max(MAX_POLICY_USD).optional(),
        thresholds: z.array(z.number().gt(0).lt(1)).max(10).optional(),
        autoTopUp: z.union([AutoTopUpSchema, z.literal('off'), z.literal(false)]).optional(),
      })
      .default({}),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    policy.keys.forEach((k, i) => {
      if (seen.has(k.name)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'name'], message: `"${k.name}" is named twice: a name declares one key` });
      seen.add(k.name);
      if (k.expiresIn !== undefined && k.type !== 'credit')
        ctx.addIssue({ code: 'custom', path: ['keys', i, 'expiresIn'], message: 'only a credit key expires by rule (a subscription key ends with its subscription)' });
    });
  });

/** A declared destination as written (parsed by src/operations: `file` relative to {@link PolicyFile.dir}). */
export type DeclaredDestination = { readonly file: string } | { readonly command: string };

/** A key the file declares. Durations in seconds, amounts in USD. */
export interface DeclaredKey {
  readonly name: string;
  readonly type: 'credit' | 'subscription';
  readonly to: readonly DeclaredDestination[];
  readonly budget?: z.infer<typeof BudgetSchema>;
  readonly maxAgeSeconds?: number;
  readonly onMaxAge?: 'rotate' | 'flag';
  readonly expiresInSeconds?: number;
  readonly warnBeforeSeconds?: number;
  /** Its line in the file. */
  readonly line: number;
}

/** A policy file, read and checked. */
export interface PolicyFile {
  /** Its absolute path. */
  readonly path: string;
  /** Its directory: relative destinations are taken from there. */
  readonly dir: string;
  readonly keys: readonly DeclaredKey[];
  readonly budgets: ReadonlyArray<z.infer<typeof PatternBudgetSchema>>;
  readonly account: z.infer<typeof PolicySchema>['account'];
}

/** `[1, "budget"]` → `keys[1].budget` (the path of a zod issue in the file's words). */
function pathWords(p: readonly PropertyKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`)).join('');
}

/** `file:LINE:COL` of the node at `p` (or its nearest ancestor that exists). */
function where(file: string, doc: Document, lines: LineCounter, p: readonly PropertyKey[]): string {
  for (let n = p.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(p.slice(0, n) as unknown[], true)) as { range?: [number, number, number] } | null | undefined;
    if (node?.range) {
      const { line, col } = lines.linePos(node.range[0]);
      return `${file}:${line}:${col}`;
    }
  }
  return file;
}

/**
 * Parses the text of a policy file named `file` (for the messages).
 * @throws PolicyFileError `policy_invalid`, naming the line and the field of the first problems (at most 5)
 */
export function parsePolicy(text: string, file: string): Omit<PolicyFile, 'path' | 'dir'> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = lines.linePos(e.pos[0]);
    throw new PolicyFileError('policy_invalid', `${file}${at ? `:${at.line}:${at.col}` : ''}: not YAML or JSON (${e.code.toLowerCase().replace(/_/g, ' ')})`);
  }
  const raw = doc.toJS({ maxAliasCount: 100 }) as unknown;
  const parsed = PolicySchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${where(file, doc, lines, i.path)}: ${i.path.length > 0 ? `${pathWords(i.path)}: ` : ''}${i.message}`);
    throw new PolicyFileError('policy_invalid', problems.join('; '));
  }
  const keys = parsed.data.keys.map((k, i): DeclaredKey => {
    const node = doc.getIn(['keys', i], true) as { range?: [number, number, number] } | undefined;
    return {
      name: k.name,
      type: k.type,
      to: k.to.map((d) => (typeof d === 'string' ? { file: d } : d)),
      ...(k.budget && { budget: k.budget }),
      ...(k.maxAge !== undefined && { maxAgeSeconds: k.maxAge }),
      ...(k.onMaxAge !== undefined && { onMaxAge: k.onMaxAge }),
      ...(k.expiresIn !== undefined && { expiresInSeconds: k.expiresIn }),
      ...(k.warnBefore !== undefined && { warnBeforeSeconds: k.warnBefore }),
      line: node?.range ? lines.linePos(node.range[0]).line : 0,
    };
  });
  return { keys, budgets: parsed.data.budgets, account: parsed.data.account };
}

/**
 * Reads the policy file `file` (relative to `cwd`) as keydeck reads its own files, and parses it.
 * @throws PolicyFileError `policy_missing`, `policy_untrusted` (the trust sentence), `policy_invalid`
 */
export async function readPolicyFile(file: string, cwd = process.cwd()): Promise<PolicyFile> {
  const full = path.resolve(cwd, file);
  const dirProblem = checkTrustedDir(path.dirname(full));
  if (dirProblem)
    throw new PolicyFileError(
      'policy_untrusted',
      `${dirProblem.sentence.replace(/^the config dir /, 'the directory of the policy file ')} (the policy file says where keys go and which commands take them)`,
    );
  let read;
  try {
    read = await readTrustedFile(full, 'config file');
  } catch (err) {
    throw new PolicyFileError('policy_missing', `the policy file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (read.kind === 'missing') throw new PolicyFileError('policy_missing', `no policy file ${file}: write one (docs/guardrails.md) or name it with --file`);
  if (read.kind === 'refused')
    throw new PolicyFileError('policy_untrusted', `${read.problem.sentence.replace(/^the config file /, 'the policy file ')} (it says where keys go and which commands take them)`);
  if (Buffer.byteLength(read.text) > MAX_POLICY_BYTES) throw new PolicyFileError('policy_invalid', `the policy file ${file} is larger than ${MAX_POLICY_BYTES} bytes`);
  return { path: full, dir: path.dirname(full), ...parsePolicy(read.text, file) };
}
