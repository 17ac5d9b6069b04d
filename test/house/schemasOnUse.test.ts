/**
 * The wire's schemas are built on first use (src/api/schemas.ts `onFirstUse`, docs/performance.md
 * "One-shot commands"): a command that lists keys builds the keys' schemas, not billing's, nor the
 * requests', nor the usage endpoints'. The client is bundled here with its own copy of zod (esbuild,
 * nothing written but one file in a temp dir), with src/api/zod.ts replaced by one that notes the
 * fields of every object schema built, and loaded fresh (the suite's workers share their modules:
 * the sources' own copy has long been used by other files). It then reads a real sandbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** src/api/zod.ts as the bundle gets it: zod with the same setting, noting the fields of each object schema built. */
const COUNTING_ZOD = `
import { z as real } from 'zod';
real.config({ jitless: true });
export const built = [];
const noted = (make) => (shape, ...rest) => { built.push(Object.keys(shape).sort().join(',')); return make(shape, ...rest); };
export const z = { ...real, object: noted(real.object), looseObject: noted(real.looseObject), strictObject: noted(real.strictObject) };
`;

const countingZod: Plugin = {
  name: 'counting-zod',
  setup(b) {
    b.onResolve({ filter: /\/zod\.js$/ }, (args) => (args.importer.startsWith(path.join(ROOT, 'src')) || args.importer === '<stdin>' ? { path: 'zod.ts', namespace: 'counting-zod' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'counting-zod' }, () => ({ contents: COUNTING_ZOD, loader: 'js', resolveDir: ROOT }));
  },
};

interface Bundle {
  built: string[];
  KeydeckClient: typeof import('../../src/api/client.js').KeydeckClient;
}

let dir: string;
let bundle: Bundle;
let sb: TestSandbox;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-schemas-on-use-'));
  const outfile = path.join(dir, 'client.mjs');
  await build({
    stdin: { contents: "export { built } from './src/api/zod.js';\nexport { KeydeckClient } from './src/api/client.ts';\n", resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    plugins: [countingZod],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  });
  bundle = (await import(pathToFileURL(outfile).href)) as Bundle;
  sb = await startTestSandbox();
}, 60_000);
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the wire's schemas", () => {
  it('are not built when the client loads', () => {
    expect(bundle.built).toEqual([]);
  });

  it("are built for the keys alone when the keys are listed: not billing's, the requests' or usage's", async () => {
    const client = new bundle.KeydeckClient({ baseUrl: sb.url, token: sb.token, transport: 'node:http' });
    const keys = await client.keys.list();
    client.close();
    expect(keys.length).toBeGreaterThan(0);
    // The key's own fields (src/api/schemas.ts ConsumptionKeySchema).
    expect(bundle.built).toContain('createdAt,id,isActive,keyPlan,keyType,lastUsedAt,name,subscriptionExpiresAt,subscriptionStatus');
    const others = bundle.built.filter((fields) => /totalTopUp|sessionUrl|credited|apiKey|keyPrefix|deleted|txHash|amount|budget|slug|success|error\b/.test(fields));
    expect(others).toEqual([]);
  });

  it('are built for the balance when it is read, and parse it as before (money read exactly, the stand-ins filled)', async () => {
    const client = new bundle.KeydeckClient({ baseUrl: sb.url, token: sb.token, transport: 'node:http' });
    const credits = await client.billing.credits();
    client.close();
    expect(bundle.built.some((fields) => fields.includes('totalTopUp'))).toBe(true);
    expect(credits).toMatchObject({ totalTopUp: 125, remaining: 84.2, hasCreditKey: true, creditKeyCount: 2 });
  });

  it("are built for the plans alone when the plans are read (what `keys list --json` reads for a plan's key): not the key's own usage view", async () => {
    const client = new bundle.KeydeckClient({ baseUrl: sb.url, token: sb.token, transport: 'node:http' });
    const plans = await client.plans.list();
    client.close();
    expect(plans.length).toBeGreaterThan(0);
    expect(bundle.built.some((fields) => fields.split(',').includes('slug'))).toBe(true);
    // src/api/usageSchemas.ts KeyInfoSchema (`GET /v1/usage`).
    expect(bundle.built.filter((fields) => /budget|rate_limits/.test(fields))).toEqual([]);
  });
});
