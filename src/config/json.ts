/**
 * Where a JSON text is broken, without quoting it: V8's `JSON.parse` messages may embed a
 * snippet of the text (which, in a key file, would be a secret).
 */

/**
 * A short description of a `JSON.parse` failure safe to print: `line 2 column 5`, or
 * `it ends early`, or `unexpected character`. Never contains any of the parsed text.
 */
export function describeJsonSyntaxError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const where = /\(line (\d+) column (\d+)\)/.exec(message);
  if (where) return `at line ${where[1]} column ${where[2]}`;
  if (/end of JSON input/i.test(message)) return 'it ends early or is empty';
  return 'unexpected character';
}
