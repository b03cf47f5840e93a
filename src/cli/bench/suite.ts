// A benchmark suite and how one runs: cases timed by the `benchmark` package, each against a baseline measured in the same run, plus figures that are not rates (metrics) and the goals they are held to; no wall-clock assertion anywhere.
//
// A suite file (bench/suites/NAME.ts) default-exports `defineSuite({ name, title, build })`. `build` prepares its
// inputs outside the timed code and returns the cases, metrics and goals; `runSuite` times every case, fills in each
// result's baseline and ratio, evaluates the goals and returns one JSON-ready record. `npm run bench` (bench/run.ts)
// runs each suite in its own Node process; `packetlab bench` (src/cli/bench/command.ts) runs suites built from the
// user's own ruleset or flow mix. `--quick` times each case for a few milliseconds: the smoke tests use it, so a
// broken benchmark fails `npm test` without any test asserting on time.

import { cpus, totalmem } from 'node:os';
import Benchmark from 'benchmark';

export interface SuiteOptions {
  /** A few milliseconds per case and the smallest sizes: enough to prove the suite runs. */
  readonly quick: boolean;
  /** `--key value` pairs from the command line (sizes, files), for suites that take them. */
  readonly args: Readonly<Record<string, string>>;
  /** Called with a short line while a long build runs (a progress bar on a TTY). */
  readonly progress?: (line: string) => void;
}

export interface BenchCase {
  /** Unique within the suite, e.g. `hit 100k`. */
  readonly name: string;
  /** One operation (or `batch` operations). Keep allocation and setup out of it. */
  readonly fn: () => void;
  /** The name of another case of this suite: the result carries its figures and `ratio = hz / baseline.hz`. */
  readonly baseline?: string;
  /** Operations one call of fn performs (hz counts operations, not calls). */
  readonly batch?: number;
}

export interface BenchMetric {
  readonly name: string;
  readonly value: number;
  /** `bytes/flow`, `bytes/packet`, `ms`, `MiB`, `probes/flow`... */
  readonly unit: string;
}

export interface BenchGoal {
  /** As the issue words it: `conntrack hit >= 30x Map at 100k flows`. */
  readonly name: string;
  /** Read after the cases ran: a ratio, a metric, a quotient of two results. */
  readonly value: (results: SuiteResults) => number;
  readonly op: '>=' | '<=';
  readonly target: number;
}

export interface SuitePlan {
  readonly cases: readonly BenchCase[];
  readonly metrics?: readonly BenchMetric[];
  readonly goals?: readonly BenchGoal[];
}

export interface Suite {
  readonly name: string;
  readonly title: string;
  readonly build: (options: SuiteOptions) => SuitePlan | Promise<SuitePlan>;
}

export interface CaseFigures {
  readonly name: string;
  /** Operations per second. */
  readonly hz: number;
  readonly nsPerOp: number;
  /** Relative margin of error, in percent. */
  readonly rme: number;
  readonly samples: number;
}

export interface CaseResult extends CaseFigures {
  readonly baseline: CaseFigures | null;
  /** hz / baseline.hz; null without a baseline. */
  readonly ratio: number | null;
}

export interface GoalResult {
  readonly name: string;
  readonly value: number;
  readonly op: '>=' | '<=';
  readonly target: number;
  readonly met: boolean;
}

export interface SuiteResult {
  readonly suite: string;
  readonly title: string;
  readonly quick: boolean;
  readonly machine: MachineLine;
  readonly results: readonly CaseResult[];
  readonly metrics: readonly BenchMetric[];
  readonly goals: readonly GoalResult[];
}

export interface MachineLine {
  readonly node: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly totalMemGiB: number;
}

/** What a goal reads: the results by case name and the metrics by name (both throw on a name that is not there). */
export interface SuiteResults {
  result(name: string): CaseResult;
  metric(name: string): number;
}

export function defineSuite(suite: Suite): Suite {
  return suite;
}

const FULL = { maxTime: 1, minSamples: 5 } as const;
const QUICK = { minTime: 0.002, maxTime: 0.01, minSamples: 1, initCount: 1 } as const;

function time(benchCase: BenchCase, quick: boolean): CaseFigures {
  const bench = new Benchmark(benchCase.name, { fn: benchCase.fn, ...(quick ? QUICK : FULL) });
  bench.run();
  if (bench.error) throw bench.error;
  const hz = bench.hz * (benchCase.batch ?? 1);
  return {
    name: benchCase.name,
    hz,
    nsPerOp: 1e9 / hz,
    rme: bench.stats.rme,
    samples: bench.stats.sample.length,
  };
}

/** Builds the suite, times every case in order, then evaluates its goals. */
export async function runSuite(suite: Suite, options: Partial<SuiteOptions> = {}): Promise<SuiteResult> {
  const suiteOptions: SuiteOptions = {
    quick: options.quick ?? false,
    args: options.args ?? {},
    ...(options.progress ? { progress: options.progress } : {}),
  };
  const plan = await suite.build(suiteOptions);
  const names = new Set<string>();
  for (const benchCase of plan.cases) {
    if (names.has(benchCase.name)) throw new Error(`suite ${suite.name}: two cases named ${benchCase.name}`);
    names.add(benchCase.name);
    if (benchCase.baseline !== undefined && !plan.cases.some((other) => other.name === benchCase.baseline))
      throw new Error(
        `suite ${suite.name}: ${benchCase.name}'s baseline ${benchCase.baseline} is not a case`,
      );
  }
  const figures = new Map<string, CaseFigures>();
  for (const benchCase of plan.cases) {
    suiteOptions.progress?.(`${suite.name}: ${benchCase.name}`);
    figures.set(benchCase.name, time(benchCase, suiteOptions.quick));
  }
  const results = plan.cases.map((benchCase): CaseResult => {
    const own = figures.get(benchCase.name)!;
    const baseline = benchCase.baseline === undefined ? null : figures.get(benchCase.baseline)!;
    return { ...own, baseline, ratio: baseline === null ? null : own.hz / baseline.hz };
  });
  const metrics = plan.metrics ?? [];
  const lookup: SuiteResults = {
    result(name) {
      const found = results.find((result) => result.name === name);
      if (!found) throw new Error(`suite ${suite.name}: no case named ${name}`);
      return found;
    },
    metric(name) {
      const found = metrics.find((metric) => metric.name === name);
      if (!found) throw new Error(`suite ${suite.name}: no metric named ${name}`);
      return found.value;
    },
  };
  const goals = (plan.goals ?? []).map((goal): GoalResult => {
    const value = goal.value(lookup);
    const met = goal.op === '>=' ? value >= goal.target : value <= goal.target;
    return { name: goal.name, value, op: goal.op, target: goal.target, met };
  });
  return {
    suite: suite.name,
    title: suite.title,
    quick: suiteOptions.quick,
    machine: machineLine(),
    results,
    metrics,
    goals,
  };
}

/** The machine a result was measured on (ratios travel between machines; absolute rates do not). */
export function machineLine(): MachineLine {
  const cores = cpus();
  return {
    node: process.version,
    cpus: cores.length,
    cpuModel: cores[0]?.model ?? 'unknown',
    totalMemGiB: Math.round(totalmem() / 2 ** 30),
  };
}
