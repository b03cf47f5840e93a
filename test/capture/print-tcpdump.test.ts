// The printer against the real tcpdump: every frame type of the sample capture, whole and cut at
// every length, in Ethernet and SLL2 captures, with and without -e; plus goldens and random bytes.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL,
  LINKTYPE_LINUX_SLL2,
  PcapWriter,
} from '../../src/capture/pcap.ts';
import {
  formatFrame,
  formatTcpdumpLine,
  formatTimestamp,
  formatTimestampAt,
  type LineOptions,
  type PacketDump,
  type PrintLinkType,
  TcpdumpPrinter,
  TcpSeqTable,
  type TimestampFormat,
} from '../../src/capture/print.ts';
import { millis, seconds } from '../../src/core/scheduler.ts';
import { internetChecksum } from '../../src/wire/checksum.ts';
import { ETHERTYPE_IPV4 } from '../../src/wire/ethernet.ts';
import { ethernet, ip, mac, sampleFrames, tcp, toSll2, udp } from '../support/frames.ts';
import { requireTool } from '../support/tools.ts';

/** Interface names as tcpdump resolves SLL2 indices: from the machine it runs on. */
function hostInterfaceNames(): Map<number, string> {
  const names = new Map<number, string>();
  try {
    for (const name of readdirSync('/sys/class/net')) {
      names.set(Number(readFileSync(join('/sys/class/net', name, 'ifindex'), 'utf8')), name);
    }
  } catch {
    // No sysfs: every index prints as '?', on both sides.
  }
  return names;
}
const hostNames = hostInterfaceNames();
const ifName = (ifIndex: number) => hostNames.get(ifIndex);

interface Record {
  readonly timeNs: number;
  readonly frame: Uint8Array;
  readonly wireLength: number;
  readonly label: string;
}

const samples = sampleFrames();

/**
 * The LINKTYPE_LINUX_SLL (v1) form of an SLL2 frame: packet type, ARPHRD type, address
 * length, 8 address bytes, protocol (16 bytes), as `tcpdump -y LINUX_SLL -i any` stores it.
 */
function toSll1(sll2: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + sll2.length - 20);
  out[1] = sll2[10]!;
  out.set(sll2.subarray(8, 10), 2);
  out[5] = sll2[11]!;
  out.set(sll2.subarray(12, 20), 6);
  out.set(sll2.subarray(0, 2), 14);
  out.set(sll2.subarray(20), 16);
  return out;
}

function linkFrame(sample: (typeof samples)[number], linkType: PrintLinkType): Uint8Array {
  switch (linkType) {
    case LINKTYPE_ETHERNET:
      return sample.frame;
    case LINKTYPE_LINUX_SLL:
      return toSll1(toSll2(sample.frame, sample.sll2));
    case LINKTYPE_LINUX_SLL2:
      return toSll2(sample.frame, sample.sll2);
    default:
      return linkType satisfies never;
  }
}

/** The sample frames one per second, with sub-microsecond digits tcpdump must truncate. */
function sampleRecords(linkType: PrintLinkType): Record[] {
  return samples.map((sample, i) => {
    const frame = linkFrame(sample, linkType);
    return { timeNs: seconds(i) + millis(250) + 999, frame, wireLength: frame.length, label: sample.name };
  });
}

/** Every sample frame cut at every length up to 130 bytes (the snaplen effect), one per second. */
function truncatedRecords(linkType: PrintLinkType): Record[] {
  const records: Record[] = [];
  for (const whole of sampleRecords(linkType)) {
    for (let cut = 1; cut < Math.min(whole.frame.length, 130); cut++) {
      records.push({
        timeNs: seconds(records.length),
        frame: whole.frame.subarray(0, cut),
        wireLength: whole.wireLength,
        label: `${whole.label} cut at ${cut}`,
      });
    }
  }
  return records;
}

const dir = mkdtempSync(join(tmpdir(), 'packetlab-print-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeCapture(name: string, linkType: PrintLinkType, records: readonly Record[]): string {
  const writer = new PcapWriter({ linkType });
  for (const record of records) writer.write(record.timeNs, record.frame, record.wireLength);
  const path = join(dir, name);
  writeFileSync(path, writer.bytes());
  return path;
}

/** tcpdump's output split per packet: a packet starts at a timestamp, continuation lines follow. */
function tcpdumpBlocks(path: string, flags: readonly string[]): string[] {
  const out = execFileSync('tcpdump', ['-nn', ...flags, '-r', path], {
    encoding: 'utf8',
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const start = /^(\d\d:\d\d:\d\d\.\d{6,9}|\d+\.\d{6,9}) /;
  const blocks: string[] = [];
  for (const line of out.split('\n')) {
    if (start.test(line)) blocks.push(line);
    else if (blocks.length > 0 && line !== '') blocks[blocks.length - 1] += `\n${line}`;
  }
  return blocks;
}

function ourBlocks(
  records: readonly Record[],
  options: Omit<LineOptions, 'tcpSeq' | 'wireLength'>,
): string[] {
  const printer = new TcpdumpPrinter(options);
  return records.map((record) => printer.formatLine(record.timeNs, record.frame, record.wireLength));
}

/** Compares packet by packet, naming each packet, so a failure says which frame type differs. */
function expectSameLines(records: readonly Record[], ours: string[], theirs: string[]): void {
  expect(theirs).toHaveLength(records.length);
  const labelled = (lines: string[]) => lines.map((line, i) => `${records[i]!.label}: ${line}`);
  expect(labelled(ours)).toEqual(labelled(theirs));
}

/** A copy of a sample frame with some bytes overwritten. */
function patched(name: string, patches: readonly [number, number][]): Uint8Array {
  const frame = samples.find((sample) => sample.name === name)!.frame.slice();
  for (const [at, value] of patches) frame[at] = value;
  return frame;
}

/** An Ethernet/IPv4 frame with `options` inserted after the IPv4 header (IHL, length, checksum redone). */
function withIpOptions(frame: Uint8Array, options: readonly number[]): Uint8Array {
  const out = new Uint8Array(frame.length + options.length);
  out.set(frame.subarray(0, 34));
  out.set(options, 34);
  out.set(frame.subarray(34), 34 + options.length);
  const view = new DataView(out.buffer);
  view.setUint8(14, 0x40 | ((20 + options.length) / 4));
  view.setUint16(16, view.getUint16(16) + options.length);
  view.setUint16(24, 0);
  view.setUint16(24, internetChecksum(out, 14, 34 + options.length));
  return out;
}

/** Frames for what -v and -vv add: checksums right and wrong, IP options, TTL/ECN, RST text, HTTP lines. */
function verboseExtras(): Record[] {
  const toB = { dst: mac('02:42:0a:f4:02:07'), src: mac('02:42:0a:f4:01:05'), ethertype: ETHERTYPE_IPV4 };
  const conn = { src: ip('10.244.1.5'), dst: ip('10.244.2.7'), srcPort: 41234, dstPort: 80 };
  const text = (t: string) => new TextEncoder().encode(t);
  const frames: [string, Uint8Array][] = [
    ['bad IP checksum', patched('TCP SYN', [[24, 0x12]])],
    ['bad TCP checksum', patched('TCP SYN', [[50, 0]])],
    ['bad UDP checksum', patched('UDP DNS-port datagram', [[40, 0x12]])],
    [
      'UDP without checksum',
      patched('UDP DNS-port datagram', [
        [40, 0],
        [41, 0],
      ]),
    ],
    [
      'TTL 0 and CE',
      patched('ICMP echo request', [
        [22, 0],
        [15, 0x03],
      ]),
    ],
    ['ECT(1)', patched('ICMP echo request', [[15, 0x01]])],
    ['bad ICMP checksum', patched('ICMP echo request', [[36, 0x12]])],
    ['reserved and MF flags', patched('TCP SYN', [[20, 0xa0]])],
    [
      'IP options RA, NOP, RR, TS',
      withIpOptions(
        patched('TCP SYN', []),
        [0x94, 4, 0, 0, 1, 7, 7, 4, 10, 0, 0, 1, 0x44, 12, 5, 0x01, 10, 0, 0, 9, 0, 0, 0, 100],
      ),
    ],
    [
      'RST with text',
      ethernet(
        toB,
        tcp({
          ...conn,
          seq: 7,
          ack: 9,
          flags: { rst: true, ack: true },
          payload: text('no such\tservice, go away now\x01\xe9!'),
        }),
      ),
    ],
    [
      'HTTP request',
      ethernet(
        toB,
        tcp({
          ...conn,
          seq: 1,
          ack: 1,
          flags: { psh: true, ack: true },
          payload: text('GET /x HTTP/1.1\r\nHost: web\r\nAccept: */*\r\n\r\n'),
        }),
      ),
    ],
    [
      'HTTP response with a body',
      ethernet(
        toB,
        tcp({
          ...conn,
          srcPort: 80,
          dstPort: 41234,
          seq: 1,
          ack: 1,
          flags: { psh: true, ack: true },
          payload: text('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'),
        }),
      ),
    ],
  ];
  return frames.map(([label, frame], i) => ({ timeNs: seconds(i), frame, wireLength: frame.length, label }));
}

const LINK_TYPES: readonly { name: string; linkType: PrintLinkType }[] = [
  { name: 'Ethernet', linkType: LINKTYPE_ETHERNET },
  { name: 'SLL2 (-i any)', linkType: LINKTYPE_LINUX_SLL2 },
  { name: 'SLL v1 (-y LINUX_SLL -i any)', linkType: LINKTYPE_LINUX_SLL },
];

/** The flags beside -v that change a packet's text, each with the options packetlab takes for it. */
const OUTPUT_FLAGS: readonly { flags: string[]; options: Omit<LineOptions, 'linkType'> }[] = [
  { flags: ['-q'], options: { quiet: true } },
  { flags: ['-q', '-e'], options: { quiet: true, showLinkLayer: true } },
  { flags: ['-x'], options: { dump: { style: 'hex', withLinkHeader: false } } },
  { flags: ['-xx'], options: { dump: { style: 'hex', withLinkHeader: true } } },
  { flags: ['-X'], options: { dump: { style: 'hex-ascii', withLinkHeader: false } } },
  {
    flags: ['-XX', '-e'],
    options: { dump: { style: 'hex-ascii', withLinkHeader: true }, showLinkLayer: true },
  },
  { flags: ['-A'], options: { dump: { style: 'ascii', withLinkHeader: false } } },
  { flags: ['-AA'], options: { dump: { style: 'ascii', withLinkHeader: true } } },
  { flags: ['-#'], options: { packetNumbers: true } },
  { flags: ['-t'], options: { timestamp: 'none' } },
  { flags: ['-tt'], options: { timestamp: 'epoch' } },
  { flags: ['-ttt'], options: { timestamp: 'delta' } },
  { flags: ['-tttt'], options: { timestamp: 'date' } },
  { flags: ['-ttttt', '--nano'], options: { timestamp: 'since-first', nano: true } },
];

/** tcpdump's output split per packet when the lines do not start with a clock timestamp. */
function tcpdumpText(path: string, flags: readonly string[]): string {
  return execFileSync('tcpdump', ['-nn', ...flags, '-r', path], {
    encoding: 'utf8',
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** A DNS name in wire form (labels, then the root's zero). */
function dnsName(name: string): number[] {
  const out: number[] = [];
  for (const label of name.split('.').filter((l) => l !== ''))
    out.push(label.length, ...new TextEncoder().encode(label));
  return [...out, 0];
}
const u16 = (n: number) => [n >>> 8, n & 0xff];
const u32 = (n: number) => [...u16(n >>> 16), ...u16(n & 0xffff)];
const question = (name: string, type: number, klass = 1) => [...dnsName(name), ...u16(type), ...u16(klass)];
/** A resource record; `name` as wire bytes (a compression pointer is [0xc0, 12]). */
const record = (name: number[], type: number, data: number[], klass = 1) => [
  ...name,
  ...u16(type),
  ...u16(klass),
  ...u32(30),
  ...u16(data.length),
  ...data,
];
const TO_QUESTION = [0xc0, 12];
const OPT = record([0], 41, [], 1232);
function dnsMessage(id: number, flags: number, sections: number[][][]): Uint8Array {
  const [qd = [], an = [], ns = [], ar = []] = sections;
  const header = [...u16(id), ...u16(flags), ...[qd, an, ns, ar].flatMap((s) => u16(s.length))];
  return new Uint8Array([...header, ...[qd, an, ns, ar].flat(2)]);
}

/** Queries and answers of the kinds a cluster's DNS traffic holds, with the flags and sections tcpdump prints. */
function dnsFrames(): [string, Uint8Array][] {
  const kube = 'kubernetes.default.svc.cluster.local';
  const messages: [string, Uint8Array][] = [
    ['query A with EDNS', dnsMessage(0x1234, 0x0100, [[question(kube, 1)], [], [], [OPT]])],
    [
      'answer A, authoritative',
      dnsMessage(0x1234, 0x8580, [[question(kube, 1)], [record(TO_QUESTION, 1, [10, 96, 0, 1])], [], [OPT]]),
    ],
    ['query AAAA', dnsMessage(0x2222, 0x0100, [[question('web.default.svc.cluster.local', 28)]])],
    [
      'NXDomain with SOA',
      dnsMessage(0x2222, 0x8183, [
        [question('nosuch.default.svc.cluster.local', 1)],
        [],
        [
          record(dnsName('cluster.local'), 6, [
            ...dnsName('ns.dns.cluster.local'),
            ...dnsName('hostmaster.cluster.local'),
            ...[1_700_000_000, 7200, 1800, 86400, 30].flatMap(u32),
          ]),
        ],
      ]),
    ],
    [
      'CNAME chain',
      dnsMessage(0x3333, 0x8180, [
        [question('www.example.com', 1)],
        [
          record(TO_QUESTION, 5, dnsName('example.com')),
          record(dnsName('example.com'), 1, [93, 184, 216, 34]),
        ],
      ]),
    ],
    [
      'SRV',
      dnsMessage(0x4444, 0x8180, [
        [question('_http._tcp.web.default.svc.cluster.local', 33)],
        [
          record(TO_QUESTION, 33, [
            ...u16(0),
            ...u16(100),
            ...u16(80),
            ...dnsName('web.default.svc.cluster.local'),
          ]),
        ],
      ]),
    ],
    [
      'PTR',
      dnsMessage(0x5555, 0x8180, [
        [question('1.0.96.10.in-addr.arpa', 12)],
        [record(TO_QUESTION, 12, dnsName(kube))],
      ]),
    ],
    [
      'TXT, MX and AAAA',
      dnsMessage(0x6666, 0x8180, [
        [question('example.com', 255)],
        [
          record(TO_QUESTION, 16, [5, ...new TextEncoder().encode('hello'), 3, 0x01, 0xe9, 0x41]),
          record(TO_QUESTION, 15, [...u16(10), ...dnsName('mail.example.com')]),
          record(TO_QUESTION, 28, [0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 1]),
          record(TO_QUESTION, 16, [0], 3),
        ],
        [],
        [record([0], 41, [], 4096).map((b, i) => (i === 7 ? 0x80 : b))],
      ]),
    ],
    [
      'two questions, CD',
      dnsMessage(0x9999, 0x0110, [[question('example.com', 1), question('example.org', 1, 3)]]),
    ],
    ['ServFail, truncated', dnsMessage(0xaaaa, 0x8382, [[question('example.com', 1)]])],
    [
      'all sections, no recursion',
      dnsMessage(0xbbbb, 0x8500, [
        [question('example.com', 1)],
        [record(TO_QUESTION, 1, [1, 2, 3, 4])],
        [record(dnsName('example.com'), 2, dnsName('ns1.example.com'))],
        [record(dnsName('ns1.example.com'), 1, [5, 6, 7, 8])],
      ]),
    ],
    ['root NS query', dnsMessage(0xdddd, 0x0100, [[question('.', 2)]])],
    [
      'bad pointer',
      dnsMessage(0xeeee, 0x8180, [[question('a.b', 1)], [record([0xc0, 40], 1, [1, 2, 3, 4])]]),
    ],
    ['short message', new Uint8Array([0x12, 0x34, 0x01])],
  ];
  const toDns = { dst: mac('02:42:0a:60:00:0a'), src: mac('02:42:0a:f4:01:05'), ethertype: ETHERTYPE_IPV4 };
  // Over TCP: the two-byte length prefix, right, wrong and missing.
  const query = messages[0]![1];
  const overTcp: [string, number[]][] = [
    ['over TCP', [...u16(query.length), ...query]],
    ['over TCP, wrong prefix', [...u16(5), ...query]],
    ['over TCP, one byte', [0]],
    ['over TCP, short message', [0, 3, 1, 2, 3]],
  ];
  const tcpFrames = overTcp.map(([label, payload]): [string, Uint8Array] => {
    const conn = { src: ip('10.244.1.5'), dst: ip('10.96.0.10'), srcPort: 40000, dstPort: 53 };
    const segment = tcp({
      ...conn,
      seq: 1,
      ack: 1,
      flags: { psh: true, ack: true },
      payload: new Uint8Array(payload),
    });
    return [label, ethernet(toDns, segment)];
  });
  const udpFrames = messages.map(([label, payload]): [string, Uint8Array] => {
    const response = payload.length > 2 && (payload[2]! & 0x80) !== 0;
    const ends = [
      { addr: ip('10.244.1.5'), port: 41234 },
      { addr: ip('10.96.0.10'), port: 53 },
    ];
    const [from, to] = response ? [ends[1]!, ends[0]!] : [ends[0]!, ends[1]!];
    const datagram = udp({ src: from.addr, dst: to.addr, srcPort: from.port, dstPort: to.port, payload });
    return [label, ethernet(toDns, datagram)];
  });
  return [...udpFrames, ...tcpFrames];
}

/** Random DNS responses from a fixed seed: small counts, random bytes and many small values (labels, pointers). */
function randomDnsFrames(count: number): [string, Uint8Array][] {
  let state = 12345;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  const frames: [string, Uint8Array][] = [];
  const toClient = {
    dst: mac('02:42:0a:f4:01:05'),
    src: mac('02:42:0a:60:00:0a'),
    ethertype: ETHERTYPE_IPV4,
  };
  for (let k = 0; k < count; k++) {
    const payload = new Uint8Array(12 + next(60));
    for (let i = 0; i < payload.length; i++) payload[i] = next(256);
    for (const [at, max] of [
      [5, 3],
      [7, 3],
      [9, 2],
      [11, 2],
    ] as const) {
      payload[at - 1] = 0;
      payload[at] = next(max);
    }
    for (let i = 12; i < payload.length; i++) if (next(3) === 0) payload[i] = next(8);
    // Every other one is mDNS (port 5353), whose class fields carry the QU and cache-flush bits.
    const [srcPort, dstPort] = k % 2 === 0 ? [53, 41234] : [5353, 5353];
    const datagram = udp({ src: ip('10.96.0.10'), dst: ip('10.244.1.5'), srcPort, dstPort, payload });
    frames.push([`random message ${k}`, ethernet(toClient, datagram)]);
  }
  return frames;
}

describe('DNS (print-domain.c) against the real tcpdump -r', () => {
  it('prints a thousand random DNS and mDNS messages as tcpdump, -v and -vv do', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const records = randomDnsFrames(1000).map(([label, frame], i) => ({
      timeNs: seconds(i),
      frame,
      wireLength: frame.length,
      label,
    }));
    const path = writeCapture('dns-random.pcap', LINKTYPE_ETHERNET, records);
    for (const verbose of [0, 1, 2]) {
      const flags = verbose > 0 ? [`-${'v'.repeat(verbose)}`] : [];
      const ours = ourBlocks(records, { linkType: LINKTYPE_ETHERNET, verbose });
      expectSameLines(records, ours, tcpdumpBlocks(path, flags));
    }
  });

  for (const verbose of [0, 1, 2]) {
    const flags = verbose > 0 ? [`-${'v'.repeat(verbose)}`] : [];
    it(`prints queries and answers as tcpdump ${flags.join(' ')} does, whole and cut at every length`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const records: Record[] = [];
      for (const [label, frame] of dnsFrames()) {
        for (let cut = 42; cut <= frame.length; cut++) {
          const kept = frame.subarray(0, cut);
          records.push({
            timeNs: seconds(records.length),
            frame: kept,
            wireLength: frame.length,
            label: `${label} cut at ${cut}`,
          });
        }
      }
      const path = writeCapture(`dns-${verbose}.pcap`, LINKTYPE_ETHERNET, records);
      const ours = ourBlocks(records, { linkType: LINKTYPE_ETHERNET, verbose });
      expectSameLines(records, ours, tcpdumpBlocks(path, flags));
    });
  }
});

describe('tcpdump -q, -x, -X, -A, -# and -t... against the real tcpdump -r', () => {
  for (const { flags, options } of OUTPUT_FLAGS) {
    for (const { name, linkType } of LINK_TYPES) {
      it(`prints every frame type, whole and cut, as tcpdump ${flags.join(' ')} does: ${name}`, (ctx) => {
        if (!requireTool('tcpdump', ctx)) return;
        // Out of order once, so -ttt and -ttttt print a negative offset.
        const records = [
          ...sampleRecords(linkType),
          ...truncatedRecords(linkType).filter((_, i) => i % 7 === 0),
        ];
        [records[1], records[2]] = [records[2]!, records[1]!];
        const path = writeCapture(`flags-${linkType}.pcap`, linkType, records);
        const printer = new TcpdumpPrinter({ linkType, ifName, ...options });
        const ours = records.map((r) => `${printer.formatLine(r.timeNs, r.frame, r.wireLength)}\n`).join('');
        expect(ours).toBe(tcpdumpText(path, flags));
      });
    }
  }
});

describe('formatTcpdumpLine against the real tcpdump -nn -r', () => {
  for (const { name, linkType } of LINK_TYPES) {
    for (const showLinkLayer of [false, true]) {
      for (const verbose of [0, 1, 2]) {
        const flags = [...(showLinkLayer ? ['-e'] : []), ...(verbose > 0 ? [`-${'v'.repeat(verbose)}`] : [])];
        const title = `${name}${flags.length > 0 ? ` with ${flags.join(' ')}` : ''}`;

        it(`prints every frame type as tcpdump does: ${title}`, (ctx) => {
          if (!requireTool('tcpdump', ctx)) return;
          const records = sampleRecords(linkType);
          const path = writeCapture(`sample-${linkType}.pcap`, linkType, records);
          const ours = ourBlocks(records, { linkType, showLinkLayer, ifName, verbose });
          expectSameLines(records, ours, tcpdumpBlocks(path, flags));
        });

        it(`prints every truncation of every frame type as tcpdump does: ${title}`, (ctx) => {
          if (!requireTool('tcpdump', ctx)) return;
          const records = truncatedRecords(linkType);
          const path = writeCapture(`cut-${linkType}.pcap`, linkType, records);
          const ours = ourBlocks(records, { linkType, showLinkLayer, ifName, verbose });
          expectSameLines(records, ours, tcpdumpBlocks(path, flags));
        });
      }
    }
  }

  for (const [verbose, noChecksums] of [
    [1, false],
    [2, false],
    [3, false],
    [2, true],
  ] as const) {
    const flag = `-${'v'.repeat(verbose)}${noChecksums ? 'K' : ''}`;
    it(`prints what ${flag} adds as tcpdump does, whole and cut at every length`, (ctx) => {
      if (!requireTool('tcpdump', ctx)) return;
      const whole = verboseExtras();
      const records = [...whole];
      for (const record of whole) {
        for (let cut = 1; cut < record.frame.length; cut++) {
          records.push({
            ...record,
            frame: record.frame.subarray(0, cut),
            label: `${record.label} cut at ${cut}`,
          });
        }
      }
      const path = writeCapture(`verbose-${flag}.pcap`, LINKTYPE_ETHERNET, records);
      const ours = ourBlocks(records, { linkType: LINKTYPE_ETHERNET, verbose, noChecksums });
      expectSameLines(records, ours, tcpdumpBlocks(path, [flag]));
    });
  }

  it('prints epoch nanosecond timestamps as tcpdump --nano -tt does', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const records = sampleRecords(LINKTYPE_ETHERNET).map((record, i) => ({
      ...record,
      timeNs: seconds(86_400 * i) + 123_456_789 + i,
    }));
    const path = writeCapture('nano.pcap', LINKTYPE_ETHERNET, records);
    const ours = ourBlocks(records, { linkType: LINKTYPE_ETHERNET, timestamp: 'epoch', nano: true });
    expectSameLines(records, ours, tcpdumpBlocks(path, ['--nano', '-tt']));
  });
});

describe('formatFrame goldens', () => {
  const byName = new Map(samples.map((sample) => [sample.name, sample.frame]));
  const ethernet = { linkType: LINKTYPE_ETHERNET } as const;
  const frame = (name: string) => byName.get(name)!;

  it('prints the handshake with absolute, then relative, sequence numbers', () => {
    const tcpSeq = new TcpSeqTable();
    const lines = ['TCP SYN', 'TCP SYN-ACK', 'TCP ACK', 'TCP data with PSH (PROXY v2 + request)'].map(
      (name) => formatFrame(frame(name), { ...ethernet, tcpSeq }),
    );
    expect(lines).toEqual([
      'IP 10.244.1.5.41234 > 10.96.40.12.80: Flags [S], seq 1, win 64240, options [mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7], length 0',
      'IP 10.96.40.12.80 > 10.244.1.5.41234: Flags [S.], seq 3000000000, ack 2, win 65160, options [mss 1410,sackOK,TS val 8 ecr 1,nop,wscale 7], length 0',
      'IP 10.244.1.5.41234 > 10.96.40.12.80: Flags [.], ack 1, win 502, options [nop,nop,TS val 9 ecr 8], length 0',
      'IP 10.244.1.5.41234 > 10.96.40.12.80: Flags [P.], seq 1:58, ack 1, win 502, options [nop,nop,TS val 10 ecr 8], length 57: HTTP',
    ]);
    // Without the table every segment prints as the first of its conversation (absolute numbers).
    expect(formatFrame(frame('TCP ACK'), ethernet)).toContain('Flags [.], ack 3000000001, win 502');
  });

  it('prints ARP, ICMP and the VXLAN tunnels', () => {
    expect(formatFrame(frame('ARP request'), ethernet)).toBe(
      'ARP, Request who-has 10.244.1.1 tell 10.244.1.5, length 28',
    );
    expect(formatFrame(frame('ARP reply'), ethernet)).toBe(
      'ARP, Reply 10.244.1.1 is-at 0a:58:0a:f4:02:07, length 46',
    );
    expect(formatFrame(frame('ICMP echo request'), ethernet)).toBe(
      'IP 10.244.1.5 > 10.244.2.7: ICMP echo request, id 1, seq 1, length 64',
    );
    expect(formatFrame(frame('ICMP frag needed quoting TCP'), ethernet)).toBe(
      'IP 10.244.2.1 > 10.244.1.5: ICMP 10.96.40.12 unreachable - need to frag (mtu 1450), length 556',
    );
    expect(formatFrame(frame('VXLAN 8472 with inner TCP'), ethernet)).toBe(
      'IP 172.18.0.2.54321 > 172.18.0.3.8472: OTV, flags [I] (0x08), overlay 0, instance 1\n' +
        'IP 10.244.1.5.41234 > 10.244.2.7.80: Flags [S], seq 101, win 64240, options [mss 1410,sackOK,TS val 41 ecr 0,nop,wscale 7], length 0',
    );
    expect(formatFrame(frame('VXLAN 4789 with inner TCP'), ethernet).split('\n')[0]).toBe(
      'IP 172.18.0.2.54321 > 172.18.0.3.4789: VXLAN, flags [I] (0x08), vni 4096',
    );
    expect(formatFrame(frame('IPv4 last fragment'), ethernet)).toBe(
      'IP 10.244.1.5 > 10.244.2.7: ip-proto-17',
    );
    expect(formatFrame(frame('unknown IP protocol'), ethernet)).toBe(
      'IP 10.244.1.5 > 10.244.2.7:  ip-proto-253 29',
    );
  });

  it('prints the SLL2 interface and direction columns', () => {
    const sll2 = (name: string) => {
      const sample = samples.find((s) => s.name === name)!;
      return toSll2(sample.frame, sample.sll2);
    };
    const names = (i: number) => ({ 1: 'lo', 4: 'eth0' })[i];
    const options = { linkType: LINKTYPE_LINUX_SLL2, ifName: names } as const;
    expect(formatFrame(sll2('ARP request'), options)).toBe(
      'lo    B   ARP, Request who-has 10.244.1.1 tell 10.244.1.5, length 28',
    );
    expect(formatFrame(sll2('ICMP echo reply'), options)).toBe(
      'eth0  In  IP 10.244.2.7 > 10.244.1.5: ICMP echo reply, id 1, seq 1, length 64',
    );
    expect(formatFrame(sll2('VXLAN 8472 with inner TCP'), options)).toMatch(
      /^\? {5}Out IP 172\.18\.0\.2\.54321 > /,
    );
  });

  it('marks truncation as tcpdump does', () => {
    const syn = frame('TCP SYN');
    // Cut by the snaplen: the wire length stays the frame's.
    const cut = { ...ethernet, wireLength: syn.length };
    expect(formatFrame(syn.subarray(0, 10), cut)).toBe(' [|ether]');
    expect(formatFrame(syn.subarray(0, 30), cut)).toBe('IP  [|ip]');
    expect(formatFrame(syn.subarray(0, 40), cut)).toBe('IP 10.244.1.5.41234 > 10.96.40.12.80:  [|tcp]');
    expect(formatFrame(syn.subarray(0, 40), ethernet)).toBe(
      'IP truncated-ip - 34 bytes missing! 10.244.1.5.41234 > 10.96.40.12.80:  [|tcp]',
    );
    expect(formatFrame(syn.subarray(0, 63), cut)).toBe(
      'IP 10.244.1.5.41234 > 10.96.40.12.80: Flags [S], seq 1, win 64240, options [mss 1460,sackOK,TS [|tcp]>',
    );
    // pretty_print_packet's sanity checks, as tcpdump -r prints them for such records.
    expect(formatFrame(new Uint8Array(0), { ...ethernet, wireLength: 60 })).toBe(
      '[Invalid header: caplen==0]',
    );
    expect(formatFrame(new Uint8Array(0), ethernet)).toBe('[Invalid header: caplen==0, len==0]');
    expect(formatFrame(syn.subarray(0, 3), { ...ethernet, wireLength: 2 })).toBe(
      '[Invalid header: len(2) < caplen(3)]',
    );
    expect(formatFrame(syn.subarray(0, 3), { ...ethernet, wireLength: 0 })).toBe('[Invalid header: len==0]');
  });

  it('formats the timestamps tcpdump prints from virtual time 0 = 00:00:00 UTC', () => {
    expect(formatTimestamp(0)).toBe('00:00:00.000000');
    expect(formatTimestamp(seconds(3661) + 999_999_999)).toBe('01:01:01.999999');
    expect(formatTimestamp(seconds(86_400 + 5))).toBe('00:00:05.000000');
    expect(formatTimestamp(seconds(2) + 5, 'clock', true)).toBe('00:00:02.000000005');
    expect(formatTimestamp(seconds(86_400) + 1_000, 'epoch')).toBe('86400.000001');
    expect(formatTimestamp(1, 'none')).toBe('');
    // Real dates, from seconds and nanoseconds kept apart (as one float of ns they would round).
    expect(formatTimestampAt(1_700_000_000, 123_456_789, 'date', true)).toBe('2023-11-14 22:13:20.123456789');
    expect(formatTimestampAt(951_782_400, 999_999_999, 'date', false)).toBe('2000-02-29 00:00:00.999999');
    expect(formatTimestampAt(4_102_444_799, 0, 'epoch', false)).toBe('4102444799.000000');
    const printer = new TcpdumpPrinter({ ...ethernet, timestamp: 'date', epochSeconds: 1_700_000_000 });
    expect(printer.formatLine(millis(1500), frame('ARP request'))).toBe(
      '2023-11-14 22:13:21.500000 ARP, Request who-has 10.244.1.1 tell 10.244.1.5, length 28',
    );
    expect(formatTcpdumpLine(millis(1500), frame('ARP request'), ethernet)).toBe(
      '00:00:01.500000 ARP, Request who-has 10.244.1.1 tell 10.244.1.5, length 28',
    );
  });
});

describe('formatFrame on random bytes', () => {
  it('never throws, whatever the bytes, link type, flags and verbosity', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom<PrintLinkType>(LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2),
        fc.boolean(),
        fc.nat(64),
        fc.nat(3),
        fc.boolean(),
        (bytes, linkType, showLinkLayer, extra, verbose, quiet) => {
          const options = { linkType, showLinkLayer, wireLength: bytes.length + extra, verbose, quiet };
          const text = formatFrame(bytes, options);
          expect(typeof text).toBe('string');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws through the whole line: every link type, verbosity, dump, -q, -e, -# and timestamp format', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom<PrintLinkType>(LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2),
        fc.record({
          verbose: fc.nat(3),
          quiet: fc.boolean(),
          showLinkLayer: fc.boolean(),
          packetNumbers: fc.boolean(),
          timestamp: fc.constantFrom<TimestampFormat>(
            'clock',
            'none',
            'epoch',
            'delta',
            'date',
            'since-first',
          ),
          dump: fc.option(
            fc.record({
              style: fc.constantFrom<PacketDump['style']>('hex', 'hex-ascii', 'ascii'),
              withLinkHeader: fc.boolean(),
            }),
            { nil: undefined },
          ),
        }),
        fc.nat(64),
        fc.nat(4_000_000_000),
        (bytes, linkType, flags, extra, seconds) => {
          const { dump, ...rest } = flags;
          const printer = new TcpdumpPrinter({ linkType, ...rest, ...(dump === undefined ? {} : { dump }) });
          const line = printer.formatRecord(seconds, 999_999_999, bytes, bytes.length + extra);
          expect(typeof line).toBe('string');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws on sample frames with random bytes overwritten', () => {
    const tcpSeq = new TcpSeqTable();
    fc.assert(
      fc.property(
        fc.nat(samples.length - 1),
        fc.array(fc.tuple(fc.nat(199), fc.nat(255)), { maxLength: 6 }),
        fc.nat(200),
        fc.nat(3),
        (index, patches, cut, verbose) => {
          const frame = samples[index]!.frame.slice(0, Math.max(1, cut));
          for (const [at, value] of patches) if (at < frame.length) frame[at] = value;
          for (const showLinkLayer of [false, true]) {
            formatFrame(frame, { linkType: LINKTYPE_ETHERNET, showLinkLayer, tcpSeq, verbose });
            formatFrame(toSll2(frame.length >= 14 ? frame : new Uint8Array(14), samples[index]!.sll2), {
              linkType: LINKTYPE_LINUX_SLL2,
              showLinkLayer,
              tcpSeq,
              verbose,
            });
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
