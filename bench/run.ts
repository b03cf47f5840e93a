// `npm run bench [-- NAME...] [--quick] [--json FILE] [--KEY VALUE...]`: runs every suite of bench/suites/ (or those whose name starts with a NAME), each in its own Node process with --expose-gc, prints each one's table, and writes all results as one JSON array with --json.
//
// A child process per suite keeps one suite's heap and JIT state out of the next one's figures. Each suite is first
// bundled by esbuild into the ignored tmp/bench/ (npm packages stay imports): under tsx's loader every imported
// binding is read through a getter and named functions are wrapped, which distorts hot loops; the bundle runs what
// a built package runs. Other `--KEY VALUE`
// pairs reach every suite's build as options.args (e.g. `--nodes 200 --services 1000` for scale). The exit status is
// non-zero when a suite fails to run; a missed goal is printed, not an error.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { formatSuite } from '../src/cli/bench/report.ts';
import type { SuiteResult } from '../src/cli/bench/suite.ts';
import { type BenchArgs, parseBenchArgs, suiteWords } from './support/argv.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const suitesDir = join(here, 'suites');

/** One file that runs one suite (bench/child.ts over it), built into tmp/bench/. */
function bundle(file: string): string {
  const outfile = join(root, 'tmp', 'bench', file.replace(/\.ts$/, '.mjs'));
  mkdirSync(dirname(outfile), { recursive: true });
  buildSync({
    stdin: {
      contents: [
        `import suite from ${JSON.stringify(join(suitesDir, file))};`,
        `import { runChild } from ${JSON.stringify(join(here, 'child.ts'))};`,
        'await runChild(suite);',
      ].join('\n'),
      resolveDir: here,
      loader: 'ts',
    },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

function runAll(invocation: BenchArgs): void {
  const files = readdirSync(suitesDir)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => invocation.names.length === 0 || invocation.names.some((name) => file.startsWith(name)))
    .sort();
  if (files.length === 0) {
    process.stderr.write(`no suite matches ${invocation.names.join(' ')}\n`);
    process.exitCode = 1;
    return;
  }
  const results: SuiteResult[] = [];
  for (const file of files) {
    const child = spawnSync(process.execPath, ['--expose-gc', bundle(file), ...suiteWords(invocation)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 2 ** 20,
    });
    if (child.status !== 0) {
      process.stderr.write(`${file} failed with status ${child.status}\n`);
      process.exitCode = 1;
      continue;
    }
    const result = JSON.parse(child.stdout) as SuiteResult;
    results.push(result);
    process.stdout.write(`${formatSuite(result)}\n\n`);
  }
  if (invocation.json !== undefined) writeFileSync(invocation.json, `${JSON.stringify(results, null, 2)}\n`);
}

runAll(parseBenchArgs(process.argv.slice(2)));
