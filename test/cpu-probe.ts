/**
 * A setup file of `npm run test:cpu` (scripts/suite-cpu.mjs), loaded only when KEYDECK_TEST_CPU
 * names a file (vitest.config.ts): appends one line per test file to it, with what the file cost
 * from its first hook to its last. Tab-separated: the file, its project, the CPU time of the
 * test's process in ms (user + system, the CLI runs in its thread included), the CPU time
 * of its child processes that ended meanwhile in ms (the CLI and TUI runs as processes, the
 * sandboxes, npm, anvil, D-Bus: Linux's /proc/self/stat, 0 elsewhere), the wall time in ms, and
 * how many times it started the built CLI in its thread, as a process and in a pseudo-terminal
 * (test/cli-starts.ts). Files share their worker, so a file's module imports before its first hook
 * are not counted.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cliStarts } from './cli-starts.js';

/** CPU time of the children this process has waited for, ms (0 where /proc is not). */
function childrenCpuMs(): number {
  try {
    // After the command name (which may hold ") "), from state on: cutime and cstime are fields 16 and 17 of proc(5).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * (1000 / 100);
  } catch {
    return 0;
  }
}

let started: { cpu: NodeJS.CpuUsage; children: number; at: number; starts: ReturnType<typeof cliStarts> } | undefined;

beforeAll(() => {
  started = { cpu: process.cpuUsage(), children: childrenCpuMs(), at: performance.now(), starts: cliStarts() };
});

// eslint-disable-next-line no-empty-pattern -- vitest reads what a hook uses from its first parameter's destructuring: this one uses nothing
afterAll(({}, suite) => {
  const out = process.env.KEYDECK_TEST_CPU;
  if (!out || !started) return;
  const cpu = process.cpuUsage(started.cpu);
  const file = path.relative(process.cwd(), suite.file.filepath);
  const starts = cliStarts();
  const row = [
    file,
    suite.file.projectName ?? '',
    Math.round((cpu.user + cpu.system) / 1000),
    Math.round(childrenCpuMs() - started.children),
    Math.round(performance.now() - started.at),
    starts.thread - started.starts.thread,
    starts.process - started.starts.process,
    starts.pty - started.starts.pty,
  ];
  appendFileSync(out, `${row.join('\t')}\n`);
});
