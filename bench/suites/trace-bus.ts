// The trace bus's cost when nobody listens: the four packet paths of the packet-path suite (hot flow) in a build with tracing compiled out (the baseline) and in the same build with tracing left in and no listener.
//
// How tracing is guarded: every trace site tests `TRACING && bus.wants.KIND` before it builds an event
// (src/core/trace.ts), so with no listener a site costs two reads and allocates nothing. "Compiled out" is the same
// source bundled by esbuild with `globalThis.PACKETLAB_NO_TRACE` defined as true: TRACING folds to false and syntax
// minification removes every site (a plugin writes `false` for TRACING at each site: esbuild inlines constants only
// within a module). Both variants are bundled here, at build time, into tmp/bench/ with the same
// options (syntax minification on both, so only the define differs), loaded into this process and timed in one run.
// Goal (issue 13): tracing with no listener costs < 5%, i.e. rate(no listener) / rate(compiled out) >= 0.95 on every
// path, read from an interleaved measurement (alternating blocks of sends, median of the per-round ratios): the two
// cases alone, timed one after the other, swung from 0.24x to 2.3x on a machine at load 24. Before this suite, bench notes measured 1-3% (performance-notes.md).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { BenchCase, BenchGoal, BenchMetric } from '../../src/cli/bench/suite.ts';
import { defineSuite } from '../../src/cli/bench/suite.ts';
import type * as Fixtures from '../support/path-fixtures.ts';

type FixtureModule = typeof Fixtures;

/**
 * esbuild inlines a constant only within its own module, so the sites in other modules would still read TRACING at
 * run time: this plugin writes `false` for it at every site of src/, as a preprocessor symbol would be.
 */
const compileOutTracing: Plugin = {
  name: 'compile-out-tracing',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      return { contents: source.replace(/\bTRACING && /g, 'false && '), loader: 'ts' };
    });
  },
};

/**
 * The median over `rounds` of time(compiled out) / time(no listener) for `block` sends each, the two taken back to
 * back in alternating order: on a shared machine the load drifts between two cases timed a second apart, much less
 * between two blocks of a few milliseconds. Above 1 means the traced build was faster in that round.
 */
function interleavedRatio(off: () => void, on: () => void, rounds: number, block: number): number {
  const timeBlock = (send: () => void): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < block; i++) send();
    return Number(process.hrtime.bigint() - start);
  };
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    const a = timeBlock(first ? off : on);
    const b = timeBlock(first ? on : off);
    ratios.push(first ? a / b : b / a);
  }
  ratios.sort((x, y) => x - y);
  return ratios[Math.floor(rounds / 2)]!;
}

/** Bundles bench/support/path-fixtures.ts (and the stack under it) with or without tracing and loads it. */
async function load(variant: 'traced' | 'compiled-out'): Promise<FixtureModule> {
  const root = process.cwd();
  const outfile = join(root, 'tmp', 'bench', `trace-bus-${variant}.mjs`);
  await build({
    stdin: {
      contents: `export * from ${JSON.stringify(join(root, 'bench', 'support', 'path-fixtures.ts'))};`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minifySyntax: true,
    ...(variant === 'compiled-out'
      ? { define: { 'globalThis.PACKETLAB_NO_TRACE': 'true' }, plugins: [compileOutTracing] }
      : {}),
    outfile,
    logLevel: 'error',
  });
  return (await import(pathToFileURL(outfile).href)) as FixtureModule;
}

export default defineSuite({
  name: 'trace-bus',
  title: 'the packet path with tracing compiled out vs with no trace listener',
  async build(options) {
    const [traced, compiledOut] = await Promise.all([load('traced'), load('compiled-out')]);
    const paths = options.quick ? (['bridge'] as const) : traced.PATHS;
    const cases: BenchCase[] = [];
    const metrics: BenchMetric[] = [];
    const goals: BenchGoal[] = [];
    for (const path of paths) {
      options.progress?.(`trace-bus: ${path}`);
      const off = compiledOut.pathFixture(path, compiledOut.flows(1, 1));
      const on = traced.pathFixture(path, traced.flows(1, 1));
      const baseline = `${path}, tracing compiled out`;
      const name = `${path}, tracing with no listener`;
      cases.push({ name: baseline, fn: off.send });
      cases.push({ name, baseline, fn: on.send });
      const interleaved = `${path}: rate with no listener / compiled out, interleaved median`;
      metrics.push({
        name: interleaved,
        value: interleavedRatio(off.send, on.send, options.quick ? 3 : 41, options.quick ? 20 : 2000),
        unit: 'ratio',
      });
      goals.push({
        name: `${traced.PATH_TITLES[path]}: tracing with no listener costs < 5%`,
        value: (results) => results.metric(interleaved),
        op: '>=',
        target: 0.95,
      });
    }
    return { cases, metrics, goals };
  },
});
