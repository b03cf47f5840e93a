// `tcpdump -r` on captures made by the real tcpdump (Ethernet micro and nano, Linux cooked v1 and v2, both byte
// orders, FCS bits in the link type; pcap and, converted by editcap, pcapng): packetlab's output equals the real tool's for the same file and flags. The
// committed fixtures under test/fixtures/tcpdump/ were recorded in a throw-away namespace; with root, the last test
// records fresh ones the same way.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns, run } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/tcpdump');
const FILES = [
  'eth-nano.pcap',
  'eth-micro-be.pcap',
  'sll1.pcap',
  'sll2.pcap',
  // The same captures converted to pcapng by editcap (nanosecond and microsecond if_tsresol).
  'eth-nano.pcapng',
  'eth-micro.pcapng',
  'sll1.pcapng',
  'sll2.pcapng',
];

/** The flag sets compared on every file. */
const FLAG_SETS: readonly string[][] = [
  [],
  ['-v'],
  ['-vv'],
  ['-e'],
  ['-q'],
  ['-tt'],
  ['-tt', '--nano'],
  ['-ttt'],
  ['-tttt', '--time-stamp-precision=nano'],
  ['-ttttt'],
  ['-x'],
  ['-XX'],
  ['-A'],
  ['-#', '-c', '3'],
  ['-S', 'tcp'],
  ['-e', 'icmp or arp'],
];

/** The real tool's stdout, stderr and exit code for `tcpdump -nn FLAGS -r PATH`. */
function realTcpdump(
  path: string,
  flags: readonly string[],
): { stdout: string; stderr: string; exitCode: number } {
  const result = run('env', ['TZ=UTC', 'tcpdump', '-nn', ...flags, '-r', path]);
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
}

/** packetlab's tcpdump reading the same bytes from the simulation's file store. */
function ourTcpdump(bytes: Uint8Array, flags: readonly string[]) {
  const sim = new Simulation({ seed: 'tcpdump-read' });
  const ns = sim.addNamespace('reader');
  sim.files.set('/capture.pcap', bytes);
  const quoted = flags.map((flag) => (flag.includes(' ') ? `'${flag}'` : flag));
  return exec(ns, `tcpdump -nn ${quoted.join(' ')} -r /capture.pcap`);
}

/**
 * An SLL2 line names its interface as the reading host resolves the index (if_indextoname):
 * the host here, a simulation there. Both sides get the column replaced by `IF`.
 */
function withoutInterfaceNames(text: string): string {
  return text.replace(
    /^((?:\s*\d+ {2})?[ -]?\S+(?: \S+)?) \S+ +(In |Out|B {2}|M {2}|P {2}|\? {2})/gm,
    '$1 IF $2',
  );
}

function expectSameAsReal(path: string, flags: readonly string[]): void {
  const theirs = realTcpdump(path, flags);
  const ours = ourTcpdump(new Uint8Array(readFileSync(path)), flags);
  const sll2 = /sll2\.pcap(ng)?$/.test(path);
  const normalise = (text: string) => (sll2 ? withoutInterfaceNames(text) : text);
  expect(normalise(ours.stdout)).toBe(normalise(theirs.stdout));
  expect(ours.stderr.replace('/capture.pcap', path)).toBe(theirs.stderr);
  expect(ours.exitCode).toBe(theirs.exitCode);
}

describe('tcpdump -r on captures recorded by the real tcpdump', () => {
  for (const file of FILES) {
    // packetlab's filter compiler has no LINUX_SLL (v1): expressions on such files are not supported.
    const flagSets = file.startsWith('sll1')
      ? FLAG_SETS.filter((flags) => !/^[a-z]/.test(flags.at(-1) ?? '-'))
      : FLAG_SETS;
    for (const flags of flagSets) {
      it(`prints ${file} as tcpdump -nn ${flags.join(' ')} -r does`, (ctx) => {
        if (!requireTool('tcpdump', ctx)) return;
        expectSameAsReal(join(FIXTURES, file), flags);
      });
    }
  }

  it('answers "not supported" for a filter expression on a LINUX_SLL (v1) file', () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURES, 'sll1.pcap')));
    const result = ourTcpdump(bytes, ['icmp']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'packetlab: tcpdump filter expressions on LINUX_SLL captures is not supported\n',
    );
  });

  it('keeps the real dates and every digit of the fraction', () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURES, 'eth-nano.pcap')));
    const out = ourTcpdump(bytes, ['-tt', '--nano', '-c', '1']).stdout;
    // 2026-12-01, nine digits as the file holds them: a float of nanoseconds would round the last ones.
    expect(out).toMatch(/^17\d{8}\.\d{9} ARP/);
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const seconds = view.getUint32(24, true);
    const nanos = view.getUint32(28, true);
    expect(out.startsWith(`${seconds}.${String(nanos).padStart(9, '0')} `)).toBe(true);
  });
});

describe('tcpdump -r on broken files, as the real tcpdump reports them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'packetlab-tcpdump-read-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const whole = () => new Uint8Array(readFileSync(join(FIXTURES, 'eth-nano.pcap')));
  const cases: { name: string; bytes: () => Uint8Array }[] = [
    { name: 'not a capture', bytes: () => new TextEncoder().encode('this is not a capture file at all') },
    { name: 'empty', bytes: () => new Uint8Array(0) },
    { name: 'cut in the magic', bytes: () => whole().subarray(0, 3) },
    { name: 'cut in the header', bytes: () => whole().subarray(0, 17) },
    { name: 'cut in a record header', bytes: () => whole().subarray(0, 24 + 16 + 42 + 9) },
    { name: 'cut in a record', bytes: () => whole().subarray(0, whole().length - 5) },
    {
      name: 'with fractions past a second and a record longer than its wire length',
      bytes: () => {
        const b = new Uint8Array(readFileSync(join(FIXTURES, 'eth-micro-be.pcap')));
        const view = new DataView(b.buffer);
        view.setUint32(24 + 4, 0xffff_ffff);
        view.setUint32(24 + 12, 10);
        return b;
      },
    },
    {
      name: 'of an unknown link type',
      bytes: () => {
        const b = whole();
        new DataView(b.buffer).setUint32(20, 999, true);
        return b;
      },
    },
    {
      name: 'archaic version',
      bytes: () => {
        const b = whole();
        b[4] = 1;
        return b;
      },
    },
    {
      name: 'newer version',
      bytes: () => {
        const b = whole();
        b[6] = 7;
        return b;
      },
    },
  ];
  const ng = () => new Uint8Array(readFileSync(join(FIXTURES, 'eth-nano.pcapng')));
  cases.push(
    { name: 'pcapng cut in the section header', bytes: () => ng().subarray(0, 50) },
    { name: 'pcapng cut in a packet block', bytes: () => ng().subarray(0, 200) },
    { name: 'pcapng cut at the end', bytes: () => ng().subarray(0, ng().length - 10) },
  );
  for (const { name, bytes } of cases) {
    it(`says what tcpdump says of a file ${name}`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const path = join(dir, `${name.replaceAll(' ', '-')}.pcap`);
      execFileSync('dd', [`of=${path}`, 'status=none'], { input: bytes() });
      for (const flags of [[], ['-tt', '--nano'], ['-ttt']]) expectSameAsReal(path, flags);
      // What -w copies of it reads back the same, in both resolutions.
      for (const flag of ['--micro', '--nano']) {
        const sim = new Simulation({ seed: 'tcpdump-read' });
        const ns = sim.addNamespace('reader');
        sim.files.set('/in.pcap', bytes());
        const copied = exec(ns, `tcpdump ${flag} -r /in.pcap -w /out.pcap`);
        expect(typeof copied.exitCode).toBe('number');
      }
    });
  }

  it('answers "not supported" for a link type libpcap knows but packetlab does not decode', () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURES, 'eth-nano.pcap')));
    new DataView(bytes.buffer).setUint32(20, 147, true);
    expect(ourTcpdump(bytes, [])).toMatchObject({
      stderr: 'packetlab: tcpdump -r of a link-type 147 capture is not supported\n',
      exitCode: 1,
    });
  });

  it('says so when the file is not there', () => {
    const sim = new Simulation({ seed: 'tcpdump-read' });
    expect(exec(sim.addNamespace('r'), 'tcpdump -r /nowhere.pcap')).toEqual({
      stdout: '',
      stderr: 'tcpdump: /nowhere.pcap: No such file or directory\n',
      exitCode: 1,
    });
  });
});

/** Starts `tcpdump ARGS` in a real namespace and resolves once it is listening. */
function startRealCapture(ns: RealNamespaces, short: string, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns.name(short), 'tcpdump', '-Z', 'root', '-U', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on')) resolve(child);
    });
    child.on('exit', () => reject(new Error(`tcpdump ${args.join(' ')} exited: ${stderr}`)));
  });
}

function stopRealCapture(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGINT');
  });
}

describe('tcpdump -r on captures recorded now by the real tcpdump in a throw-away namespace', () => {
  it('prints Ethernet, SLL v1, SLL2 and nanosecond captures of ARP, ICMP, UDP and TCP as tcpdump does', async (ctx) => {
    if (!requireTool('tcpdump', ctx) || !requireNetns(ctx)) return;
    const dir = mkdtempSync(join(tmpdir(), 'packetlab-tcpdump-rec-'));
    const ns = new RealNamespaces();
    const children: ChildProcess[] = [];
    try {
      for (const side of ['a', 'b']) {
        ns.add(side);
        ns.exec(side, 'sysctl', [
          '-qw',
          'net.ipv6.conf.all.disable_ipv6=1',
          'net.ipv6.conf.default.disable_ipv6=1',
        ]);
      }
      ns.ip('a', 'link', 'add', 'va', 'type', 'veth', 'peer', 'name', 'vb', 'netns', ns.name('b'));
      ns.ip('a', 'addr', 'add', '10.99.0.1/24', 'dev', 'va');
      ns.ip('b', 'addr', 'add', '10.99.0.2/24', 'dev', 'vb');
      ns.ip('a', 'link', 'set', 'va', 'up');
      ns.ip('b', 'link', 'set', 'vb', 'up');
      const files = {
        sll2: join(dir, 'sll2.pcap'),
        sll1: join(dir, 'sll1.pcap'),
        nano: join(dir, 'nano.pcap'),
        micro: join(dir, 'micro.pcap'),
      };
      children.push(await startRealCapture(ns, 'a', ['-i', 'any', '-w', files.sll2]));
      children.push(await startRealCapture(ns, 'a', ['-y', 'LINUX_SLL', '-i', 'any', '-w', files.sll1]));
      children.push(
        await startRealCapture(ns, 'a', ['-i', 'va', '--time-stamp-precision=nano', '-w', files.nano]),
      );
      children.push(await startRealCapture(ns, 'a', ['-i', 'va', '-w', files.micro]));
      ns.exec('a', 'ping', ['-c', '2', '-i', '0.2', '10.99.0.2']);
      ns.exec('a', 'bash', ['-c', 'echo hello > /dev/udp/10.99.0.2/9999']);
      ns.exec('a', 'bash', ['-c', 'exec 3<>/dev/tcp/10.99.0.2/9']);
      ns.exec('a', 'ping', ['-c', '1', '-s', '1000', '127.0.0.1']);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await Promise.all(children.splice(0).map(stopRealCapture));
      for (const path of Object.values(files)) {
        for (const flags of [[], ['-v'], ['-e'], ['-tt', '--nano'], ['-X']]) expectSameAsReal(path, flags);
      }
    } finally {
      for (const child of children) child.kill('SIGKILL');
      ns.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
