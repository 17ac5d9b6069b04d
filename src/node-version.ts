/**
 * The Node.js version keydeck needs, and the sentence that says so. Imported by the `keydeck`
 * executable's guard (src/bin.ts), which is built for old Node.js targets: keep this file free of
 * imports and of syntax or APIs that Node.js 14 lacks.
 */

/**
 * The exit code on a Node.js too old: 5, which systemd names `NOTINSTALLED` (the LSB code for "the
 * program is not installed": the runtime it needs is not), so that a unit lists it in
 * `RestartPreventExitStatus=` and stops instead of restarting for ever.
 */
export const OLD_NODE_EXIT_CODE = 5;

/** The oldest Node.js keydeck runs on (the published package.json's `engines.node`, which scripts/pack.mjs writes from it). */
export const REQUIRED_NODE = '22.13.0';

/**
 * True when Node.js version `found` (`process.versions.node`, e.g. `"20.20.2"`) is at least
 * `required` (default {@link REQUIRED_NODE}); compares major, minor and patch as numbers.
 */
export function nodeIsRecentEnough(found: string, required: string = REQUIRED_NODE): boolean {
  const a = found.split('.').map(Number);
  const b = required.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] || 0;
    const y = b[i] || 0;
    if (x !== y) return x > y;
  }
  return true;
}

/** The one line the executable prints on a Node.js older than {@link REQUIRED_NODE}. */
export function oldNodeSentence(found: string): string {
  return `keydeck needs Node.js ${REQUIRED_NODE} or newer, but this is Node.js ${found}: install the current LTS (24) from https://nodejs.org or with your version manager (e.g. \`nvm install 24\`), then run keydeck again.`;
}

/**
 * The line the executable writes on a Node.js too old, given its arguments (`process.argv.slice(2)`):
 * for `keydeck exporter`, a log line in its `--log-format` (logfmt, or JSON), as every line of the
 * exporter's is; else {@link oldNodeSentence}. `now` is an ISO time.
 */
export function oldNodeLine(found: string, args: readonly string[], now: string): string {
  const sentence = oldNodeSentence(found);
  if (args.indexOf('exporter') < 0) return sentence;
  let format = 'logfmt';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--log-format' && i + 1 < args.length) format = args[i + 1] as string;
    else if ((args[i] as string).indexOf('--log-format=') === 0) format = (args[i] as string).slice('--log-format='.length);
  }
  if (format === 'json') return JSON.stringify({ time: now, level: 'error', event: 'node_too_old', msg: sentence });
  return 'time=' + now + ' level=error event=node_too_old msg="' + sentence.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}
