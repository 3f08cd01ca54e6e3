// `npm run bench [name…]`: runs every benchmark module under bench/ (or the named ones).
// Each module exports `run()`, prints its figures and a ratio against a baseline measured in the same run.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  // A name picks its own bench when one has exactly that name (`replay` is not also `replay-something`), else every bench it prefixes.
  .filter((f, _, all) => wanted.length === 0 || wanted.some((w) => (all.includes(`${w}.bench.ts`) ? f === `${w}.bench.ts` : f.startsWith(w))))
  .sort();

for (const f of files) {
  console.log(`\n=== ${f.replace(/\.bench\.ts$/, '')} ===`);
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { run: () => Promise<void> };
  await mod.run();
}
