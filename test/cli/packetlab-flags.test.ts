// `packetlab run`'s recording flags as a user runs them: --pcap (read back by tshark: nothing malformed, every
// checksum good), --metrics, --trace, --mermaid, and the same bytes from one seed for every scenario in the
// table; then errors: a flag without its value, --json with --mermaid, a scenario that throws (one line, or the
// stack with --debug), colour only on a terminal without NO_COLOR.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type CommandScenario, main, paint, wantsColour } from '../../src/cli/main.ts';
import { recordStories } from '../../src/story/recorder.ts';
import { Story, transcript } from '../../src/story/story.ts';
import { packetlabScript } from '../support/packetlab-cli.ts';
import { requireTool } from '../support/tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'packetlab-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function packetlab(...args: string[]) {
  const run = spawnSync(process.execPath, [packetlabScript(), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '' },
    // --trace of a load run (pitfall-ports, a bug replay's connection leak) prints tens of megabytes.
    maxBuffer: 256 * 1024 * 1024,
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** tshark over a capture with checksum checks on; TCP reassembly off, as each segment is seen on several devices. */
function tsharkRows(path: string): string[][] {
  const run = spawnSync(
    'tshark',
    [
      '-r',
      path,
      '-o',
      'ip.check_checksum:TRUE',
      '-o',
      'tcp.check_checksum:TRUE',
      '-o',
      'udp.check_checksum:TRUE',
      '-o',
      'tcp.desegment_tcp_streams:FALSE',
      '-d',
      'udp.port==8472,vxlan',
      '-T',
      'fields',
      '-E',
      'separator=|',
      '-E',
      'aggregator=;',
      '-e',
      '_ws.malformed',
      '-e',
      'ip.checksum.status',
      '-e',
      'icmp.checksum.status',
      '-e',
      'udp.checksum.status',
      '-e',
      'tcp.checksum.status',
      '-e',
      'sll.ifindex',
      '-e',
      'icmp.type',
    ],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('|'));
}

// Wireshark's checksum status values (epan/proto.h): 1 good, 3 not present (UDP checksum 0).
const GOOD = '1';
const NOT_PRESENT = '3';

/** tshark's verdict on one capture: no malformed frame, every checksum good, every frame on a real interface. */
function expectSoundCapture(path: string): void {
  const rows = tsharkRows(path);
  expect(rows.length).toBeGreaterThan(5);
  for (const [malformed, ip, icmp, udp, tcp, ifindex, icmpType] of rows) {
    expect(malformed).toBe('');
    expect(Number(ifindex)).toBeGreaterThan(0);
    // An ICMP error quotes at most 548 bytes of the packet (icmp_send's 576): a quoted full-size segment or echo
    // cannot be checksummed (tshark calls it bad or unverified); the IP headers and the error's own ICMP
    // checksum are still checked.
    const quotesSegment = (icmpType ?? '').split(';').some((type) => type === '3' || type === '11');
    const checked = quotesSegment ? [ip!, icmp!.split(';')[0]!] : [ip!, icmp!, tcp!];
    for (const status of checked.flatMap((field) => field.split(';')).filter((s) => s !== ''))
      expect(status).toBe(GOOD);
    if (quotesSegment) continue;
    for (const status of udp!.split(';').filter((s) => s !== ''))
      expect([GOOD, NOT_PRESENT]).toContain(status);
  }
}

describe('packetlab run with recording flags', () => {
  // In process, as `run` calls it (recordStories around the entry), so that every scenario of the table costs one
  // run per replay rather than a process start; the command itself is run as a user runs it below.
  it.for(SCENARIOS.map((entry) => entry.name))(
    'replays %s from one seed to the same JSON, trace, pcap and metrics bytes; tshark finds every frame sound',
    (name, ctx) => {
      const entry = SCENARIOS.find((candidate) => candidate.name === name)!;
      const runs = [1, 2].map(() => {
        const run = recordStories({ pcap: true, trace: true, metrics: true }, () =>
          entry.run({ seed: 's1', args: [] }),
        );
        const result = run.value;
        if ('usage' in result) throw new Error(result.usage);
        const recording = run.recordings.at(-1);
        return {
          ok: result.ok,
          json: JSON.stringify(result),
          plain: transcript(result).join('\n'),
          pcap: recording?.pcap ?? new Uint8Array(),
          metrics: recording?.metrics ?? '',
        };
      });
      const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
      expect(first.ok).toBe(true);
      expect(second.json).toBe(first.json);
      expect(Buffer.compare(Buffer.from(second.pcap), Buffer.from(first.pcap))).toBe(0);
      expect(second.metrics).toBe(first.metrics);
      expect(first.plain).toMatch(/ dev_queue_xmit {9}/);
      expect(first.metrics).toContain('# TYPE node_nf_conntrack_entries gauge');
      if (!requireTool('tshark', ctx)) return;
      const path = join(dir, `${name}.pcap`);
      writeFileSync(path, first.pcap);
      expectSoundCapture(path);
    },
  );

  it.for(['veth', 'lesson-case'])(
    'the command replays %s from one seed to the same stdout, JSON, pcap and metrics files',
    (name, ctx) => {
      const runs = [1, 2].map((n) => {
        const pcap = join(dir, `${name}-${n}.pcap`);
        const metrics = join(dir, `${name}-${n}.prom`);
        const json = packetlab('run', name, '--seed', 's1', '--json', '--pcap', pcap, `--metrics=${metrics}`);
        const plain = packetlab('run', name, '--seed', 's1', '--trace');
        expect(json.status, json.stderr).toBe(0);
        expect(plain.status, plain.stderr).toBe(0);
        return {
          json: json.stdout,
          plain: plain.stdout,
          pcap: readFileSync(pcap),
          metrics: readFileSync(metrics),
        };
      });
      const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
      expect(second.json).toBe(first.json);
      expect(second.plain).toBe(first.plain);
      expect(Buffer.compare(second.pcap, first.pcap)).toBe(0);
      expect(Buffer.compare(second.metrics, first.metrics)).toBe(0);
      expect(first.plain).not.toContain('\x1b[');
      expect(first.plain).toMatch(/ dev_queue_xmit {9}/);
      if (!requireTool('tshark', ctx)) return;
      expectSoundCapture(join(dir, `${name}-1.pcap`));
    },
  );

  it('prints a Mermaid sequenceDiagram instead of the transcript with --mermaid', () => {
    const first = packetlab('run', 'veth', '--mermaid');
    expect(first.status).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'sequenceDiagram',
      '    participant n1 as a',
      '    participant n2 as b',
    ]);
    expect(lines.filter((line) => /^ {4}n\d+->>n\d+: /.test(line))).toHaveLength(6);
    expect(packetlab('run', 'veth', '--mermaid').stdout).toBe(first.stdout);
  });

  it.each([
    [['run', 'veth', '--pcap'], "packetlab: option '--pcap' needs a value"],
    [['run', 'veth', '--metrics='], "packetlab: option '--metrics' needs a value"],
    [
      ['run', 'veth', '--json', '--mermaid'],
      "packetlab: options '--json' and '--mermaid' cannot be combined",
    ],
  ])('refuses %j with one line and exit 2', (args, line) => {
    const { stderr, status, stdout } = packetlab(...args);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(line);
  });
});

describe('packetlab run in process', () => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    stdout.length = 0;
    stderr.length = 0;
  });
  function capture(): void {
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
  }
  const throwing: CommandScenario = {
    name: 'boom',
    summary: 'throws',
    run: () => {
      throw new Error('the bridge is on fire');
    },
  };
  const detached: CommandScenario = {
    name: 'alone',
    summary: 'tells a story of no simulation',
    run: () => {
      const story = new Story('alone', 1);
      story.say('nothing on the wire');
      return story.result();
    },
  };

  it('turns a scenario that throws into one line and exit 1, the stack with --debug', async () => {
    capture();
    expect(await main(['run', 'boom'], [throwing])).toBe(1);
    expect(stderr.join('')).toBe('packetlab: scenario boom failed: the bridge is on fire\n');
    stderr.length = 0;
    expect(await main(['boom', '--debug'], [throwing])).toBe(1);
    expect(stderr.join('')).toMatch(/^Error: the bridge is on fire\n {4}at /);
    expect(stdout).toEqual([]);
  });

  it('fails when a recording flag meets a story with no simulation', async () => {
    capture();
    expect(await main(['run', 'alone', '--pcap', join(dir, 'none.pcap')], [detached])).toBe(1);
    expect(stderr.join('')).toBe(
      'packetlab: scenario alone attached no simulation to its story: nothing to record\n',
    );
    stderr.length = 0;
    expect(await main(['run', 'alone'], [detached])).toBe(0);
    expect(stdout.join('')).toBe('# nothing on the wire\n\n');
  });

  it('colours only a terminal, and not with NO_COLOR set', () => {
    expect(wantsColour(true, {})).toBe(true);
    expect(wantsColour(true, { NO_COLOR: '' })).toBe(true);
    expect(wantsColour(true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour(true, { TERM: 'dumb' })).toBe(false);
    expect(wantsColour(false, {})).toBe(false);
    expect(wantsColour(undefined, {})).toBe(false);
    expect(paint(['# narration', '$ ip route', 'output', 'PASS ok', 'FAIL no: expected 1, got 2'])).toEqual([
      '\x1b[2m# narration\x1b[0m',
      '\x1b[1m$ ip route\x1b[0m',
      'output',
      '\x1b[32mPASS ok\x1b[0m',
      '\x1b[31mFAIL no: expected 1, got 2\x1b[0m',
    ]);
  });
});
