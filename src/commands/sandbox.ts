/** `keydeck sandbox`: placeholder until the sandbox lands. */
export async function runSandboxCommand(_opts: { host: string; port: string; db?: string }): Promise<void> {
  process.stderr.write('keydeck: the sandbox is not built yet\n');
  process.exitCode = 1;
}
