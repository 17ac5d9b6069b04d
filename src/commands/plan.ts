/**
 * `keydeck plan [--file PATH] [--json]`: what `keydeck apply` would change to make the account as
 * the policy file says (./policy.ts, src/operations/policyPlan.ts), changing nothing (it may spend
 * a usage read when the shared schedule allows one, as every keydeck does). Exit codes as
 * `terraform plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an error (a policy file that
 * cannot be used, a problem in the plan, the service's refusal; network trouble is 4, as for
 * every command).
 */
import { printData, type CommandDeps } from './api-command.js';
import { ExitCode, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { openPolicyRun, planJson, planText, type PolicyFlags } from './policy.js';

/** The exit code of a plan with changes (`terraform plan -detailed-exitcode`'s 2). */
export const PLAN_HAS_CHANGES = 2;

/** See the module comment. */
export async function policyPlan(globals: GlobalOptions, flags: PolicyFlags, deps: CommandDeps = {}): Promise<ExitCodeValue | typeof PLAN_HAS_CHANGES> {
  const run = await openPolicyRun(globals, flags, deps);
  try {
    if (flags.json) printData(planJson(run));
    else {
      for (const line of planText(run)) printLine(line);
      if (run.plan.problems.length === 0) {
        printLine('');
        printLine(run.plan.changes.length === 0 ? 'Nothing to apply.' : `${run.plan.changes.length} to change: \`keydeck apply\` makes ${run.plan.changes.length === 1 ? 'it' : 'them'}.`);
      }
    }
    if (run.plan.problems.length > 0) return ExitCode.refused;
    return run.plan.changes.length > 0 ? PLAN_HAS_CHANGES : ExitCode.ok;
  } finally {
    run.close();
  }
}
