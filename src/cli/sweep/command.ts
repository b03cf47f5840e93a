// `packetlab sweep SCENARIO|FILE [ARGS...] --seeds A..B [--workers K] [--metric NAME] [--out FILE]
// [--shards N [--shard-index I]] [--k8s-job [--image IMAGE] [--parallelism P] [--name NAME]]` and
// `packetlab sweep merge FILES... [--out FILE]` (docs/cli.md). The seeds run on a piscina worker pool (worker.ts), a
// bounded window of them in flight, or with --workers 1 in this thread; lines are written in seed order whatever order the workers finish in, so the
// lines depend only on the seeds. With --shards the run is one shard (its index from --shard-index or
// JOB_COMPLETION_INDEX), prints no summary and exits 0 when it ran (failing seeds are lines: merge judges them).

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { stringify } from 'yaml';
import type { CommandScenario } from '../main.ts';
import { isUserFile, loadUserScenario } from '../user-file.ts';
import { splitWords } from '../words.ts';
import { indexedJob, jobName } from './k8s-job.ts';
import { runSeed, type SeedLine, type SeedUsage } from './seed-run.ts';
import { formatSeedRange, parseSeedRange, type SeedRange, seedCount, shardOf } from './seeds.ts';
import { formatSummary, summarise } from './summary.ts';
import type { SeedTask } from './worker.ts';

export const SWEEP_USAGE =
  'usage: packetlab sweep NAME|FILE [ARGS...] --seeds A..B [--workers K] [--metric NAME] [--out FILE] [--shards N [--shard-index I]] [--k8s-job [--image IMAGE] [--parallelism P] [--name NAME]] | sweep merge FILES... [--out FILE]';

const VALUED = [
  '--seeds',
  '--workers',
  '--metric',
  '--out',
  '--shards',
  '--shard-index',
  '--image',
  '--parallelism',
  '--name',
] as const;
type Valued = (typeof VALUED)[number];

interface SweepRequest {
  readonly target: string;
  readonly args: readonly string[];
  readonly range: SeedRange;
  readonly workers: number | undefined;
  readonly metric: string | undefined;
  readonly out: string | undefined;
  readonly shards: number | undefined;
  readonly shardIndex: number | undefined;
  readonly k8sJob: boolean;
  readonly image: string;
  readonly parallelism: number | undefined;
  readonly name: string | undefined;
}

type Parsed<T> = T | { readonly error: string };

function count(option: Valued, text: string, least: number): Parsed<number> {
  if (!/^\d+$/.test(text) || Number(text) < least || !Number.isSafeInteger(Number(text)))
    return { error: `packetlab: option '${option}' takes an integer >= ${least}, not '${text}'` };
  return Number(text);
}

function parseSweep(words: readonly string[], env: NodeJS.ProcessEnv): Parsed<SweepRequest> {
  const parsed = splitWords(words, VALUED, ['--k8s-job'] as const);
  if ('error' in parsed) return parsed;
  const { positional, values } = parsed;
  const k8sJob = parsed.flags.has('--k8s-job');
  const [target, ...args] = positional;
  if (target === undefined)
    return { error: 'packetlab: sweep needs a scenario name or file (packetlab list shows them)' };
  const seeds = values.get('--seeds');
  if (seeds === undefined) return { error: "packetlab: sweep needs '--seeds A..B'" };
  const range = parseSeedRange(seeds);
  if ('error' in range) return { error: `packetlab: ${range.error}` };
  const numbers: Partial<Record<Valued, number>> = {};
  for (const [option, least] of [
    ['--workers', 1],
    ['--shards', 1],
    ['--shard-index', 0],
    ['--parallelism', 1],
  ] as const) {
    const text = values.get(option);
    if (text === undefined) continue;
    const value = count(option, text, least);
    if (typeof value !== 'number') return value;
    numbers[option] = value;
  }
  const shards = numbers['--shards'];
  let shardIndex = numbers['--shard-index'];
  if (shardIndex !== undefined && shards === undefined)
    return { error: "packetlab: option '--shard-index' needs '--shards N'" };
  if (k8sJob && shards === undefined) return { error: "packetlab: option '--k8s-job' needs '--shards N'" };
  if (k8sJob && shardIndex !== undefined)
    return { error: "packetlab: options '--k8s-job' and '--shard-index' cannot be combined" };
  if (!k8sJob)
    for (const option of ['--image', '--parallelism', '--name'] as const)
      if (values.has(option)) return { error: `packetlab: option '${option}' needs '--k8s-job'` };
  if (shards !== undefined && !k8sJob && shardIndex === undefined) {
    const fromEnv = env['JOB_COMPLETION_INDEX'];
    if (fromEnv === undefined)
      return { error: "packetlab: option '--shards' needs '--shard-index I' or JOB_COMPLETION_INDEX" };
    if (!/^\d+$/.test(fromEnv))
      return { error: `packetlab: JOB_COMPLETION_INDEX is not an index: '${fromEnv}'` };
    shardIndex = Number(fromEnv);
  }
  if (shards !== undefined && shardIndex !== undefined && shardIndex >= shards)
    return { error: `packetlab: shard index ${shardIndex} is not below --shards ${shards}` };
  return {
    target,
    args,
    range,
    workers: numbers['--workers'],
    metric: values.get('--metric'),
    out: values.get('--out'),
    shards,
    shardIndex,
    k8sJob,
    image: values.get('--image') ?? 'packetlab:latest',
    parallelism: numbers['--parallelism'],
    name: values.get('--name'),
  };
}

/** Where lines go: a file (--out) or standard output. */
interface LineSink {
  write(text: string): void;
  close(): void;
}

function sink(out: string | undefined): LineSink {
  if (out === undefined) return { write: (text) => process.stdout.write(text), close: () => {} };
  const fd = openSync(out, 'w');
  return { write: (text) => writeSync(fd, text), close: () => closeSync(fd) };
}

/** The summary goes where the lines do not: stdout when the lines went to a file, stderr otherwise. */
function writeSummary(out: string | undefined, text: string): void {
  (out === undefined ? process.stderr : process.stdout).write(text);
}

/** The worker's module: worker.js in dist/, a bootstrap that registers tsx's loader first in a checkout. */
function workerModule(): string {
  const typescript = import.meta.url.endsWith('.ts');
  return new URL(typescript ? './worker-tsx.mjs' : './worker.js', import.meta.url).href;
}

/** Runs every seed of `range` on `workers` threads; calls `emit` with each line in seed order. */
async function runPool(
  request: SweepRequest,
  range: SeedRange,
  workers: number,
  emit: (line: SeedLine) => void,
): Promise<SeedUsage | undefined> {
  const pool = new Piscina<SeedTask, SeedLine | SeedUsage>({
    filename: workerModule(),
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: 1000,
  });
  const total = seedCount(range);
  // Lines that finished ahead of an earlier seed wait here (by offset) until it is written.
  const ready = new Map<number, SeedLine>();
  const window = workers * 4;
  let next = 0;
  let submitted = 0;
  let usage: SeedUsage | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const submit = () => {
        while (usage === undefined && submitted < total && submitted - next < window) {
          const offset = submitted++;
          const task: SeedTask = {
            target: request.target,
            args: request.args,
            seed: range.first + offset,
            metric: request.metric,
          };
          pool.run(task).then((result) => {
            if ('usage' in result) {
              usage ??= result;
              resolve();
              return;
            }
            ready.set(offset, result);
            while (ready.has(next)) {
              emit(ready.get(next)!);
              ready.delete(next);
              next++;
            }
            if (next === total) resolve();
            else submit();
          }, reject);
        }
      };
      submit();
    });
  } finally {
    await pool.destroy();
  }
  return usage;
}

/** `--workers 1`: every seed in this thread, in order (no thread to start; the same lines as a pool gives). */
async function runHere(
  request: SweepRequest,
  range: SeedRange,
  scenarios: readonly CommandScenario[],
  emit: (line: SeedLine) => void,
): Promise<SeedUsage | undefined> {
  let scenario: CommandScenario | undefined;
  if (isUserFile(request.target)) {
    const loaded = await loadUserScenario(request.target);
    if ('error' in loaded) throw new Error(loaded.error);
    scenario = loaded.scenario;
  } else scenario = scenarios.find((entry) => entry.name === request.target);
  if (scenario === undefined) throw new Error(`unknown scenario '${request.target}'`);
  for (let seed = range.first; seed <= range.last; seed++) {
    const result = runSeed(scenario, seed, request.args, request.metric);
    if ('usage' in result) return result;
    emit(result);
  }
  return undefined;
}

/** Checks the target before any thread starts: a known scenario, or a user's file that loads. */
async function checkTarget(
  target: string,
  scenarios: readonly CommandScenario[],
): Promise<{ readonly error: string; readonly exitCode: number } | undefined> {
  if (isUserFile(target)) {
    const loaded = await loadUserScenario(target);
    return 'error' in loaded ? { error: loaded.error, exitCode: loaded.exitCode } : undefined;
  }
  if (scenarios.some((entry) => entry.name === target)) return undefined;
  return { error: `packetlab: unknown scenario '${target}' (packetlab list shows them)`, exitCode: 2 };
}

/** The words one shard's pod runs: the request's own, less the Job's options. */
function shardWords(request: SweepRequest): string[] {
  const words = [request.target, ...request.args, '--seeds', formatSeedRange(request.range)];
  if (request.metric !== undefined) words.push('--metric', request.metric);
  if (request.workers !== undefined) words.push('--workers', String(request.workers));
  return words;
}

/** The summary's first words: the seeds the lines cover. */
function summaryTitle(lines: readonly SeedLine[]): string {
  if (lines.length === 0) return 'sweep: no seeds';
  return `sweep of seeds ${lines[0]!.seed}..${lines.at(-1)!.seed}`;
}

async function sweep(words: readonly string[], scenarios: readonly CommandScenario[]): Promise<number> {
  const request = parseSweep(words, process.env);
  if ('error' in request) {
    process.stderr.write(`${request.error}\n${SWEEP_USAGE}\n`);
    return 2;
  }
  const invalid = await checkTarget(request.target, scenarios);
  if (invalid !== undefined) {
    process.stderr.write(`${invalid.error}\n`);
    return invalid.exitCode;
  }
  if (request.k8sJob) {
    const shards = request.shards!;
    const job = indexedJob({
      name: request.name ?? jobName(request.target),
      image: request.image,
      shards,
      parallelism: request.parallelism ?? shards,
      sweepWords: shardWords(request),
    });
    process.stdout.write(stringify(job));
    return 0;
  }
  const range =
    request.shards === undefined
      ? request.range
      : shardOf(request.range, request.shardIndex!, request.shards);
  if (range === undefined) return 0;
  const workers = Math.min(request.workers ?? availableParallelism(), seedCount(range));
  const out = sink(request.out);
  const lines: SeedLine[] = [];
  let usage: SeedUsage | undefined;
  try {
    const emit = (line: SeedLine) => {
      lines.push(line);
      out.write(`${JSON.stringify(line)}\n`);
    };
    usage =
      workers === 1
        ? await runHere(request, range, scenarios, emit)
        : await runPool(request, range, workers, emit);
  } catch (error) {
    process.stderr.write(
      `packetlab: sweep ${request.target} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    out.close();
  }
  if (usage !== undefined) {
    process.stderr.write(`${usage.usage}\n`);
    return 2;
  }
  if (request.shards !== undefined) return 0;
  const summary = summarise(lines);
  writeSummary(request.out, formatSummary(summaryTitle(lines), summary));
  return summary.failed > 0 ? 1 : 0;
}

function isSeedLine(value: unknown): value is SeedLine {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(record['seed']) &&
    typeof record['passed'] === 'boolean' &&
    Array.isArray(record['checks'])
  );
}

/** `sweep merge FILES... [--out FILE]`: the shards' lines in seed order, then the summary of them all. */
async function merge(words: readonly string[]): Promise<number> {
  const parsed = splitWords(words, VALUED, ['--k8s-job'] as const);
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n${SWEEP_USAGE}\n`);
    return 2;
  }
  const other = [...parsed.values.keys()].find((option) => option !== '--out');
  if (other !== undefined || parsed.flags.has('--k8s-job')) {
    process.stderr.write(
      `packetlab: option '${other ?? '--k8s-job'}' does not apply to sweep merge\n${SWEEP_USAGE}\n`,
    );
    return 2;
  }
  if (parsed.positional.length === 0) {
    process.stderr.write(`packetlab: sweep merge needs the shards' files\n${SWEEP_USAGE}\n`);
    return 2;
  }
  const entries: { readonly line: SeedLine; readonly text: string; readonly where: string }[] = [];
  for (const file of parsed.positional) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      process.stderr.write(
        `packetlab: cannot read ${file}: ${code === 'ENOENT' ? 'No such file or directory' : String(error)}\n`,
      );
      return 2;
    }
    const rows = text.split('\n');
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!.trim();
      if (row === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(row);
      } catch {
        value = undefined;
      }
      if (!isSeedLine(value)) {
        process.stderr.write(
          `packetlab: ${file}:${index + 1}: not a sweep line (packetlab sweep's JSON lines)\n`,
        );
        return 2;
      }
      entries.push({ line: value, text: row, where: `${file}:${index + 1}` });
    }
  }
  entries.sort((a, b) => a.line.seed - b.line.seed);
  for (let i = 1; i < entries.length; i++)
    if (entries[i]!.line.seed === entries[i - 1]!.line.seed) {
      process.stderr.write(
        `packetlab: seed ${entries[i]!.line.seed} is in ${entries[i - 1]!.where} and ${entries[i]!.where}\n`,
      );
      return 2;
    }
  const out = sink(parsed.values.get('--out'));
  try {
    for (const entry of entries) out.write(`${entry.text}\n`);
  } finally {
    out.close();
  }
  const lines = entries.map((entry) => entry.line);
  const missing = lines.length === 0 ? 0 : lines.at(-1)!.seed - lines[0]!.seed + 1 - lines.length;
  if (missing > 0)
    process.stderr.write(
      `packetlab: sweep merge: ${missing} seeds of ${lines[0]!.seed}..${lines.at(-1)!.seed} are in no file\n`,
    );
  const summary = summarise(lines);
  writeSummary(parsed.values.get('--out'), formatSummary(summaryTitle(lines), summary));
  return summary.failed > 0 || missing > 0 ? 1 : 0;
}

/** `packetlab sweep ...` and `packetlab sweep merge ...`. */
export async function sweepCommand(
  words: readonly string[],
  scenarios: readonly CommandScenario[],
): Promise<number> {
  return words[0] === 'merge' ? merge(words.slice(1)) : sweep(words, scenarios);
}
