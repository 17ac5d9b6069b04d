/**
 * Opens the full-screen TUI. Placeholder until the TUI issue lands.
 */
export async function runTui(_options: Record<string, unknown>): Promise<void> {
  process.stderr.write('keydeck: the TUI is not built yet; see README.md for the sandbox and commands.\n');
  process.exitCode = 1;
}
