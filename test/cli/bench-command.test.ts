// `packetlab bench conntrack|nat|rules|path` as a user runs it (the run's bundle of the command), in --quick mode:
// each prints the suite's table, writes a well-formed JSON result and an SVG plot that a real XML parser (Python's
// expat, through xml.dom.minidom) reads, with one series per case family and labelled axes. `rules` loads a
// kube-proxy ruleset taken from the real iptables-save and nft on this machine (test/fixtures/bench/). Then the mix
// format's reader and the errors: bad options, files and mix lines exit 2 with one line naming what is wrong.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { parseMix, schedule } from '../../src/cli/bench/mix.ts';
import type { SuiteResult } from '../../src/cli/bench/suite.ts';
import { splitCaseName } from '../../src/cli/bench/svg.ts';
import { expectWellFormed } from '../support/bench.ts';
import { mainInProcess, runPacketlab } from '../support/packetlab-cli.ts';
import { requireTool } from '../support/tools.ts';

const packetlab = (args: readonly string[]) => runPacketlab(args);
const inProcess = (args: readonly string[]) => mainInProcess(args, SCENARIOS);

const dir = mkdtempSync(join(tmpdir(), 'packetlab-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const IPTABLES = 'test/fixtures/bench/kube-proxy.iptables';
const NFT = 'test/fixtures/bench/kube-proxy.nft';
const MIX = 'test/fixtures/bench/mix.txt';

/** The SVG's elements as Python's XML parser reads them: it fails on any document that is not well-formed XML. */
function parseSvg(file: string): { root: string; polylines: number; circles: number; texts: string[] } {
  const script = [
    'import json, sys, xml.dom.minidom as m',
    'd = m.parse(sys.argv[1])',
    'texts = [t.firstChild.data for t in d.getElementsByTagName("text") if t.firstChild]',
    'print(json.dumps({"root": d.documentElement.tagName, "polylines": len(d.getElementsByTagName("polyline")),',
    ' "circles": len(d.getElementsByTagName("circle")), "texts": texts}))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`not well-formed XML: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const CASES: readonly (readonly [string, readonly string[], string])[] = [
  ['conntrack', ['--flows', '2000'], 'flows in the table'],
  ['nat', [], 'occupancy of the port range (%)'],
  ['rules', ['--ruleset', `${IPTABLES},${NFT}`, '--mix', MIX], 'rules loaded'],
  ['path', ['--mix', MIX, '--flows', '100'], 'flows in flight'],
];

describe('packetlab bench', () => {
  it.for(CASES)('%s --quick prints its table and writes its JSON and SVG', ([name, args, xLabel], test) => {
    const json = join(dir, `${name}.json`);
    const svg = join(dir, `${name}.svg`);
    const run = packetlab(['bench', name, ...args, '--quick', '--json', json, '--svg', svg]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${name}: .* \\(quick\\)$`));
    expect(lines[1]!.trim().split(/\s+/)).toEqual([
      'case',
      'time/op',
      'rate',
      '±rme',
      'samples',
      'baseline',
      'ratio',
    ]);
    const result = JSON.parse(readFileSync(json, 'utf8')) as SuiteResult;
    expectWellFormed(result);
    expect(result).toMatchObject({ suite: name, quick: true });
    // Every case row of the table is a result of the JSON, in order.
    expect(lines.slice(2, 2 + result.results.length).map((line) => line.trim().split(/\s{2,}/)[0])).toEqual(
      result.results.map((row) => row.name),
    );
    const families = new Set(result.results.map((row) => splitCaseName(row.name)!.series));
    if (!requireTool('python3', test)) return;
    const plot = parseSvg(svg);
    expect(plot.root).toBe('svg');
    expect(plot.circles).toBe(result.results.length);
    expect(plot.texts.filter((text) => text.startsWith(xLabel))).toHaveLength(1);
    expect(plot.texts).toContain('ns per operation (log scale)');
    for (const family of families) expect(plot.texts).toContain(family);
  });

  it('rules counts the rules of each ruleset and reports its load time', () => {
    const json = join(dir, 'rules.json');
    const result = JSON.parse(readFileSync(json, 'utf8')) as SuiteResult;
    expect(result.results.map((row) => row.name)).toEqual([
      'first packet @ 24',
      'established packet @ 24',
      'first packet @ 9',
      'established packet @ 9',
    ]);
    expect(result.metrics.map((metric) => [metric.name, metric.unit])).toEqual([
      [`rules in ${IPTABLES}`, 'rules'],
      [`load ${IPTABLES}`, 'ms'],
      [`rules in ${NFT}`, 'rules'],
      [`load ${NFT}`, 'ms'],
    ]);
  });

  it('npm run bench:plots renders each sized suite of a results array as DIR/SUITE.svg', (test) => {
    const results = ['conntrack', 'rules'].map((name) =>
      JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')),
    );
    const input = join(dir, 'all.json');
    writeFileSync(input, JSON.stringify([...results, { ...results[0], suite: 'flat', results: [] }]));
    const out = join(dir, 'plots');
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/bench-plots.ts', input, '--out', out],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${join(out, 'conntrack.svg')}\n${join(out, 'rules.svg')}\n`);
    expect(run.stderr).toBe('bench-plots: flat: no case names a size, no plot\n');
    expect(readFileSync(join(out, 'rules.svg'), 'utf8')).toBe(readFileSync(join(dir, 'rules.svg'), 'utf8'));
    if (!requireTool('python3', test)) return;
    expect(parseSvg(join(out, 'conntrack.svg')).root).toBe('svg');
  });

  it('reads a mix: one flow a line, weights, comments, JSON, and a weighted interleaved order', () => {
    const text =
      '# mix\nudp 10.0.0.1:40000 > 10.96.0.10:53 in eth0 weight 3\n\ntcp 10.0.0.1:40001 > 10.96.0.1:443 in eth1 # api\n';
    const mix = parseMix('m.txt', text);
    if ('error' in mix) throw new Error(mix.error);
    expect(mix.map((flow) => [flow.text, flow.weight, flow.line, flow.spec.direction.dev])).toEqual([
      ['udp 10.0.0.1:40000 > 10.96.0.10:53 in eth0', 3, 2, 'eth0'],
      ['tcp 10.0.0.1:40001 > 10.96.0.1:443 in eth1', 1, 4, 'eth1'],
    ]);
    expect([...schedule(mix)]).toEqual([0, 0, 1, 0]);
    const json = parseMix(
      'm.json',
      JSON.stringify([{ packet: 'icmp 10.0.0.1 > 10.0.0.2 in eth0', weight: 2 }]),
    );
    if ('error' in json) throw new Error(json.error);
    expect(json.map((flow) => [flow.spec.protocol, flow.weight])).toEqual([['icmp', 2]]);
  });

  it.each([
    [
      'udp 10.0.0.1:1 > 10.0.0.2:53 in eth0\nudp 10.0.0.1 > 10.0.0.2:53 in eth0\n',
      "m.txt:2: '10.0.0.1' needs a port (ADDRESS:PORT)",
    ],
    [
      'tcp 10.0.0.1:1 > 10.0.0.2:80 out\n',
      "m.txt:1: 'out' (a packet the node sends) is not supported in a mix: name the interface it arrives on, 'in IFACE'",
    ],
    [
      '\n\ntcp 10.0.0.1:1 > 10.0.0.2:80 in eth0 weight 0\n',
      'm.txt:3: weight must be an integer from 1 to 1000, not 0',
    ],
    [
      'tcp 10.0.0.1:1 > 10.0.0.2:80 in eth0 weight many\n',
      'm.txt:1: weight must be an integer from 1 to 1000, not NaN',
    ],
    ['sctp 10.0.0.1:1 > 10.0.0.2:80 in eth0\n', "m.txt:1: 'sctp' is not tcp, udp or icmp"],
    ['# nothing\n', 'm.txt: the mix has no flow'],
    [
      '[{"packet": "tcp 10.0.0.1:1 > 10.0.0.2:80 in eth0", "wieght": 2}]',
      'm.txt: [0]: unknown key "wieght" (packet, weight)',
    ],
  ])('a bad mix %j: %s', (text, message) => {
    const mix = parseMix('m.txt', text);
    expect('error' in mix && mix.error).toMatch(
      new RegExp(`^packetlab: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it('names the file and line of a bad mix line, exit 2, before anything runs', async () => {
    const mix = join(dir, 'bad-mix.txt');
    writeFileSync(
      mix,
      'udp 10.0.0.1:40000 > 10.96.0.10:53 in eth0\ntcp 10.0.0.1:40001 > 10.96.0.1 in eth0\n',
    );
    const run = await inProcess(['bench', 'rules', '--ruleset', IPTABLES, '--mix', mix, '--quick']);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(`packetlab: ${mix}:2: '10.96.0.1' needs a port (ADDRESS:PORT)`);
    expect(run.stdout).toBe('');
  });

  it.each([
    [['bench'], 'packetlab: bench needs a suite: conntrack, nat, rules, path'],
    [['bench', 'routes'], "packetlab: bench has no suite 'routes' (conntrack, nat, rules, path)"],
    [
      ['bench', 'conntrack', '--flows', '0'],
      "packetlab: option '--flows' takes an integer from 1 to 10000000, not '0'",
    ],
    [['bench', 'conntrack', '--flows'], "packetlab: option '--flows' needs a value"],
    [['bench', 'nat', '--mix', MIX], "packetlab: bench nat takes no option '--mix'"],
    [['bench', 'rules', '--mix', MIX], "packetlab: bench rules needs '--ruleset FILE'"],
    [['bench', 'rules', '--ruleset', IPTABLES], "packetlab: bench rules needs '--mix FILE'"],
    [
      ['bench', 'rules', '--ruleset', MIX, '--mix', MIX],
      `packetlab: ${MIX}: neither iptables-save output (*table ... COMMIT) nor nft list ruleset output`,
    ],
    [
      ['bench', 'rules', '--ruleset', 'no/such.rules', '--mix', MIX],
      'packetlab: cannot read no/such.rules: No such file or directory',
    ],
    [['bench', 'path'], "packetlab: bench path needs '--mix FILE'"],
    [['bench', 'path', '--mix', MIX, '--fast'], "packetlab: unknown option '--fast'"],
  ])('%j exits 2: %s', async (args, message) => {
    const run = await inProcess(args);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')).toEqual([message, expect.stringMatching(/^usage: packetlab bench /), '']);
    expect(run.stdout).toBe('');
  });
});
