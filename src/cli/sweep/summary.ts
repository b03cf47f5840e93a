// A sweep's summary from its lines: how many seeds ran and passed, the chosen metric's distribution (min, median,
// p90, max by the nearest-rank method, so every figure is a value some seed produced) and the first failing seeds;
// the same for one run and for merged shards, since both summarise the same lines.

import type { SeedLine } from './seed-run.ts';

/** How many failing seeds the summary names. */
export const FIRST_FAILURES = 10;

export interface MetricDistribution {
  readonly name: string;
  /** Seeds whose run exposed the metric. */
  readonly seeds: number;
  readonly min: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

export interface SweepSummary {
  readonly seeds: number;
  readonly passed: number;
  readonly failed: number;
  /** passed / seeds, 0 when no seed ran. */
  readonly passRate: number;
  readonly metric: MetricDistribution | { readonly name: string; readonly seeds: 0 } | null;
  readonly firstFailing: readonly { readonly seed: number; readonly why: string }[];
}

/** The value at quantile q (0 < q ≤ 1) of sorted values, nearest rank: the ⌈q·n⌉-th smallest. */
export function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

function why(line: SeedLine): string {
  const failure = line.failure;
  if (failure === null) return 'failed';
  if ('error' in failure) return `threw: ${failure.error}`;
  return `${failure.check}: expected ${failure.expected}, got ${failure.actual}`;
}

export function summarise(lines: readonly SeedLine[]): SweepSummary {
  const passed = lines.filter((line) => line.passed).length;
  const named = lines.find((line) => line.metric !== undefined)?.metric?.name;
  let metric: SweepSummary['metric'] = null;
  if (named !== undefined) {
    const values = lines
      .map((line) => line.metric?.value)
      .filter((value): value is number => typeof value === 'number')
      .sort((a, b) => a - b);
    metric =
      values.length === 0
        ? { name: named, seeds: 0 }
        : {
            name: named,
            seeds: values.length,
            min: values[0]!,
            median: nearestRank(values, 0.5),
            p90: nearestRank(values, 0.9),
            max: values.at(-1)!,
          };
  }
  return {
    seeds: lines.length,
    passed,
    failed: lines.length - passed,
    passRate: lines.length === 0 ? 0 : passed / lines.length,
    metric,
    firstFailing: lines
      .filter((line) => !line.passed)
      .slice(0, FIRST_FAILURES)
      .map((line) => ({ seed: line.seed, why: why(line) })),
  };
}

/** The summary as the lines `packetlab sweep` prints after the seeds. */
export function formatSummary(title: string, summary: SweepSummary): string {
  const rate = `${(summary.passRate * 100).toFixed(1)}%`;
  const lines = [
    `${title}: ${summary.seeds} seeds, ${summary.passed} passed, ${summary.failed} failed (pass rate ${rate})`,
  ];
  const metric = summary.metric;
  if (metric !== null) {
    if (metric.seeds === 0) lines.push(`metric ${metric.name}: no seed exposed it`);
    else {
      const m = metric as MetricDistribution;
      lines.push(
        `metric ${m.name} over ${m.seeds} seeds: min ${m.min}, median ${m.median}, p90 ${m.p90}, max ${m.max}`,
      );
    }
  }
  if (summary.firstFailing.length > 0) {
    const more =
      summary.failed > summary.firstFailing.length ? ` (first ${summary.firstFailing.length})` : '';
    lines.push(`failing seeds${more}:`);
    for (const failing of summary.firstFailing) lines.push(`  ${failing.seed}  ${failing.why}`);
  }
  return `${lines.join('\n')}\n`;
}
