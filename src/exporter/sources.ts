/**
 * Token sources that name no watched profile: a `--token-file acc=…` for a profile the
 * exporter does not watch is a typo whose real profile would sit at `credential_missing`, so it is
 * refused at start (exit 2) with "did you mean"; a file of the `--token-dir` that no watched
 * profile reads is told in the log (the directory may hold tokens for other selections).
 */
import { tokenDirNames } from './credentials.js';

/** The closest of `candidates` to `input`, or undefined (the command line's "did you mean" rule). */
export type Suggest = (input: string, candidates: readonly string[]) => string | undefined;

function didYouMean(name: string, watched: readonly string[], suggest: Suggest | undefined): string {
  const near = suggest?.(name, watched);
  return near !== undefined ? `did you mean "${near}"?` : watched.length > 0 ? `the watched profiles are ${watched.map((w) => `"${w}"`).join(', ')}` : 'no profile is watched';
}

/** One sentence per `--token-file` that names a profile not in `watched` (none: all good). */
export function unwatchedTokenFiles(tokenFiles: ReadonlyMap<string, string>, watched: readonly string[], suggest?: Suggest): string[] {
  const names = new Set(watched);
  return [...tokenFiles.keys()]
    .filter((profile) => !names.has(profile))
    .map((profile) => `--token-file ${profile}=… names profile "${profile}", which is not watched: ${didYouMean(profile, watched, suggest)}`);
}

/**
 * One sentence per file of `tokenDir` that no watched profile reads, or the one why the directory
 * cannot be listed (a directory that does not exist yet is no problem: say so once elsewhere).
 */
export async function strayTokenDirFiles(tokenDir: string | undefined, watched: readonly string[], suggest?: Suggest): Promise<string[]> {
  if (tokenDir === undefined) return [];
  let names: string[];
  try {
    names = await tokenDirNames(tokenDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return [`the token directory ${tokenDir} cannot be listed (${code}): no profile's token is read from it`];
  }
  const wanted = new Set(watched);
  return names.filter((n) => !wanted.has(n)).map((n) => `the token file ${n} in ${tokenDir} is read by no watched profile: ${didYouMean(n, watched, suggest)}`);
}
