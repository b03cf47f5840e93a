import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/wire/address.ts';
import {
  DNS_CLASS_IN,
  DNS_HEADER_LEN,
  DNS_TYPE_A,
  DNS_TYPE_AAAA,
  DNS_TYPE_SOA,
  type DnsRecord,
  type DnsRepr,
  DnsView,
  dnsMessageLen,
  emitDns,
  encodeDns,
  parseDns,
} from '../../src/wire/dns.ts';
import { isWireError } from '../../src/wire/error.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

const NAME = 'signalements.default.svc.cluster.local';
const QNAME = '0c7369676e616c656d656e7473 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00';

// glibc 2.36's A query for NAME, captured from `getent ahosts` in a namespace (id 0xbcf5, RD, one question).
const glibcQuery = hex(`bcf5 0100 0001 0000 0000 0000 ${QNAME} 0001 0001`);
// The answer written from RFC 1035 by hand: QR AA RD, the owner a pointer to the question (c00c), TTL 30, 10.96.40.12.
const answer = hex(`bcf5 8500 0001 0001 0000 0000 ${QNAME} 0001 0001  c00c 0001 0001 0000001e 0004 0a60280c`);
// NXDOMAIN for nope.default.svc.cluster.local: the zone's SOA in AUTHORITY, its owner and both of its names
// pointing at "cluster.local" inside the question (offset 0x1d).
const nxdomain = hex(`
  1234 8503 0001 0000 0001 0000
  046e6f7065 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00 0001 0001
  c01d 0006 0001 0000001e 002a
    026e73 03646e73 c01d  0a686f73746d6173746572 c01d
    6553f100 00001c20 00000708 00015180 0000001e`);

const header = {
  opcode: 0,
  truncated: false,
  recursionAvailable: false,
  authenticData: false,
  checkingDisabled: false,
  answers: [],
  authorities: [],
  additionals: [],
} as const;

const queryRepr: DnsRepr = {
  ...header,
  id: 0xbcf5,
  response: false,
  authoritative: false,
  recursionDesired: true,
  rcode: 0,
  questions: [{ name: NAME, type: DNS_TYPE_A, class: DNS_CLASS_IN }],
};

const answerRecord: DnsRecord = {
  name: NAME,
  type: DNS_TYPE_A,
  class: DNS_CLASS_IN,
  ttl: 30,
  data: { kind: 'a', addr: parseIpv4('10.96.40.12')! },
};
const answerRepr: DnsRepr = { ...queryRepr, response: true, authoritative: true, answers: [answerRecord] };

const soa: DnsRecord = {
  name: 'cluster.local',
  type: DNS_TYPE_SOA,
  class: DNS_CLASS_IN,
  ttl: 30,
  data: {
    kind: 'soa',
    mname: 'ns.dns.cluster.local',
    rname: 'hostmaster.cluster.local',
    serial: 1700000000,
    refresh: 7200,
    retry: 1800,
    expire: 86400,
    minimum: 30,
  },
};
const nxdomainRepr: DnsRepr = {
  ...header,
  id: 0x1234,
  response: true,
  authoritative: true,
  recursionDesired: true,
  rcode: 3,
  questions: [{ name: 'nope.default.svc.cluster.local', type: DNS_TYPE_A, class: DNS_CLASS_IN }],
  authorities: [soa],
};

function parse(bytes: Uint8Array): DnsRepr {
  const view = DnsView.checked(bytes);
  if (isWireError(view)) throw new Error(view.defect);
  return parseDns(view);
}

function emitPoisoned(repr: DnsRepr, compress: boolean): Uint8Array {
  const out = poisoned(dnsMessageLen(repr, { compress }));
  expect(emitDns(repr, DnsView.unchecked(out), { compress })).toBe(out.length);
  return out;
}

describe('dns', () => {
  it("reads glibc's query", () => {
    const view = DnsView.checked(glibcQuery) as DnsView;
    expect(view.id).toBe(0xbcf5);
    expect(view.recursionDesired).toBe(true);
    expect(view.response).toBe(false);
    expect(parseDns(view)).toEqual(queryRepr);
  });

  it("writes glibc's query into a poisoned buffer (names in full)", () => {
    expect(toHex(emitPoisoned(queryRepr, false))).toBe(toHex(glibcQuery));
  });

  it('reads and writes the compressed answer', () => {
    expect(parse(answer)).toEqual(answerRepr);
    expect(toHex(emitPoisoned(answerRepr, true))).toBe(toHex(answer));
  });

  it('reads and writes NXDOMAIN with the SOA names compressed against the question', () => {
    expect(parse(nxdomain)).toEqual(nxdomainRepr);
    expect(toHex(emitPoisoned(nxdomainRepr, true))).toBe(toHex(nxdomain));
  });

  it('compresses case-insensitively and keeps each name as written', () => {
    const mixed: DnsRepr = { ...answerRepr, answers: [{ ...answerRecord, name: NAME.toUpperCase() }] };
    const bytes = encodeDns(mixed, { compress: true });
    expect(toHex(bytes.subarray(glibcQuery.length, glibcQuery.length + 2))).toBe('c00c');
    expect(parse(bytes).answers[0]!.name).toBe(NAME);
  });

  it('escapes dots and unprintable bytes inside labels, and reads them back', () => {
    const odd = hex('0000 0000 0001 0000 0000 0000 03612e62 0220ff 00 0001 0001');
    const name = parse(odd).questions[0]!.name;
    expect(name).toBe('a\\.b.\\032\\255');
    const again = encodeDns(
      { ...queryRepr, id: 0, recursionDesired: false, questions: [{ name, type: 1, class: 1 }] },
      { compress: false },
    );
    expect(toHex(again)).toBe(toHex(odd));
  });

  it('keeps AAAA and unknown types', () => {
    const v6 = hex(
      `0001 8180 0001 0001 0000 0000 ${QNAME} 001c 0001 c00c 001c 0001 0000001e 0010 fd000000000000000000000000000001 `,
    );
    const repr = parse(v6);
    expect(repr.answers[0]!.data).toEqual({ kind: 'aaaa', addr: hex('fd000000000000000000000000000001') });
    expect(repr.questions[0]!.type).toBe(DNS_TYPE_AAAA);
    const txt = hex(`0001 8180 0001 0001 0000 0000 ${QNAME} 0010 0001 c00c 0010 0001 0000001e 0003 026869`);
    expect(parse(txt).answers[0]!.data).toEqual({ kind: 'raw', bytes: hex('026869') });
    expect(toHex(encodeDns(parse(txt), { compress: true }))).toBe(toHex(txt));
  });

  it('dns.truncated', () => {
    expect(DnsView.checked(glibcQuery.subarray(0, DNS_HEADER_LEN - 1))).toMatchObject({
      defect: 'dns.truncated',
    });
  });

  it('dns.name-truncated', () => {
    expect(DnsView.checked(glibcQuery.subarray(0, 20))).toMatchObject({ defect: 'dns.name-truncated' });
    // a pointer cut after its first byte
    expect(DnsView.checked(answer.subarray(0, glibcQuery.length + 1))).toMatchObject({
      defect: 'dns.name-truncated',
    });
  });

  it('dns.bad-label-type', () => {
    const bad = glibcQuery.slice();
    bad[DNS_HEADER_LEN] = 0x4c; // 01xxxxxx: the extended label type of RFC 6891, not a length
    expect(DnsView.checked(bad)).toMatchObject({ defect: 'dns.bad-label-type' });
  });

  it('dns.name-too-long', () => {
    const labels = Array.from({ length: 5 }, () => `3f${'61'.repeat(63)}`).join('');
    expect(DnsView.checked(hex(`0000 0000 0001 0000 0000 0000 ${labels} 00 0001 0001`))).toMatchObject({
      defect: 'dns.name-too-long',
    });
  });

  it('dns.bad-pointer (a loop, and a pointer forward)', () => {
    expect(DnsView.checked(hex('0000 0000 0001 0000 0000 0000 c00c 0001 0001'))).toMatchObject({
      defect: 'dns.bad-pointer',
    });
    expect(DnsView.checked(hex('0000 0000 0001 0000 0000 0000 c010 0001 0001 00'))).toMatchObject({
      defect: 'dns.bad-pointer',
    });
  });

  it('dns.question-truncated', () => {
    expect(DnsView.checked(glibcQuery.subarray(0, glibcQuery.length - 1))).toMatchObject({
      defect: 'dns.question-truncated',
    });
  });

  it('dns.record-truncated', () => {
    expect(DnsView.checked(answer.subarray(0, glibcQuery.length + 11))).toMatchObject({
      defect: 'dns.record-truncated',
    });
  });

  it('dns.rdata-exceeds-buffer', () => {
    expect(DnsView.checked(answer.subarray(0, answer.length - 1))).toMatchObject({
      defect: 'dns.rdata-exceeds-buffer',
    });
  });

  it('dns.bad-rdata-length (an A record of 5 bytes, an SOA with bytes left over)', () => {
    const a5 = hex(`${toHex(answer.subarray(0, answer.length - 6))} 0005 0a60280c00`);
    expect(DnsView.checked(a5)).toMatchObject({ defect: 'dns.bad-rdata-length' });
    const soaLong = nxdomain.slice();
    soaLong[nxdomain.length - 20 - 22 - 1] = 0x2b; // rdlength 43 where the SOA takes 42
    expect(DnsView.checked(hex(`${toHex(soaLong)}00`))).toMatchObject({ defect: 'dns.bad-rdata-length' });
  });

  const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
  const name = fc.array(label, { minLength: 0, maxLength: 5 }).map((labels) => labels.join('.'));
  const record = fc
    .record({
      name,
      type: fc.constant(DNS_TYPE_A),
      class: fc.constant(DNS_CLASS_IN),
      ttl: fc.nat(),
      data: fc.oneof(
        fc.nat({ max: 0xffffffff }).map((addr) => ({ kind: 'a' as const, addr })),
        name.map((target) => ({ kind: 'name' as const, name: target })),
      ),
    })
    .map((r): DnsRecord => ({ ...r, type: r.data.kind === 'a' ? DNS_TYPE_A : 5 }));
  const message = fc.record({
    id: fc.integer({ min: 0, max: 0xffff }),
    response: fc.boolean(),
    opcode: fc.integer({ min: 0, max: 15 }),
    authoritative: fc.boolean(),
    truncated: fc.boolean(),
    recursionDesired: fc.boolean(),
    recursionAvailable: fc.boolean(),
    authenticData: fc.boolean(),
    checkingDisabled: fc.boolean(),
    rcode: fc.integer({ min: 0, max: 15 }),
    questions: fc.array(
      fc.record({ name, type: fc.integer({ min: 0, max: 0xffff }), class: fc.constant(1) }),
      {
        maxLength: 2,
      },
    ),
    answers: fc.array(record, { maxLength: 3 }),
    authorities: fc.array(record, { maxLength: 2 }),
    additionals: fc.array(record, { maxLength: 2 }),
  });

  it('round-trips emit -> parse -> emit byte for byte, compressed or not', () => {
    fc.assert(
      fc.property(message, fc.boolean(), (repr, compress) => {
        const first = encodeDns(repr, { compress });
        const parsed = parse(first);
        expect(parsed).toEqual(repr);
        expect(toHex(emitPoisoned(parsed, compress))).toBe(toHex(first));
      }),
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(4), (bytes, offset) => {
        const view = DnsView.checked(bytes, Math.min(offset, bytes.length));
        if (!isWireError(view)) parseDns(view);
      }),
    );
  });

  it('never throws on mutated real messages', () => {
    fc.assert(
      fc.property(fc.constantFrom(glibcQuery, answer, nxdomain), fc.nat(), fc.nat(255), (base, at, value) => {
        const bytes = base.slice();
        bytes[at % bytes.length] = value;
        const view = DnsView.checked(bytes);
        if (!isWireError(view)) parseDns(view);
      }),
    );
  });
});
