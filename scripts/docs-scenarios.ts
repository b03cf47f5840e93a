// `npm run docs:scenarios`: writes docs/scenarios/NAME.md for every scenario (scenario-pages.ts builds them by running
// each one) and removes the pages of scenarios that no longer exist.

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAGES_DIR, scenarioPages } from './scenario-pages.ts';

const pages = scenarioPages();
mkdirSync(PAGES_DIR, { recursive: true });
for (const file of readdirSync(PAGES_DIR)) {
  if (file.endsWith('.md') && !pages.has(file)) {
    rmSync(join(PAGES_DIR, file));
    process.stderr.write(`removed ${join(PAGES_DIR, file)}\n`);
  }
}
for (const [file, text] of pages) writeFileSync(join(PAGES_DIR, file), text);
process.stderr.write(`wrote ${pages.size} pages into ${PAGES_DIR}/\n`);
