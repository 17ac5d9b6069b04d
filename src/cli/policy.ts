/** `keydeck plan` and `keydeck apply`: the account as a file (src/commands/plan.ts, apply.ts; docs/guardrails.md). */
import type { Command } from 'commander';
import { inherits, SERVICE_OPTIONS } from './inherited.js';
import { runScripted } from './shared.js';

/** The help of `--file`. */
const FILE_HELP = 'the policy file (YAML or JSON; default ./keydeck.policy.yaml)';

/** Adds `plan` and `apply` to the program. */
export function registerPolicy(program: Command): void {
  inherits(program.command('plan'), SERVICE_OPTIONS)
    .description('what apply would change to make the account as the policy file says: keys to create or rotate, budgets crossed, settings (exit 0 no changes, 2 changes, 1 error)')
    .option('--file <path>', FILE_HELP)
    .option('--json', 'print the plan as JSON: changes, each governed key’s budget and deadlines, notes, problems')
    .action(async (opts: { file?: string; json?: boolean }, cmd: Command) => {
      const { policyPlan } = await import('../commands/plan.js');
      await runScripted(cmd, (g) => policyPlan(g, opts), { usageExit: 1 });
    });
  inherits(program.command('apply'), SERVICE_OPTIONS)
    .description('make the account as the policy file says, each change crash-safe and recorded, then act on the guardrails (asks first)')
    .option('--file <path>', FILE_HELP)
    .option('-y, --yes', 'make the changes without asking')
    .option('--once', 'one unattended run for cron: no question, only what was done is said')
    .option('--on-guardrail <command>', 'run this command line for each thing a guardrail says or does (figures in KEYDECK_* environment variables, never a key)')
    .option('--json', 'print what was done as JSON (a key made without destination carries its value, once)')
    .action(async (opts: { file?: string; yes?: boolean; once?: boolean; onGuardrail?: string; json?: boolean }, cmd: Command) => {
      const { policyApply } = await import('../commands/apply.js');
      await runScripted(cmd, (g) => policyApply(g, opts));
    });
}
