import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle, median, ROOT } from './fixtures/harness.mjs';
const src = (p) => JSON.stringify(join(ROOT, p));
const entry = await bundle({ contents: [`export { parseBody } from ${src('src/api/failures.ts')};`, `export { readAnswer } from ${src('src/api/reader.ts')};`, `export { UsageListSchema } from ${src('src/api/usageSchemas.ts')};`].join('\n') }, 'parse-probe');
const m = await import(pathToFileURL(entry).href);
const KEYS = 10_000;
const period = (i, f) => ({ spend: Math.round(i * f * 100) / 1e4, requests: i * f, tokens: i * f * 400 });
const body = JSON.stringify({ success: true, data: Array.from({ length: KEYS }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `key-${i}`, keyType: 'credit', keyPlan: 'credits', isActive: true, usage: { '24h': period(i, 1), '7d': period(i, 7), '30d': period(i, 30), total: period(i, 90) }, maxBudget: 1000, subscription: null })) });
const parses = []; const jsonOnly = [];
for (let i = 0; i < 21; i++) {
  let t0 = performance.now(); const b = m.parseBody(body); jsonOnly.push(performance.now() - t0);
  t0 = performance.now();
  const read = m.readAnswer({ schema: m.UsageListSchema }, m.parseBody(body));
  parses.push(performance.now() - t0);
}
console.log('parse+read median', median(parses).toFixed(1), 'JSON.parse only', median(jsonOnly).toFixed(1));
