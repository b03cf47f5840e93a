// One seed of a sweep: the scenario run once with that seed (as `packetlab run NAME --seed S --metrics` runs it),
// reduced to one JSON-ready line: the seed, passed or not, each check's name and verdict, the chosen metric's final
// value, and the first failure (the first failing check with what it expected and got, or the error thrown). Runs in
// a sweep worker (worker.ts) or in-process; it keeps no state between seeds.

import { recordStories } from '../../story/recorder.ts';
import type { StoryResult } from '../../story/story.ts';
import type { CommandScenario } from '../main.ts';

export type SeedFailure =
  | { readonly check: string; readonly expected: string; readonly actual: string }
  | { readonly error: string };

/** One line of a sweep's output. */
export interface SeedLine {
  readonly seed: number;
  readonly passed: boolean;
  readonly checks: readonly { readonly name: string; readonly pass: boolean }[];
  /** The --metric's final value (null when the run exposed no such series); absent without --metric. */
  readonly metric?: { readonly name: string; readonly value: number | null };
  readonly failure: SeedFailure | null;
}

/** A scenario's usage error (wrong ARGS): the sweep stops with it, exit 2. */
export interface SeedUsage {
  readonly usage: string;
}

/**
 * The final value of a metric in a Prometheus text exposition: `NAME` sums the last sample of every series of that
 * family (every node's `node_nf_conntrack_entries`), `NAME{labels}` takes the series with exactly those labels as
 * packetlab prints them (`node_nf_conntrack_entries{node="w1"}`). Null when no series matches.
 */
export function finalMetric(exposition: string, selector: string): number | null {
  const brace = selector.indexOf('{');
  const family = brace < 0 ? selector : selector.slice(0, brace);
  const labels = brace < 0 ? undefined : selector.slice(brace);
  const last = new Map<string, number>();
  for (const line of exposition.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(family)) continue;
    const rest = line.slice(family.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const close = rest[0] === '{' ? rest.indexOf('} ') + 1 : 0;
    const series = rest.slice(0, close);
    if (labels !== undefined && series !== labels) continue;
    const value = Number(rest.slice(close).trim().split(' ')[0]);
    last.set(series, value);
  }
  if (last.size === 0) return null;
  let sum = 0;
  for (const value of last.values()) sum += value;
  return sum;
}

function firstFailure(result: StoryResult): SeedFailure | null {
  const failed = result.checks.find((check) => !check.pass);
  return failed === undefined
    ? null
    : { check: failed.name, expected: failed.expected, actual: failed.actual };
}

/** Runs the scenario once with `seed` and returns its line (or its usage error). Never throws. */
export function runSeed(
  scenario: CommandScenario,
  seed: number,
  args: readonly string[],
  metric: string | undefined,
): SeedLine | SeedUsage {
  const metricField = (value: number | null) =>
    metric === undefined ? {} : { metric: { name: metric, value } };
  let run: ReturnType<typeof recordStories<StoryResult | { readonly usage: string }>>;
  try {
    run = recordStories({ metrics: metric !== undefined }, () =>
      scenario.run({ seed: String(seed), args, lang: 'en' }),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { seed, passed: false, checks: [], ...metricField(null), failure: { error: message } };
  }
  const outcome = run.value;
  if ('usage' in outcome) return { usage: outcome.usage };
  const exposition = run.recordings.at(-1)?.metrics;
  return {
    seed,
    passed: outcome.ok,
    checks: outcome.checks.map((check) => ({ name: check.name, pass: check.pass })),
    ...metricField(exposition === undefined || metric === undefined ? null : finalMetric(exposition, metric)),
    failure: firstFailure(outcome),
  };
}
