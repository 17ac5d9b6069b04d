/**
 * `--metrics-textfile PATH` of the commands cron runs (`autotopup run --once`, `keys rotate`,
 * `mgmt-keys rotate`): after the run, whatever its end, the file node_exporter's textfile collector
 * reads (src/metrics/textfile.ts) is replaced with the run's time, its exit code and, for auto
 * top-up, what it did and the policy's state. A file that cannot be written is said on stderr and
 * changes no exit code: the run's own outcome stands.
 */
import { originOf } from '../credentials/origin.js';
import { resolveProfile } from '../config/profile.js';
import { CronTextfile } from '../metrics/textfile.js';
import { exitCodeOf, warn, type ExitCodeValue, type GlobalOptions } from './output.js';

/** What a command tells the file about its run beyond its exit code. */
export interface TextfileRun {
  /** The file's metrics (auto top-up adds its figures). */
  readonly textfile: CronTextfile;
}

/**
 * Runs `body` and then, when `file` is given, writes the run's metrics to it: the exit code `body`
 * returned, or the one its error means (the error is thrown on afterwards).
 */
export async function withMetricsTextfile(
  file: string | undefined,
  command: string,
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  body: (run: TextfileRun | undefined) => Promise<ExitCodeValue>,
): Promise<ExitCodeValue> {
  if (file === undefined) return body(undefined);
  let origin = '';
  let profile = globals.profile ?? '';
  try {
    const resolved = await resolveProfile(globals, env);
    profile = resolved.name;
    origin = resolved.baseUrl === undefined ? '' : originOf(resolved.baseUrl);
  } catch {
    // The command itself says what is wrong with the profile; the file still records the run.
  }
  const textfile = new CronTextfile({ command, profile, origin });
  let code: ExitCodeValue;
  try {
    code = await body({ textfile });
  } catch (error) {
    textfile.ended(exitCodeOf(error));
    await write(textfile, file);
    throw error;
  }
  textfile.ended(code);
  await write(textfile, file);
  return code;
}

async function write(textfile: CronTextfile, file: string): Promise<void> {
  try {
    await textfile.write(file);
  } catch (error) {
    warn(`the metrics textfile ${file} could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): check that its directory exists and is writable`);
  }
}
