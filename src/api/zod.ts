/**
 * zod as keydeck builds its schemas: every module that builds one imports `z` from here, never
 * from 'zod' itself (test/house/oneshot.test.ts checks it), so that zod's settings below are in
 * place before the first schema is built (an ES module's imports are evaluated before it).
 *
 * `jitless`: zod compiles, on an object schema's first parse, a parser of its own for that shape
 * (a `new Function`), which pays for itself only over many parses of the same schema. A one-shot
 * command parses each schema once or twice (the config, one answer): compiling cost `keys list
 * --json` ~4 % of its instructions, ~6 ms a run (docs/performance.md). The faces left open parse a
 * list of 1,000 keys ~1 ms more slowly without it (once per reload of the list), which they do not
 * notice. Results and error messages are the same either way (zod's documented `jitless` setting).
 */
import { z } from 'zod';

z.config({ jitless: true });

export { z };
