// The `packetlab` command as a user runs it: bin/packetlab.mjs with the scenario table — list, run with --seed and
// --json, the shorthand, usage errors and exit codes. `list` and the tour go through bin/packetlab.mjs itself (tsx
// over the checkout), the rest through the run's bundle of the same main() (test/support/cli-bundle.ts).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { packetlabScript } from '../support/packetlab-cli.ts';

const validateStory = new Ajv({ allErrors: true }).compile(
  JSON.parse(readFileSync('docs/story.schema.json', 'utf8')),
);

function start(script: string, args: readonly string[]) {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** bin/packetlab.mjs, as a user starts it. */
const asUser = (...args: string[]) => start('bin/packetlab.mjs', args);
/** The same command, bundled once per run. */
const packetlab = (...args: string[]) => start(packetlabScript(), args);

describe('the packetlab command', () => {
  it('lists one scenario a line, its name first', () => {
    const { stdout, status } = asUser('list');
    expect(status).toBe(0);
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/ +/)[0]),
    ).toEqual(SCENARIOS.map((entry) => entry.name));
    expect(SCENARIOS.slice(0, 2).map((entry) => entry.name)).toEqual(['tour', 'veth']);
  });

  it('runs a scenario, prints its transcript then one line per check, exit 0 when all pass', () => {
    const { stdout, status } = packetlab('run', 'veth');
    expect(status).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('$ ip netns exec a ping -c 2 10.0.0.2');
    expect(lines.slice(-2)).toEqual([
      'PASS both echo requests are answered',
      'PASS ARP first, then two echo exchanges: six frames on veth-a',
    ]);
  });

  it('prints one JSON object with --json, the same for one seed and another for another seed', () => {
    const first = packetlab('run', 'lesson', 'routed', 'direct', '--json', '--seed', '7');
    const again = packetlab('run', 'lesson', 'routed', 'direct', '--seed=7', '--json');
    const other = packetlab('run', 'lesson', 'routed', 'direct', '--json', '--seed', '8');
    expect(first.status).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(validateStory(result), JSON.stringify(validateStory.errors)).toBe(true);
    expect(validateStory({ ...result, ok: 'yes' })).toBe(false);
    expect(Object.keys(result)).toEqual(['scenario', 'seed', 'ok', 'steps', 'checks']);
    expect(result).toMatchObject({ scenario: 'lesson', seed: '7', ok: true });
    expect(result.checks.map((check: { pass: boolean }) => check.pass)).toEqual([true, true, true]);
    expect(again.stdout).toBe(first.stdout);
    expect(other.stdout).not.toBe(first.stdout);
  });

  it.each(['veth', 'traffic'])('prints %s as JSON that its schema accepts', (name) => {
    const run = packetlab('run', name, '--json');
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(validateStory(JSON.parse(run.stdout)), JSON.stringify(validateStory.errors)).toBe(true);
  });

  it('runs the tour by default, as npm start does, in French with --lang fr', () => {
    const { stdout, status } = asUser();
    expect(status).toBe(0);
    expect(stdout).toContain('# ──── Case 1: two pods on the same node ────\n');
    const french = asUser('tour', '--lang', 'fr');
    expect(french.status).toBe(0);
    expect(french.stdout).toContain('# ──── Cas 1 : deux pods sur le même nœud ────\n');
    // Checks stay in English: the same PASS lines in both languages.
    const passes = (out: string) => out.split('\n').filter((line) => line.startsWith('PASS '));
    expect(passes(french.stdout)).toEqual(passes(stdout));
  });

  it.each([
    [['run', 'nope'], "packetlab: unknown scenario 'nope' (packetlab list shows them)"],
    [['run', 'veth', '--bad'], "packetlab: unknown option '--bad'"],
    [['run', 'veth', '--seed'], "packetlab: option '--seed' needs a value"],
    [['run', 'tour', '--lang', 'de'], "packetlab: option '--lang' takes en or fr, not 'de'"],
    [['run', 'tour', 'kindnet'], 'usage: packetlab run tour [--lang en|fr]'],
    [['run'], 'packetlab: run needs a scenario name (packetlab list shows them)'],
    [['lesson', 'bridge', 'satellite'], 'usage: packetlab run lesson [bridge|routed] [vxlan|direct]'],
  ])('refuses %j with one line and exit 2', (args, line) => {
    const { stderr, status, stdout } = packetlab(...args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(line);
  });
});
