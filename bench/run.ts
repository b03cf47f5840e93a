// Runs every benchmark in its own Node process, one after the other, and prints their JSON reports as one array.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)));

const reports: unknown[] = [];
for (const file of benches) {
  process.stderr.write(`running ${file}...\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(here, file)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) {
    process.stderr.write(`${file} failed with status ${result.status}\n`);
    process.exitCode = 1;
    continue;
  }
  reports.push(JSON.parse(result.stdout));
}
process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
