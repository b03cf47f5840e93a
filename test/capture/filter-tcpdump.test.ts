import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compileFilter,
  type FilterLinkType,
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL2,
} from '../../src/capture/filter/index.ts';
import { hasTool, requireTool } from '../support/tools.ts';
import {
  ethernetCorpus,
  type Frame,
  readPcapIndices,
  sll2Corpus,
  withCutCopies,
  writePcap,
} from './filter-frames.ts';

// Differential test: the real tcpdump (libpcap) is the oracle. Each expression runs over the same capture
// through `tcpdump -r in.pcap -w out.pcap EXPR` and through compileFilter; the frames kept, or the error
// message, must be the same.

const EXPRESSIONS: readonly string[] = [
  '',
  // protocols
  'tcp',
  'udp',
  'icmp',
  'arp',
  'rarp',
  'ip',
  'ip6',
  'sctp',
  'igmp',
  'icmp6',
  'not ip',
  '!tcp && !udp',
  // hosts and nets
  'host 10.0.0.1',
  'src host 10.0.0.1',
  'dst host 10.0.0.2',
  'src or dst host 10.0.0.2',
  'src and dst net 10.0.0.0/24',
  'host 10.0.0.1 or 10.0.0.2',
  'host 10.0.0.1 and not 10.0.0.2',
  'ip host 10.0.0.1',
  'arp host 10.0.0.2',
  'arp dst host 10.0.0.2',
  'rarp src 10.0.0.1',
  'src 10.0.0.3',
  'host 10.1',
  'net 10.0.0.0/8',
  'net 10.244.0.0/16',
  'net 192.168',
  'net 10',
  'net 10.0.0.0 mask 255.255.255.0',
  'dst net 10.96.0.0/12',
  'src net 172.16',
  'net 0.0.0.0/0',
  'host 10.0.0.1 and (10.0.0.2 or 8.8.8.8)',
  'host 10.0.0.1 or (20)',
  'not host 10.0.0.1 and not 10.0.0.2',
  // ports
  'port 80',
  'port 80 or 443',
  'src port 80',
  'dst port 53',
  'tcp port 80',
  'udp port 53',
  'tcp dst port 80 or 22',
  'tcp dst port 80 or src 10.0.0.4',
  'port 8080',
  'port 0 or 65535',
  'portrange 1000-1100',
  'tcp portrange 400-500',
  'dst portrange 8000-9000',
  'portrange 9000-8000',
  'src and dst port 123',
  'port 123',
  'port http',
  'port domain',
  'tcp portrange ssh-telnet',
  'port (80 or 443) and tcp',
  'tcp port 80 and not src 10.0.0.1',
  'not port 80',
  'not (port 80 or port 53)',
  'tcp or udp and port 53',
  'port 80 and (tcp) or 443',
  // protocol numbers
  'ip proto 47',
  'ip proto \\tcp',
  'ip proto \\icmp or ip proto \\udp',
  'proto 17',
  'proto \\sctp',
  'ip6 proto 6',
  'ip6 proto \\udp',
  'ether proto 0x88cc',
  'ether proto \\arp',
  // lengths
  'greater 200',
  'less 60',
  'len > 100',
  'len = 1414',
  // link layer
  'ether host ff:ff:ff:ff:ff:ff',
  'ether src 02:00:00:00:00:01',
  'ether dst 02:00:00:00:00:02 or 02:00:00:00:00:01',
  'ether src and dst 02:00:00:00:00:01',
  'ether host 0200.0000.0002',
  'ether broadcast',
  'ether multicast',
  'broadcast',
  'multicast',
  'ip broadcast',
  'ip multicast',
  'ip6 multicast',
  // vlan
  'vlan',
  'vlan 100',
  'vlan and tcp',
  'vlan 100 and port 80',
  'vlan and vlan',
  'vlan 10 and vlan 20 and icmp',
  'host 10.0.0.1 or vlan',
  'vlan or host 10.0.0.1',
  'vlan and arp',
  'vlan and ip6',
  'tcp or vlan and tcp',
  // byte access
  'tcp[tcpflags] & tcp-syn != 0',
  'tcp[tcpflags] & (tcp-syn|tcp-ack) = tcp-syn',
  'tcp[13] = 0x12',
  'tcp[tcpflags] & (tcp-rst|tcp-fin) != 0',
  'icmp[icmptype] == icmp-echo',
  'icmp[icmptype] != icmp-echo and icmp[icmptype] != icmp-echoreply',
  'icmp[0] = 3 and icmp[1] = 4',
  'ip[0] & 0xf > 5',
  'ip[6:2] & 0x1fff != 0',
  'udp[0:2] = 53',
  'udp[4:2] - 8 > 10',
  'ether[12:2] = 0x88cc',
  'ether[0] & 1 = 1',
  'tcp[0:4] > 0',
  'ip[2:2] > 100',
  'tcp[((tcp[12] & 0xf0) >> 2):4] = 0x47455420',
  'arp[7] = 1',
  'ip6[6] = 17',
  'icmp6[0] = 128',
  'len - 14 > 100',
  'ip[9] % 5 = 2',
  'ip[9] ^ 3 * 2 = 0',
  '2 + 3 * 4 = 14',
  '1 << ip[9] = 64',
  'tcp[100] = 0',
  'not tcp[100] = 0',
  'ip[8] / (ip[9] - 6) = 0',
  'len / 0 = 1',
  'not udp[0:2] = 1 or arp',
  // IPv6 addresses, names, LLC
  'host 2001:db8::1',
  'src net 2001:db8::/32',
  'dst host ff02::1',
  'ip6 net fe80::/10',
  'net ::/0',
  'host localhost',
  'ether proto 0x42',
  'ether proto 6',
  'ether proto \\atalk',
  'ether proto 0xe0',
  'byte 23 = 6',
  'byte 12 > 8',
  'byte 0 < 3',
  // the optimizer's verdicts
  'not ip or ip',
  'tcp and 1 = 0',
  'tcp or 2 & 0x3fff != 0',
  'net 0.0.0.0/0 or port 80',
  'not net 2001:db8::/32 or net 2001:db8::/32',
  // SLL2 metadata
  'inbound',
  'outbound',
  'ifindex 3',
  // errors
  'host',
  'port 99999',
  'host 300.1.1.1',
  'net 10.0.0.1/8',
  'net 10.0.0.1 mask 255.0.0.0',
  'net 10.0.0.0/33',
  'host 10.0.0.0/8',
  'foo',
  '(host 1.2.3.4',
  'host 1.2.3.4)',
  'tcp and 80',
  '(port 80) or 443',
  'udp port http',
  'udp portrange ssh-telnet',
  'vlan 5000',
  'ether host 1:2:3:4:5',
  'ether host 1:2:3:4:5:6 or 1.2.3.4',
  'host 1.2.3.4 or 1:2:3:4:5:6',
  'host 08',
  'port 4294967296',
  'portrange a-b',
  'portrange 1--2',
  'port foo',
  'ip6 host 1.2.3.4',
  'tcp host 1.2.3.4',
  'ether net 10.0.0.0/8',
  'ip port 80',
  'port 10.0.0.1',
  'proto 10.0.0.0 mask 255.0.0.0',
  'tcp[0:3] = 1',
  'len << 32 = 1',
  'len % 0 = 1',
  'arp proto 6',
  'tcp proto 6',
  'ip proto \\foo',
  'ether proto \\foo',
  'gateway 1.2.3.4',
  'ra host 1.2.3.4',
  'addr2 port 80',
  'src or 1.2.3.4',
  'host 1.2.3.4 or ((10.0.0.1))',
  'host $1',
  'link',
  'TCP',
  'tcp and udp',
  'ip6 broadcast',
  'tcp multicast',
  'less',
  'not',
  '()',
  'len % (2 - 2) = 1',
  'port ::1/64',
  'net ::1/129',
  'ip host ::1',
  'host ::1/64',
  'addr1 portrange 1-2',
  'not ip || (80) 23 = 6',
  '(ip[9] = 17 || 02:00:00:00:00:02) =',
  'vlan 08 less 80',
  'host 1.2.3.4 or ((10.0.0.1))',
  'gateway foo',
];

const tcpdumpPresent = hasTool('tcpdump');
const workDir = tcpdumpPresent ? mkdtempSync(join(tmpdir(), 'packetlab-filter-')) : '';
afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

type Verdict = { readonly kept: readonly string[] } | { readonly error: string };

function tcpdumpVerdict(input: string, frames: readonly Frame[], expression: string): Verdict {
  const output = join(workDir, 'out.pcap');
  rmSync(output, { force: true });
  const run = spawnSync('tcpdump', ['-nn', '-r', input, '-w', output, '--', expression], {
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    const line = run.stderr
      .split('\n')
      .reverse()
      .find((text) => text.startsWith('tcpdump: '));
    return { error: line === undefined ? run.stderr : line.slice('tcpdump: '.length) };
  }
  return { kept: readPcapIndices(readFileSync(output)).map((index) => frames[index]!.name) };
}

function ourVerdict(linkType: FilterLinkType, frames: readonly Frame[], expression: string): Verdict {
  const compiled = compileFilter(expression, { linkType });
  if (!compiled.ok) return { error: compiled.message };
  return {
    kept: frames
      .filter((frame) => compiled.match(frame.bytes, linkType, frame.wireLen ?? frame.bytes.length))
      .map((frame) => frame.name),
  };
}

const LINKS: readonly {
  readonly name: string;
  readonly linkType: FilterLinkType;
  readonly frames: Frame[];
}[] = [
  { name: 'Ethernet', linkType: LINKTYPE_ETHERNET, frames: ethernetCorpus() },
  { name: 'Linux SLL2', linkType: LINKTYPE_LINUX_SLL2, frames: sll2Corpus() },
];

describe.each(LINKS)('filters agree with the real tcpdump on $name', ({ linkType, frames }) => {
  const input = tcpdumpPresent ? join(workDir, `in-${linkType}.pcap`) : '';
  if (tcpdumpPresent) writeFileSync(input, writePcap(linkType, frames));

  it.for(EXPRESSIONS)('%j', (expression, context) => {
    if (!requireTool('tcpdump', context)) return;
    const theirs = tcpdumpVerdict(input, frames, expression);
    const ours = ourVerdict(linkType, frames, expression);
    expect(ours).toEqual(theirs);
  });
});

/** Seeded random filters over the same corpus with every frame also cut short: optimizer and bounds corners. */
const PRIMITIVES = [
  'tcp',
  'udp',
  'icmp',
  'arp',
  'ip',
  'ip6',
  'vlan',
  'vlan 100',
  'host 10.0.0.1',
  '10.0.0.2',
  'src 10.0.0.3',
  'net 10.0.0.0/24',
  'port 80',
  '443',
  '53',
  'src port 53',
  'dst portrange 1000-9000',
  'tcp port 80',
  'greater 100',
  'less 80',
  'ether src 02:00:00:00:00:01',
  'ether broadcast',
  'ip multicast',
  'tcp[13] & 2 != 0',
  'icmp[0] = 8',
  'ip[9] = 17',
  'len > 60',
  'proto 6',
  'ether proto \\ip6',
  'net 10',
  'host 8.8.8.8',
  '(10.0.0.1 or 10.0.0.2)',
  'not 10.0.0.2',
  'udp[0:2] > 1000',
  'ip[6:2] & 0x3fff != 0',
  'host 2001:db8::1',
  'net 2001:db8::/32',
  'byte 23 = 6',
  'inbound',
  'ifindex 3',
];

const randomFilter: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...PRIMITIVES),
    tie('expr').map((e) => `not ${e}`),
    tie('expr').map((e) => `(${e})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('and', 'or', '&&', '||'), tie('expr'))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
  ),
})).expr;

describe.each(LINKS)(
  'seeded random filters agree with the real tcpdump on $name, cut frames too',
  ({ linkType, frames }) => {
    const cut = withCutCopies(frames, [10, 16, 24, 30, 38, 46]);
    const input = tcpdumpPresent ? join(workDir, `cut-${linkType}.pcap`) : '';
    if (tcpdumpPresent) writeFileSync(input, writePcap(linkType, cut));
    const filters = fc.sample(randomFilter, { seed: 20240611 + linkType, numRuns: 60 });

    it.for(filters)('%j', (expression, context) => {
      if (!requireTool('tcpdump', context)) return;
      expect(ourVerdict(linkType, cut, expression)).toEqual(tcpdumpVerdict(input, cut, expression));
    });
  },
);
