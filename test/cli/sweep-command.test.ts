// `packetlab sweep` as a user runs it (the run's bundle of the command): a fixture scenario whose check fails for
// some seeds (test/fixtures/sweep/mac-order.ts) swept in one run on two workers and on one, then as the shards of the
// Indexed Job `--k8s-job` prints (each shard run with the manifest's own arguments and JOB_COMPLETION_INDEX, as its
// pod would) and merged: the same lines, the same summary. The manifest validates against a subset of Kubernetes'
// Job schema (test/fixtures/k8s-job/README.md) and a misspelt or mistyped field does not. A metric's distribution
// from a built-in scenario; bad command lines exit 2 with one line saying why.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCENARIOS } from '../../scenarios/index.ts';
import { mainInProcess, runPacketlab } from '../support/packetlab-cli.ts';

const packetlab = runPacketlab;
/** main() in this process, its output captured: for errors found before any seed runs. */
const inProcess = (args: readonly string[]) => mainInProcess(args, SCENARIOS);

const dir = mkdtempSync(join(tmpdir(), 'packetlab-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE = 'test/fixtures/sweep/mac-order.ts';
const validateJob = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('test/fixtures/k8s-job/job.schema.json', 'utf8')),
);

interface Line {
  readonly seed: number;
  readonly passed: boolean;
  readonly checks: readonly { name: string; pass: boolean }[];
  readonly failure: { check: string; expected: string; actual: string } | null;
}

const lines = (text: string): Line[] =>
  text
    .trimEnd()
    .split('\n')
    .map((row) => JSON.parse(row) as Line);

interface Job {
  spec: {
    completions: number;
    parallelism: number;
    completionMode: string;
    template: { spec: { containers: { command: string[]; args: string[]; env: { name: string }[] }[] } };
  };
}

describe('packetlab sweep', () => {
  it('writes one line per seed in seed order, the same on 2 workers, on 1, and as 3 merged shards of the Job', async () => {
    const two = join(dir, 'two.jsonl');
    const run = packetlab(['sweep', FIXTURE, '--seeds', '1..8', '--workers', '2', '--out', two]);
    expect(run.stderr).toBe('');
    // Some seeds fail, so the sweep exits 1 and names them.
    expect(run.status).toBe(1);
    const swept = lines(readFileSync(two, 'utf8'));
    expect(swept.map((line) => line.seed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const failing = swept.filter((line) => !line.passed);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(8);
    for (const line of failing) {
      expect(line.failure?.check).toBe("veth-a's MAC sorts before veth-b's");
      expect(line.failure?.expected).toMatch(/^below ([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
      expect(line.checks).toEqual([{ name: "veth-a's MAC sorts before veth-b's", pass: false }]);
    }
    for (const line of swept.filter((line) => line.passed)) expect(line.failure).toBeNull();
    const summary = run.stdout.split('\n');
    const passed = 8 - failing.length;
    expect(summary[0]).toBe(
      `sweep of seeds 1..8: 8 seeds, ${passed} passed, ${failing.length} failed (pass rate ${((passed / 8) * 100).toFixed(1)}%)`,
    );
    expect(summary[1]).toBe('failing seeds:');
    expect(summary.slice(2, 2 + failing.length).map((row) => row.trim().split(/ +/)[0])).toEqual(
      failing.map((line) => String(line.seed)),
    );

    const one = join(dir, 'one.jsonl');
    expect(packetlab(['sweep', FIXTURE, '--seeds', '1..8', '--workers', '1', '--out', one]).status).toBe(1);
    expect(readFileSync(one, 'utf8')).toBe(readFileSync(two, 'utf8'));

    const manifest = await inProcess([
      'sweep',
      FIXTURE,
      '--seeds',
      '1..8',
      '--k8s-job',
      '--shards',
      '3',
      '--workers',
      '1',
    ]);
    expect(manifest.status).toBe(0);
    const job = parse(manifest.stdout) as Job;
    expect(validateJob(job), JSON.stringify(validateJob.errors)).toBe(true);
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
    const container = job.spec.template.spec.containers[0]!;
    expect(container.command).toEqual(['packetlab']);
    const shards: string[] = [];
    for (let index = 0; index < job.spec.completions; index++) {
      // What pod `index` runs: the container's args, with the index the Job controller sets in its environment.
      const shard = packetlab(container.args, { JOB_COMPLETION_INDEX: String(index) });
      expect(shard.status, shard.stderr).toBe(0);
      expect(shard.stderr).toBe('');
      const file = join(dir, `shard-${index}.jsonl`);
      writeFileSync(file, shard.stdout);
      shards.push(file);
    }
    expect(lines(readFileSync(shards[0]!, 'utf8')).map((line) => line.seed)).toEqual([1, 2]);
    // Given out of order: merge puts the lines back in seed order.
    const merged = packetlab(['sweep', 'merge', shards[2]!, shards[0]!, shards[1]!]);
    expect(merged.status).toBe(1);
    expect(merged.stdout).toBe(readFileSync(two, 'utf8'));
    expect(merged.stderr).toBe(run.stdout);
    // --shard-index gives the same shard as the environment.
    const explicit = packetlab([...container.args, '--shard-index', '1']);
    expect(explicit.stdout).toBe(readFileSync(shards[1]!, 'utf8'));
  }, 300_000);

  it('rejects a Job manifest with a misspelt or mistyped field (the schema is strict enough to matter)', async () => {
    const manifest = await inProcess([
      'sweep',
      'veth',
      '--seeds',
      '0..99',
      '--k8s-job',
      '--shards',
      '4',
      '--parallelism',
      '2',
    ]);
    const job = parse(manifest.stdout) as Job & { spec: Record<string, unknown> };
    expect(validateJob(job)).toBe(true);
    expect(job.spec.parallelism).toBe(2);
    const { completionMode, ...rest } = job.spec;
    expect(validateJob({ ...job, spec: { ...rest, completionsMode: completionMode } })).toBe(false);
    expect(validateJob({ ...job, spec: { ...job.spec, completions: '4' } })).toBe(false);
    const container = job.spec.template.spec.containers[0]!;
    const pod = { ...job.spec.template.spec, containers: [{ ...container, args: container.args.join(' ') }] };
    expect(validateJob({ ...job, spec: { ...job.spec, template: { spec: pod } } })).toBe(false);
    expect(
      validateJob({ ...job, spec: { ...job.spec, template: { spec: { restartPolicy: 'Never' } } } }),
    ).toBe(false);
  });

  it("reports a metric's distribution over the seeds: min, median, p90, max", async () => {
    const run = await inProcess([
      'sweep',
      'veth',
      '--seeds',
      '3..5',
      '--workers',
      '1',
      '--metric',
      'node_network_transmit_packets_total',
    ]);
    expect(run.status).toBe(0);
    const swept = run.stdout
      .trimEnd()
      .split('\n')
      .map((row) => JSON.parse(row) as { seed: number; metric: { name: string; value: number } });
    expect(swept.map((line) => line.seed)).toEqual([3, 4, 5]);
    const values = swept.map((line) => line.metric.value).sort((a, b) => a - b);
    for (const value of values) expect(value).toBeGreaterThan(0);
    expect(run.stderr.split('\n').slice(0, 2)).toEqual([
      'sweep of seeds 3..5: 3 seeds, 3 passed, 0 failed (pass rate 100.0%)',
      `metric node_network_transmit_packets_total over 3 seeds: min ${values[0]}, median ${values[1]}, p90 ${values[2]}, max ${values[2]}`,
    ]);
  });

  it.each([
    [['sweep', 'veth'], "packetlab: sweep needs '--seeds A..B'"],
    [['sweep', 'veth', '--seeds', '5..2'], "packetlab: '--seeds' 5..2: the first seed is after the last"],
    [
      ['sweep', 'veth', '--seeds', '1-9'],
      "packetlab: '--seeds' takes A..B (two integers, A <= B), not '1-9'",
    ],
    [
      ['sweep', 'veth', '--seeds', '1..9', '--workers', '0'],
      "packetlab: option '--workers' takes an integer >= 1, not '0'",
    ],
    [['sweep', 'nope', '--seeds', '1..2'], "packetlab: unknown scenario 'nope' (packetlab list shows them)"],
    [
      ['sweep', 'veth', '--seeds', '1..2', '--shard-index', '0'],
      "packetlab: option '--shard-index' needs '--shards N'",
    ],
    [
      ['sweep', 'veth', '--seeds', '1..2', '--shards', '2', '--shard-index', '2'],
      'packetlab: shard index 2 is not below --shards 2',
    ],
    [['sweep', 'veth', '--seeds', '1..2', '--k8s-job'], "packetlab: option '--k8s-job' needs '--shards N'"],
    [['sweep', 'veth', '--seeds', '1..2', '--frobnicate'], "packetlab: unknown option '--frobnicate'"],
    [['sweep', 'merge'], "packetlab: sweep merge needs the shards' files"],
  ])('%j exits 2: %s', async (args, message) => {
    const run = await inProcess(args);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
    expect(run.stdout).toBe('');
  });

  it('merge names the file and line of a line that is not a sweep line, and a seed found twice', async () => {
    const good = join(dir, 'good.jsonl');
    writeFileSync(good, `${JSON.stringify({ seed: 1, passed: true, checks: [], failure: null })}\n`);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      `${JSON.stringify({ seed: 2, passed: true, checks: [], failure: null })}\n{"seed": "x"}\n`,
    );
    const broken = await inProcess(['sweep', 'merge', good, bad]);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toBe(`packetlab: ${bad}:2: not a sweep line (packetlab sweep's JSON lines)\n`);
    const twice = await inProcess(['sweep', 'merge', good, good]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toBe(`packetlab: seed 1 is in ${good}:1 and ${good}:1\n`);
  });
});
