import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  type FilterLinkType,
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL2,
} from '../../src/capture/filter/index.ts';
import { ethernetCorpus, sll2Corpus } from './filter-frames.ts';

// Properties: bad text and bad frames never throw; on whole frames the boolean algebra holds.

/** Tokens that exercise every corner of the lexer and parser, good and bad. */
const VOCABULARY = [
  'tcp',
  'udp',
  'icmp',
  'ip',
  'ip6',
  'arp',
  'rarp',
  'ether',
  'link',
  'vlan',
  'mpls',
  'byte',
  'host',
  'net',
  'port',
  'portrange',
  'proto',
  'protochain',
  'gateway',
  'mask',
  'src',
  'dst',
  'and',
  'or',
  'not',
  '&&',
  '||',
  '!',
  '(',
  ')',
  '[',
  ']',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '<<',
  '>>',
  '=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'len',
  'less',
  'greater',
  'broadcast',
  'multicast',
  'inbound',
  'outbound',
  'ifindex',
  'tcpflags',
  'tcp-syn',
  'icmp-echo',
  '0',
  '1',
  '13',
  '80',
  '65535',
  '65536',
  '4294967296',
  '08',
  '0x1f',
  '10.0.0.1',
  '10.0.0.0/8',
  '10',
  '300.1.1.1',
  '255.255.0.0',
  '::1',
  'fe80::1/64',
  '1:2:3:4:5:6',
  '1:2:3:4:5',
  '0102.0304.0506',
  '$1',
  'http',
  'www',
  'dir',
  'llc',
  'type',
  'subtype',
  'lane',
  'decnet',
  'iso',
  'pppoes',
  'geneve',
  '1-2',
  'a-b',
  '\\tcp',
  '\\foo',
  'localhost',
  'TCP',
  'addr1',
  'ra',
  '#',
  '"',
  'é',
];

describe('filter robustness', () => {
  it('never throws on random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const compiled = compileFilter(text);
        expect(typeof compiled.ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on random token sequences, with or without a link type', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...VOCABULARY), { maxLength: 14 }),
        fc.constantFrom<FilterLinkType | undefined>(undefined, LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2),
        fc.boolean(),
        (tokens, linkType, glued) => {
          const text = tokens.join(glued ? '' : ' ');
          const compiled = compileFilter(text, linkType === undefined ? {} : { linkType });
          if (compiled.ok) {
            expect(typeof compiled.match(new Uint8Array(60), LINKTYPE_ETHERNET)).toBe('boolean');
          } else {
            expect(compiled.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  const FILTERS = [
    'tcp port 80',
    'host 10.0.0.1 or net 192.168.0.0/16',
    'vlan 100 and vlan and udp portrange 1-1000',
    'tcp[tcpflags] & (tcp-syn|tcp-fin) != 0',
    'tcp[(tcp[12] >> 4) * 4] = 0x47',
    'ip[0] & 0xf > 5 or ip6[6] = 58',
    'icmp[icmptype] = icmp-echo or icmp6[0] = 128',
    'len / (ip[9] - 6) > 1',
    'ether host 02:00:00:00:00:01 or ether broadcast or ether multicast',
    'ether proto 0x42 or ether proto \\atalk or ether proto 0xe0',
    'host 2001:db8::1 or net fe80::/10',
    'inbound and ifindex 3',
  ];

  it('never throws on random frames, whatever their length', () => {
    const compiled = FILTERS.map((filter) => compileFilter(filter)).flatMap((c) => (c.ok ? [c.match] : []));
    expect(compiled.length).toBe(FILTERS.length);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 120 }),
        fc.constantFrom<FilterLinkType>(LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2),
        fc.nat(2000),
        (frame, linkType, wireLen) => {
          for (const match of compiled) expect(typeof match(frame, linkType, wireLen)).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** Primitives with their own qualifiers (no inheritance) and no offset-shifting `vlan`. */
const PRIMITIVES = [
  'tcp',
  'udp',
  'icmp',
  'arp',
  'ip',
  'ip6',
  'host 10.0.0.1',
  'src net 10.0.0.0/24',
  'dst host 10.0.0.2',
  'port 80',
  'udp port 53',
  'tcp dst portrange 1-1024',
  'greater 100',
  'less 80',
  'ether src 02:00:00:00:00:01',
  'ether broadcast',
  'ip multicast',
  'tcp[13] & 2 != 0',
  'icmp[0] = 8',
  'ip[9] = 17',
  'len > 60',
  'ip proto 47',
  'host 2001:db8::1',
  'ip6 proto 6',
  'arp host 10.0.0.2',
  'ip[6:2] & 0x3fff != 0',
];

const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...PRIMITIVES),
    tie('expr').map((e) => `not (${e})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('and', 'or'), tie('expr'))
      .map(([a, op, b]) => `(${a}) ${op} (${b})`),
  ),
})).expr;

describe('filter algebra on whole frames', () => {
  // Whole frames only: a short frame makes BPF reject as soon as a load falls off its end, which is not
  // symmetric in the operands of `and`/`or`.
  const frames = ethernetCorpus().filter((frame) => frame.wireLen === undefined && frame.bytes.length >= 42);
  const sll2 = sll2Corpus().filter((frame) => frame.wireLen === undefined && frame.bytes.length >= 48);

  const verdicts = (text: string, linkType: FilterLinkType): boolean[] | undefined => {
    const compiled = compileFilter(text, { linkType });
    if (!compiled.ok) return undefined;
    const corpus = linkType === LINKTYPE_ETHERNET ? frames : sll2;
    return corpus.map((frame) => compiled.match(frame.bytes, linkType));
  };

  const equivalent = (left: string, right: string): void => {
    for (const linkType of [LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2] as const) {
      const a = verdicts(left, linkType);
      const b = verdicts(right, linkType);
      // A filter libpcap would refuse as matching nothing is refused on either side, or matches nothing.
      if (a === undefined || b === undefined) {
        expect((a ?? b ?? []).every((verdict) => !verdict)).toBe(true);
        continue;
      }
      expect(a).toEqual(b);
    }
  };

  it('not not E = E', () => {
    fc.assert(
      fc.property(expression, (e) => equivalent(`not not (${e})`, e)),
      { numRuns: 150 },
    );
  });

  it('and/or commute', () => {
    fc.assert(
      fc.property(expression, expression, fc.constantFrom('and', 'or'), (a, b, op) =>
        equivalent(`(${a}) ${op} (${b})`, `(${b}) ${op} (${a})`),
      ),
      { numRuns: 150 },
    );
  });

  it('De Morgan', () => {
    fc.assert(
      fc.property(expression, expression, (a, b) =>
        equivalent(`not ((${a}) or (${b}))`, `not (${a}) and not (${b})`),
      ),
      { numRuns: 150 },
    );
  });
});
