// `npm run bench:plots -- FILE [--out DIR]`: the SVG plots of a benchmark result, one per suite whose case names carry
// a size (`hit 100k`, `first packet @ 1000`), written as DIR/SUITE.svg (docs/performance/ by default) for
// docs/performance.md to embed. FILE is what `npm run bench -- --json FILE` writes (an array of suite results) or
// `packetlab bench ... --json FILE` (one). Suites with no sized case are skipped and named on stderr.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SuiteResult } from '../src/cli/bench/suite.ts';
import { seriesOf, suitePlot } from '../src/cli/bench/svg.ts';

const USAGE = 'usage: npm run bench:plots -- FILE [--out DIR]';

function main(argv: readonly string[]): number {
  let out = 'docs/performance';
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') {
      const dir = argv[++i];
      if (dir === undefined) {
        process.stderr.write(`bench-plots: --out needs a directory\n${USAGE}\n`);
        return 2;
      }
      out = dir;
    } else files.push(argv[i]!);
  }
  if (files.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(files[0]!, 'utf8'));
  } catch (error) {
    process.stderr.write(
      `bench-plots: ${files[0]}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  const results = (Array.isArray(parsed) ? parsed : [parsed]) as SuiteResult[];
  if (!results.every((result) => typeof result?.suite === 'string' && Array.isArray(result.results))) {
    process.stderr.write(`bench-plots: ${files[0]}: not a benchmark result (npm run bench -- --json FILE)\n`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  for (const result of results) {
    if (seriesOf(result).length === 0) {
      process.stderr.write(`bench-plots: ${result.suite}: no case names a size, no plot\n`);
      continue;
    }
    const file = join(out, `${result.suite}.svg`);
    writeFileSync(file, suitePlot(result));
    process.stdout.write(`${file}\n`);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
