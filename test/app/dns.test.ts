import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lookupHost } from '../../src/app/dns/resolver.ts';
import { dnsServer } from '../../src/app/dns/server.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { DNS_TYPE_A, DNS_TYPE_AAAA, DnsView, parseDns } from '../../src/wire/dns.ts';
import { hex, toHex } from '../support/bytes.ts';
import { requireTool } from '../support/tools.ts';
import { tsharkCheck } from '../support/tshark.ts';
import { run, twoHosts } from './lab.ts';

const NAME = 'signalements.default.svc.cluster.local';
const QNAME = '0c7369676e616c656d656e7473 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00';
const RECORDS = { [NAME]: ['10.96.40.12'] };
const NAMESERVER = { nameserver: '10.0.0.2' };

/** A lab with the server on b:53 and a socket on a:40000 that keeps what comes back. */
function withServer() {
  const lab = twoHosts('dns');
  const server = dnsServer(lab.b, { port: 53, records: RECORDS });
  const replies: Uint8Array[] = [];
  lab.a.udp.bind(0, 40000, (d) => replies.push(d.payload.slice()));
  const ask = (query: Uint8Array): Uint8Array => {
    replies.length = 0;
    lab.a.udp.send({ dst: parseIpv4('10.0.0.2')!, dstPort: 53, srcPort: 40000, payload: query });
    lab.sim.run(1e9);
    expect(replies).toHaveLength(1);
    return replies[0]!;
  };
  return { ...lab, server, ask };
}

describe('dnsServer', () => {
  it("answers glibc's A query with the compressed answer, byte for byte", () => {
    const { ask, server } = withServer();
    const reply = ask(hex(`bcf5 0100 0001 0000 0000 0000 ${QNAME} 0001 0001`));
    expect(toHex(reply)).toBe(
      toHex(hex(`bcf5 8500 0001 0001 0000 0000 ${QNAME} 0001 0001 c00c 0001 0001 0000001e 0004 0a60280c`)),
    );
    expect(server.stats).toMatchObject({ queries: 1, answers: 1 });
  });

  it('answers AAAA for a v4-only name with NOERROR, no answer and the SOA', () => {
    const { ask, server } = withServer();
    const reply = ask(hex(`51f9 0100 0001 0000 0000 0000 ${QNAME} 001c 0001`));
    expect(toHex(reply)).toBe(
      toHex(
        hex(`51f9 8500 0001 0000 0001 0000 ${QNAME} 001c 0001
             c025 0006 0001 0000001e 002a 026e73 03646e73 c025 0a686f73746d6173746572 c025
             6553f100 00001c20 00000708 00015180 0000001e`),
      ),
    );
    expect(server.stats.nodata).toBe(1);
  });

  it('answers an unknown name with NXDOMAIN and the SOA, and an empty non-terminal with NODATA', () => {
    const { ask } = withServer();
    const nx = parseDns(
      DnsView.checked(
        ask(
          hex(
            '0001 0100 0001 0000 0000 0000 046e6f7065 0764656661756c74 03737663 07636c7573746572 056c6f63616c 00 0001 0001',
          ),
        ),
      ) as DnsView,
    );
    expect(nx).toMatchObject({
      rcode: 3,
      authoritative: true,
      answers: [],
      authorities: [{ name: 'cluster.local' }],
    });
    const ent = parseDns(
      DnsView.checked(
        ask(hex('0002 0100 0001 0000 0000 0000 03737663 07636c7573746572 056c6f63616c 00 0001 0001')),
      ) as DnsView,
    );
    expect(ent).toMatchObject({ rcode: 0, answers: [], authorities: [{ name: 'cluster.local' }] });
  });

  it('drops what is not a query and counts it', () => {
    const { a, sim, server } = withServer();
    a.udp.send({ dst: parseIpv4('10.0.0.2')!, dstPort: 53, srcPort: 40000, payload: hex('0001 01') });
    sim.run(1e9);
    expect(server.stats).toMatchObject({ queries: 0, malformed: 1 });
  });
});

describe('the exchange as the real tcpdump reads it', () => {
  it('prints what it printed for glibc and a CoreDNS-shaped server on the kernel', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const capture = spawn(a, 'tcpdump -i eth0 -w /dns.pcap udp port 53');
    lookupHost(a, NAME, NAMESERVER);
    sim.run(1e9);
    if (!('stop' in capture)) throw new Error(capture.stderr);
    capture.stop();
    const dir = mkdtempSync(join(tmpdir(), 'packetlab-dns-'));
    try {
      const path = join(dir, 'dns.pcap');
      writeFileSync(path, a.sim.files.get('/dns.pcap')!);
      const out = spawnSync('tcpdump', ['-nn', '-t', '-r', path], { encoding: 'utf8' });
      // The kernel run (getent ahosts, 2026-12-01) printed these shapes, ids and ports aside.
      expect(
        out.stdout.replace(/\b\d{4,5}\b(?=[+*])/g, 'ID').replace(/10\.0\.0\.1\.\d+/g, '10.0.0.1.P'),
      ).toBe(
        [
          'IP 10.0.0.1.P > 10.0.0.2.53: ID+ A? signalements.default.svc.cluster.local. (56)',
          'IP 10.0.0.1.P > 10.0.0.2.53: ID+ AAAA? signalements.default.svc.cluster.local. (56)',
          'IP 10.0.0.2.53 > 10.0.0.1.P: ID*- 1/0/0 A 10.96.40.12 (72)',
          'IP 10.0.0.2.53 > 10.0.0.1.P: ID*- 0/1/0 (110)',
          '',
        ].join('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lookupHost (glibc getaddrinfo over UDP)', () => {
  it('sends A and AAAA from one socket in the same instant and returns the A answer', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const start = sim.scheduler.now;
    let doneAt = -1;
    const lookup = lookupHost(a, NAME, NAMESERVER, () => {
      doneAt = sim.scheduler.now;
    });
    sim.run(20e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    expect(doneAt).toBe(start);
    const [qa, qaaaa] = lookup.sent;
    expect(lookup.sent).toHaveLength(2);
    expect([qa!.type, qaaaa!.type]).toEqual([DNS_TYPE_A, DNS_TYPE_AAAA]);
    expect(qa!.at).toBe(qaaaa!.at);
    expect(qa!.srcPort).toBe(qaaaa!.srcPort);
    expect(qa!.id).not.toBe(qaaaa!.id);
  });

  it('one of the pair lost: after 5 s it asks again, one query after the other (RES_SNGLKUP)', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    // The second query to reach the server is dropped, as an insert_failed conntrack race drops it.
    run(b, 'nft add table inet lossy');
    run(b, "nft add chain inet lossy input '{ type filter hook input priority 0; }'");
    run(b, 'nft add rule inet lossy input udp dport 53 numgen inc mod 4 == 1 drop');
    const start = sim.scheduler.now;
    let doneAt = -1;
    const lookup = lookupHost(a, NAME, NAMESERVER, () => {
      doneAt = sim.scheduler.now;
    });
    sim.run(20e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    expect(doneAt - start).toBe(5e9);
    expect(lookup.sent.map((q) => [q.at - start, q.type])).toEqual([
      [0, DNS_TYPE_A],
      [0, DNS_TYPE_AAAA],
      [5e9, DNS_TYPE_A],
      [5e9, DNS_TYPE_AAAA],
    ]);
    // The same socket and the same ids, as glibc resends the same buffers.
    expect(new Set(lookup.sent.map((q) => q.srcPort)).size).toBe(1);
    expect(lookup.sent[2]!.id).toBe(lookup.sent[0]!.id);
  });

  it('single-request-reopen: A alone, then AAAA from a new socket once A is answered (RES_SNGLKUPREOP)', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const lookup = lookupHost(a, NAME, { ...NAMESERVER, singleRequestReopen: true });
    sim.run(20e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    expect(lookup.sent.map((q) => q.type)).toEqual([DNS_TYPE_A, DNS_TYPE_AAAA]);
    expect(lookup.sent[0]!.srcPort).not.toBe(lookup.sent[1]!.srcPort);
    // The first socket is closed: nothing listens on its port any more.
    expect(a.udp.isBound(lookup.sent[0]!.srcPort)).toBe(false);
  });

  it('no answer at all: two attempts of 5 s, then EAI_AGAIN at 10 s', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    run(b, 'nft add table inet lossy');
    run(b, "nft add chain inet lossy input '{ type filter hook input priority 0; }'");
    run(b, 'nft add rule inet lossy input udp dport 53 drop');
    const start = sim.scheduler.now;
    let doneAt = -1;
    const lookup = lookupHost(a, NAME, NAMESERVER, () => {
      doneAt = sim.scheduler.now;
    });
    sim.run(20e9);
    expect(lookup.result).toEqual({ ok: false, error: 'EAI_AGAIN' });
    expect(doneAt - start).toBe(10e9);
    expect(lookup.sent.map((q) => q.at - start)).toEqual([0, 0, 5e9, 5e9]);
  });

  it('NXDOMAIN is EAI_NONAME', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const lookup = lookupHost(a, 'nope.default.svc.cluster.local', NAMESERVER);
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: false, error: 'EAI_NONAME' });
  });

  it("a pod's search list with ndots 5 asks the suffixed names first", () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const lookup = lookupHost(a, 'signalements.default', {
      ...NAMESERVER,
      search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ndots: 5,
    });
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    expect(lookup.sent.filter((q) => q.type === DNS_TYPE_A).map((q) => q.name)).toEqual([
      'signalements.default.default.svc.cluster.local',
      NAME,
    ]);
  });

  it('no route to the nameserver: each try fails at once (EAI_AGAIN)', () => {
    const { a, sim } = twoHosts('dns');
    const start = sim.scheduler.now;
    let doneAt = -1;
    const lookup = lookupHost(a, NAME, { nameserver: '10.96.0.10' }, () => {
      doneAt = sim.scheduler.now;
    });
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: false, error: 'EAI_AGAIN' });
    expect(doneAt).toBe(start);
  });

  it('a closed port (ICMP port unreachable) fails each try at once, on a new socket each time', () => {
    const { a, sim } = twoHosts('dns');
    const start = sim.scheduler.now;
    const lookup = lookupHost(a, NAME, NAMESERVER);
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: false, error: 'EAI_AGAIN' });
    expect(lookup.sent.every((q) => q.at === start)).toBe(true);
    expect(lookup.sent).toHaveLength(4);
    expect(lookup.sent[0]!.srcPort).toBe(lookup.sent[1]!.srcPort);
    expect(lookup.sent[2]!.srcPort).not.toBe(lookup.sent[0]!.srcPort);
  });

  it('through a ClusterIP DNAT both queries share one conntrack entry, and the answers come back from the ClusterIP', () => {
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    run(a, 'ip route add default via 10.0.0.2');
    run(
      a,
      'iptables -t nat -A OUTPUT -d 10.96.0.10/32 -p udp --dport 53 -j DNAT --to-destination 10.0.0.2:53',
    );
    const lookup = lookupHost(a, NAME, { nameserver: '10.96.0.10' });
    sim.run(1e9);
    expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
    const entries = exec(a, 'conntrack -L -p udp').stdout.trim().split('\n');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toContain(`src=10.0.0.1 dst=10.96.0.10 sport=${lookup.sent[0]!.srcPort} dport=53`);
    expect(entries[0]).toContain('src=10.0.0.2 dst=10.0.0.1 sport=53');
  });

  it('a capture of the exchange dissects in tshark with nothing malformed', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const { a, b, sim } = twoHosts('dns');
    dnsServer(b, { port: 53, records: RECORDS });
    const capture = spawn(a, 'tcpdump -i eth0 -w /dns.pcap udp port 53');
    lookupHost(a, NAME, NAMESERVER);
    lookupHost(a, 'nope.default.svc.cluster.local', NAMESERVER);
    sim.run(1e9);
    if (!('stop' in capture)) throw new Error(capture.stderr);
    capture.stop();
    const report = tsharkCheck(a.sim.files.get('/dns.pcap')!, [
      'dns.flags.response',
      'dns.qry.name',
      'dns.qry.type',
      'dns.flags.rcode',
      'dns.a',
      'dns.soa.mname',
    ]);
    expect(report.problems).toEqual([]);
    expect(report.frames).toBe(8);
    const answers = report.rows.filter((row) => row[0] === '1');
    expect(answers.map((row) => [row[2], row[3], row[4], row[5]])).toEqual([
      ['1', '0', '10.96.40.12', ''],
      ['28', '0', '', 'ns.dns.cluster.local'],
      ['1', '3', '', 'ns.dns.cluster.local'],
      ['28', '3', '', 'ns.dns.cluster.local'],
    ]);
  });
});
