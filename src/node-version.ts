/**
 * The Node.js version keydeck needs, and the sentence that says so. Imported by the `keydeck`
 * executable's guard (src/bin.ts), which is built for old Node.js targets: keep this file free of
 * imports and of syntax or APIs that Node.js 14 lacks.
 */

/** The oldest Node.js keydeck runs on (package.json's `engines.node` says the same; a test checks). */
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
