// tcpdump (the tool) capturing in the simulation: the command line against the real tcpdump 4.99.3's errors, the
// flags that change a live capture (-s, -y LINUX_SLL, -c, -v, -x, -w's resolution), and what -w writes read back by
// the real tcpdump exactly as packetlab's own -r prints it.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readPcap } from '../../src/capture/pcap.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow, spawn } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns, run } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import { twoHosts as sharedTwoHosts, type TwoHosts } from '../support/two-hosts.ts';

const must = execOrThrow;

function twoHosts(): TwoHosts {
  return sharedTwoHosts('tcpdump-tool');
}

/** tcpdump LINE in a's background while a pings b twice; what it printed. */
function captureWhilePinging(line: string): {
  sim: Simulation;
  a: Namespace;
  stdout: string;
  stderr: string;
} {
  const { sim, a } = twoHosts();
  const dump = spawn(a, line);
  if (!('stop' in dump)) throw new Error(dump.stderr);
  must(a, 'ping -c 2 -s 200 10.0.0.2');
  const result = dump.stop();
  return { sim, a, stdout: result.stdout, stderr: result.stderr };
}

describe('tcpdump command lines the real tcpdump refuses', () => {
  // Each fails before tcpdump opens a device or a file, so the real tool runs them unprivileged and harmlessly.
  const lines = [
    '-k',
    '-c',
    '-c 0',
    '-c abc',
    '-s abc',
    '-s 300000',
    '-s -1',
    '-s 64k',
    '-c 0x2',
    '--time-stamp-precision=foo',
    '--nosuch',
    '-y FOO',
    '-tttttt',
    '-r',
    '-i',
  ];
  for (const line of lines) {
    it(`tcpdump ${line}`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const theirs = run('tcpdump', line.split(' '));
      const { sim } = twoHosts();
      const ours = exec(sim.namespace('a')!, `tcpdump ${line}`);
      expect({ stderr: ours.stderr, exitCode: ours.exitCode }).toEqual({
        stderr: theirs.stderr,
        exitCode: theirs.exitCode,
      });
    });
  }

  it('reads -c as atoi and -s as strtol with base 0, as tcpdump does', () => {
    const { a } = captureWhilePinging('tcpdump -i eth0 -w /t.pcap');
    for (const [line, lines] of [
      ['-c 5abc', 5],
      ['-c +1', 1],
      ['-s 0x40 -c 1', 1],
    ] as const) {
      const result = exec(a, `tcpdump -r /t.pcap ${line}`);
      expect(result.exitCode).toBe(0);
      expect(result.stdout.split('\n').filter((l) => l !== '')).toHaveLength(lines);
    }
  });

  it('answers "not supported" for the options packetlab does not model', () => {
    const { a } = twoHosts();
    for (const [line, option] of [
      ['-G 5 -w x', '-G'],
      ['--immediate-mode', '--immediate-mode'],
      ['--count -r x', '--count'],
      ['-y LINUX_SLL -i eth0', '-y LINUX_SLL on eth0'],
    ]) {
      expect(exec(a, `tcpdump ${line}`)).toEqual({
        stdout: '',
        stderr: `packetlab: tcpdump ${option} is not supported\n`,
        exitCode: 1,
      });
    }
  });
});

describe('tcpdump on any command line', () => {
  it('never throws: every result is output and an exit code', () => {
    const { sim, a } = twoHosts();
    sim.files.set('/f.pcap', new Uint8Array([0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0]));
    const token = fc.oneof(
      fc.constantFrom('-v', '-vvv', '-x', '-XX', '-A', '-e', '-q', '-#', '-tttt', '-c', '2', '-s', '0', '-r'),
      fc.constantFrom('/f.pcap', '/nowhere', '-w', '/out.pcap', '-i', 'any', 'eth0', 'lo', '-y', 'LINUX_SLL'),
      fc.constantFrom('--nano', '--micro', '--time-stamp-precision', 'icmp', 'tcp', 'and', '-S', '-p', '-k'),
      fc.string({ maxLength: 6 }).filter((t) => !/['"\\\s]/.test(t) && t !== ''),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (args) => {
        const result = exec(a, `tcpdump -c 1 ${args.join(' ')}`);
        expect(typeof result.stdout).toBe('string');
        expect(Number.isInteger(result.exitCode)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('tcpdump -D against the real tcpdump in a throw-away namespace', () => {
  /** The same steps on a real namespace pair and on packetlab's; `tcpdump -D` in a after each. */
  const steps = [
    ['ip link add va type veth peer name vb netns B', 'ip link add br0 type bridge', 'ip link set va up'],
    ['ip link set lo down', 'B: ip link set vb up'],
    // Not an empty bridge set up: Linux 6.18 gives it carrier, packetlab's bridge waits for a port.
    [
      'ip link set lo up',
      'ip link add eth7 type veth peer name eth8',
      'ip link set eth8 up',
      'ip link set eth7 up',
    ],
  ];

  it("lists the devices in libpcap's order, with their flags and connection state", (ctx) => {
    if (!requireTool('tcpdump', ctx) || !requireNetns(ctx)) return;
    const real = new RealNamespaces();
    const sim = new Simulation({ seed: 'tcpdump-D' });
    const ours = { a: sim.addNamespace('a'), b: sim.addNamespace('b') };
    try {
      // RealNamespaces brings lo up in a new namespace; so does this side.
      real.add('a');
      real.add('b');
      must(ours.a, 'ip link set lo up');
      must(ours.b, 'ip link set lo up');
      for (const step of steps) {
        for (const command of step) {
          const [side, line] = command.startsWith('B: ')
            ? (['b', command.slice(3)] as const)
            : (['a', command] as const);
          const words = line.replace('netns B', `netns ${real.name('b')}`).split(' ');
          real.ip(side, ...words.slice(1));
          must(ours[side], line.replace('netns B', 'netns b'));
        }
        const theirs = real.exec('a', 'tcpdump', ['-D']);
        expect(exec(ours.a, 'tcpdump -D')).toEqual({
          stdout: theirs.stdout,
          stderr: theirs.stderr,
          exitCode: 0,
        });
      }
    } finally {
      real.cleanup();
    }
  });
});

describe('tcpdump capturing in the simulation', () => {
  it('-s cuts what is printed and written; the banner and the file header say so', () => {
    const { sim, stdout, stderr } = captureWhilePinging(
      'tcpdump -nn -s 60 -i eth0 -w /cut.pcap --print icmp',
    );
    expect(stderr.split('\n')[0]).toBe(
      'tcpdump: listening on eth0, link-type EN10MB (Ethernet), snapshot length 60 bytes',
    );
    expect(stdout.split('\n')[0]).toMatch(
      /^00:00:00\.000000 IP 10\.0\.0\.1 > 10\.0\.0\.2: ICMP echo request, id \d+, seq 1, length 208$/,
    );
    const file = readPcap(sim.files.get('/cut.pcap')!);
    if (!file.ok) throw new Error(file.message);
    expect(file.file).toMatchObject({ snapLen: 60, resolution: 'micro', linkType: 1 });
    expect(file.file.records.map((r) => [r.data.length, r.origLen])).toEqual([
      [60, 242],
      [60, 242],
      [60, 242],
      [60, 242],
    ]);
  });

  it('-w writes microseconds, or nanoseconds with --nano, as tcpdump -w does', () => {
    for (const [flag, magic] of [
      ['', 'd4c3b2a1'],
      ['--nano', '4d3cb2a1'],
    ] as const) {
      const { sim } = captureWhilePinging(`tcpdump -i eth0 ${flag} -w /t.pcap`);
      const bytes = sim.files.get('/t.pcap')!;
      expect(Buffer.from(bytes.subarray(0, 4)).toString('hex')).toBe(magic);
    }
  });

  it('-y LINUX_SLL -i any writes and prints Linux cooked v1, without the interface column', () => {
    const { stdout, stderr } = captureWhilePinging('tcpdump -nn -y LINUX_SLL -i any -c 4');
    expect(stderr.split('\n')[1]).toBe(
      'listening on any, link-type LINUX_SLL (Linux cooked v1), snapshot length 262144 bytes',
    );
    expect(stdout.replace(/id \d+/g, 'id N')).toBe(
      '00:00:00.000000 ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28\n' +
        '00:00:00.000000 ARP, Reply 10.0.0.2 is-at ' +
        `${must(twoHosts().b, 'ip -br link show eth0').split(/\s+/)[2]}, length 28\n` +
        '00:00:00.000000 IP 10.0.0.1 > 10.0.0.2: ICMP echo request, id N, seq 1, length 208\n' +
        '00:00:00.000000 IP 10.0.0.2 > 10.0.0.1: ICMP echo reply, id N, seq 1, length 208\n',
    );
  });

  it('-v drops the "verbose output suppressed" notice and decodes the IP header; -e -x dump the bytes', () => {
    const verbose = captureWhilePinging('tcpdump -nn -v -c 1 -i eth0 icmp');
    expect(verbose.stderr.split('\n')[0]).toBe(
      'tcpdump: listening on eth0, link-type EN10MB (Ethernet), snapshot length 262144 bytes',
    );
    expect(verbose.stdout).toMatch(
      /^00:00:00\.000000 IP \(tos 0x0, ttl 64, id \d+, offset 0, flags \[DF\], proto ICMP \(1\), length 228\)\n {4}10\.0\.0\.1 > 10\.0\.0\.2: ICMP echo request, id \d+, seq 1, length 208\n$/,
    );
    const hex = captureWhilePinging('tcpdump -nn -xx -c 1 -i eth0 icmp');
    expect(hex.stdout.split('\n')[1]).toMatch(/^\t0x0000: {2}([0-9a-f]{4} ){5}[0-9a-f]{4} 0800 4500$/);
  });

  it('-tttt prints the virtual time as a date on 1970-01-01, -# numbers the packets', () => {
    const { stdout } = captureWhilePinging('tcpdump -nn -tttt -# -c 2 -i eth0 icmp');
    expect(stdout.split('\n').map((line) => line.slice(0, 36))).toEqual([
      '    1  1970-01-01 00:00:00.000000 IP',
      '    2  1970-01-01 00:00:00.000000 IP',
      '',
    ]);
  });
});

describe("what packetlab's tcpdump -w writes, read by the real tcpdump", () => {
  const dir = mkdtempSync(join(tmpdir(), 'packetlab-tcpdump-w-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const line of ['-i eth0', '-i any', '-y LINUX_SLL -i any', '-i eth0 --nano -s 100']) {
    it(`tcpdump ${line} -w: the real tcpdump -r prints it as packetlab's tcpdump -r does`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const { sim, a } = captureWhilePinging(`tcpdump ${line} -w /w.pcap`);
      const path = join(dir, 'w.pcap');
      writeFileSync(path, sim.files.get('/w.pcap')!);
      for (const flags of ['-v', '-e', '-tt --nano']) {
        const theirs = run('env', ['TZ=UTC', 'tcpdump', '-nn', ...flags.split(' '), '-r', path]);
        const ours = exec(a, `tcpdump -nn ${flags} -r /w.pcap`);
        // SLL2 lines name interfaces by index as the reading host resolves them: only packetlab knows these.
        const strip = (text: string) => text.replace(/^(\S+) \S+ +(In |Out)/gm, '$1 IF $2');
        expect(strip(ours.stdout)).toBe(strip(theirs.stdout));
        expect(ours.stderr.replace('/w.pcap', path)).toBe(theirs.stderr);
      }
    });
  }
});
