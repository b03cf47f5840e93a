// The issue-12 iptables matches and targets evaluated on packets through the router r of the eval lab: limit's and
// hashlimit's buckets on the virtual clock (each probe runs it one second), connlimit counting connections, helper,
// u32, string, time against the virtual wall clock (2023-11-14 22:13:20 UTC, a Tuesday, at time 0), policy without
// IPsec, tos, ecn, sctp chunks and esp SPIs on hand-made datagrams, rpfilter strict and loose, NFQUEUE with no
// listener, NETMAP, and DSCP, TOS and ECN rewriting the header (its checksum checked where b receives it).

import { describe, expect, it } from 'vitest';
import { formatIpv4, parseIpv4 } from '../../../src/wire/address.ts';
import { internetChecksum } from '../../../src/wire/checksum.ts';
import {
  type Check,
  checkRuleCase,
  iptables,
  lab,
  type Probe,
  rawTcpProbe,
  rulePackets,
  rx,
  select,
  sendRaw,
  sendUdp,
  udpProbe,
} from './support.ts';

const ab = (options: Parameters<typeof udpProbe>[2] = {}): Probe => udpProbe('a', '10.0.2.1', options);
const ba = (options: Parameters<typeof udpProbe>[2] = {}): Probe => udpProbe('b', '10.0.1.1', options);

/** An IPv4 datagram from a (10.0.1.1) to b (10.0.2.1) of protocol `proto` with `payload`, checksummed. */
function datagram(proto: number, payload: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(20 + payload.length);
  const total = bytes.length;
  bytes.set([0x45, 0, total >> 8, total & 0xff, 0, 1, 0, 0, 64, proto, 0, 0, 10, 0, 1, 1, 10, 0, 2, 1]);
  bytes.set(payload, 20);
  const sum = internetChecksum(bytes, 0, 20);
  bytes[10] = sum >> 8;
  bytes[11] = sum & 0xff;
  return bytes;
}

const protocol =
  (proto: number): Check =>
  (p) =>
    p.ip.protocol === proto ? undefined : `protocol ${p.ip.protocol}, expected ${proto}`;

/** A hand-made datagram from a to b; counts its arrivals at b. */
function rawProbe(label: string, proto: number, payload: readonly number[]): Probe {
  return {
    label,
    send: (l) => sendRaw(l.a, datagram(proto, payload)),
    arrivals: (l) => select(l.atB, rx, protocol(proto)).length,
  };
}

/** SCTP to port 80 with one DATA chunk whose flags are `flags` (the checksum is not checked on the way through). */
const sctpData = (flags: number) =>
  rawProbe(`sctp DATA flags ${flags}`, 132, [
    0x9c,
    0x40,
    0,
    80,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    flags,
    0,
    16,
    ...new Array(12).fill(0),
  ]);
const esp = (spi: number) =>
  rawProbe(`esp spi ${spi}`, 50, [
    spi >>> 24,
    (spi >> 16) & 0xff,
    (spi >> 8) & 0xff,
    spi & 0xff,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
  ]);

describe('issue-12 iptables matches on packets', () => {
  it('limit: a burst of 2 at 1/min, then one packet a minute', () => {
    checkRuleCase({
      name: 'limit',
      rules: [
        'iptables -A FORWARD -p udp -m limit --limit 1/min --limit-burst 2 -j ACCEPT',
        'iptables -A FORWARD -p udp -j DROP',
      ],
      steps: [
        [ab(), 'passed'],
        [ab(), 'passed'],
        [ab(), 'dropped'],
        // 57 s after the drop the bucket holds 59 s of the 60 a packet costs; 2 s later, 61.
        { wait: 56 },
        [ab(), 'dropped'],
        { wait: 1 },
        [ab(), 'passed'],
      ],
      packets: [3, 2],
    });
  });

  it('limit: every namespace that loads the same rule gets its own bucket (rules share parsed lines, not state)', () => {
    // The iptables line cache hands every namespace the same compiled rule; the kernel gives each rule its own
    // xt_rateinfo. A second lab with the same rule starts with a full bucket, whatever the first one spent.
    for (const name of ['limit, first namespace', 'limit, second namespace'])
      checkRuleCase({
        name,
        rules: [
          'iptables -A FORWARD -p udp -m limit --limit 1/hour --limit-burst 1 -j ACCEPT',
          'iptables -A FORWARD -p udp -j DROP',
        ],
        steps: [
          [ab(), 'passed'],
          [ab(), 'dropped'],
        ],
        packets: [1, 1],
      });
  });

  it('hashlimit: one bucket per source address', () => {
    checkRuleCase({
      name: 'hashlimit',
      rules: [
        'iptables -A FORWARD -p udp -m hashlimit --hashlimit-above 1/min --hashlimit-burst 1 --hashlimit-mode srcip --hashlimit-name t -j DROP',
      ],
      steps: [
        [ab(), 'passed'],
        [ab(), 'dropped'],
        [ba(), 'passed'],
        [ba(), 'dropped'],
        { wait: 60 },
        [ab(), 'passed'],
      ],
      packets: [2],
    });
  });

  it('connlimit: the connections of a source this rule saw and that still live', () => {
    checkRuleCase({
      name: 'connlimit',
      rules: ['iptables -A FORWARD -p udp -m connlimit --connlimit-above 1 -j DROP'],
      steps: [
        [ab({ sport: 1000 }), 'passed'],
        [ab({ sport: 1001 }), 'dropped'],
        [ab({ sport: 1000 }), 'passed'],
        [ba({ sport: 1001 }), 'passed'],
      ],
      packets: [1],
    });
  });

  for (const [rule, fate] of [
    ['-m helper --helper ftp', 'passed'],
    ['-m helper ! --helper ftp', 'dropped'],
    ['-p udp -m u32 --u32 "0>>22&0x3C@0&0xFFFF=53"', 'dropped'],
    ['-p udp -m u32 --u32 "0>>22&0x3C@0&0xFFFF=54"', 'passed'],
    ['-p udp -m u32 ! --u32 "12=0x0a000101"', 'passed'],
    ['-p udp -m string --algo bm --hex-string "|00000000|"', 'dropped'],
    ['-p udp -m string --algo kmp --string abc', 'passed'],
    ['-p udp -m string --algo bm --hex-string "|00|" --from 40', 'passed'],
    ['-m time --timestart 22:00 --timestop 23:00 --weekdays Tue', 'dropped'],
    ['-m time --timestart 22:00 --timestop 23:00 --weekdays Wed', 'passed'],
    ['-m time --timestart 23:00 --timestop 01:00', 'passed'],
    ['-m time --monthdays 14 --datestop 2023-11-15', 'dropped'],
    ['-m time --datestart 2024-01-01', 'passed'],
    ['-m policy --dir in --pol none', 'dropped'],
    ['-m policy --dir in --pol ipsec', 'passed'],
    ['-m tos --tos 0x00/0xff', 'dropped'],
    ['-m tos --tos Minimize-Delay', 'passed'],
    ['-m ecn --ecn-ip-ect 0', 'dropped'],
    ['-m ecn ! --ecn-ip-ect 0', 'passed'],
  ] as const)
    it(`${rule}: ${fate}`, () => {
      checkRuleCase({
        name: rule,
        rules: [`iptables -A FORWARD ${rule} -j DROP`],
        steps: [[ab(), fate]],
        packets: [fate === 'dropped' ? 1 : 0],
      });
    });

  it('sctp: ports and a DATA chunk with B set and E clear', () => {
    checkRuleCase({
      name: 'sctp',
      rules: ['iptables -A FORWARD -p sctp --dport 80 -m sctp --chunk-types all DATA:Be -j DROP'],
      steps: [
        [sctpData(0x02), 'dropped'],
        [sctpData(0x03), 'passed'],
      ],
      packets: [1],
    });
  });

  for (const [chunks, fate] of [
    ['all DATA,INIT', 'passed'],
    ['all DATA', 'dropped'],
    ['only DATA', 'dropped'],
    ['only INIT', 'passed'],
    ['any INIT,DATA:E', 'passed'],
    ['any INIT,DATA:e', 'dropped'],
  ] as const)
    it(`sctp --chunk-types ${chunks} on a packet of one DATA chunk: ${fate}`, () => {
      checkRuleCase({
        name: `sctp ${chunks}`,
        rules: [`iptables -A FORWARD -p sctp -m sctp --chunk-types ${chunks} -j DROP`],
        steps: [[sctpData(0x02), fate]],
        packets: [fate === 'dropped' ? 1 : 0],
      });
    });

  it('esp: an SPI range', () => {
    checkRuleCase({
      name: 'esp',
      rules: ['iptables -A FORWARD -p esp -m esp --espspi 100:200 -j DROP'],
      steps: [
        [esp(150), 'dropped'],
        [esp(300), 'passed'],
      ],
      packets: [1],
    });
  });

  it('rpfilter: a source routed out of another interface fails strict mode, not loose', () => {
    checkRuleCase({
      name: 'rpfilter',
      rules: ['iptables -t raw -A PREROUTING -p tcp -m rpfilter --invert -j DROP'],
      steps: [
        [rawTcpProbe({ flags: 'S' }), 'passed'],
        [rawTcpProbe({ flags: 'S', src: '10.0.2.99' }), 'dropped'],
      ],
      packets: [1],
      chain: ['raw', 'PREROUTING'],
    });
    checkRuleCase({
      name: 'rpfilter loose',
      rules: ['iptables -t raw -A PREROUTING -p tcp -m rpfilter --loose --invert -j DROP'],
      steps: [
        [rawTcpProbe({ flags: 'S', src: '10.0.2.99' }), 'passed'],
        [rawTcpProbe({ flags: 'S', src: '192.0.2.1' }), 'dropped'],
      ],
      packets: [1],
      chain: ['raw', 'PREROUTING'],
    });
  });
});

describe('issue-12 iptables targets on packets', () => {
  it('NFQUEUE with no listener drops; with --queue-bypass the packet goes on; NFLOG goes on', () => {
    checkRuleCase({
      name: 'nfqueue',
      rules: [
        'iptables -A FORWARD -p udp -j NFLOG --nflog-group 3',
        'iptables -A FORWARD -p udp --dport 53 -j NFQUEUE --queue-num 1',
        'iptables -A FORWARD -p udp --dport 54 -j NFQUEUE --queue-num 2 --queue-bypass',
        'iptables -A FORWARD -p udp -j DROP',
      ],
      steps: [
        [ab({ dport: 53 }), 'dropped'],
        [ab({ dport: 54 }), 'passed'],
      ],
      packets: [2, 1, 1, 0],
    });
  });

  it('NETMAP maps the destination network, host bits kept', () => {
    const l = lab('netmap');
    iptables(l.r, 'iptables -t nat -A PREROUTING -d 10.0.9.0/24 -j NETMAP --to 10.0.2.0/24');
    l.b.udp.bind(0, 53, () => {});
    sendUdp(l.a, '10.0.9.1');
    l.sim.run(1e9);
    const arrived = select(l.atB, rx, protocol(17));
    expect(
      arrived.map((seen) =>
        formatIpv4(
          ((seen.frame[30]! << 24) | (seen.frame[31]! << 16) | (seen.frame[32]! << 8) | seen.frame[33]!) >>>
            0,
        ),
      ),
    ).toEqual(['10.0.2.1']);
    expect(rulePackets(l.r, 'nat', 'PREROUTING')).toEqual([1]);
  });

  it('DNAT with a shifted portmap moves each port by its distance from the base', () => {
    const l = lab('portmap');
    iptables(
      l.r,
      'iptables -t nat -A PREROUTING -p udp -d 10.0.2.1 --dport 80:90 -j DNAT --to-destination 10.0.2.1:8000-8010/80',
    );
    for (const port of [8005, 8010]) l.b.udp.bind(0, port, () => {});
    sendUdp(l.a, '10.0.2.1', { dport: 85, sport: 40001 });
    sendUdp(l.a, '10.0.2.1', { dport: 90, sport: 40002 });
    l.sim.run(1e9);
    const ports = select(l.atB, rx, protocol(17)).map((seen) => (seen.frame[36]! << 8) | seen.frame[37]!);
    expect(ports).toEqual([8005, 8010]);
  });

  for (const [target, tos] of [
    ['DSCP --set-dscp 0x0a', 0x28],
    ['DSCP --set-dscp-class EF', 0xb8],
    ['TOS --set-tos 0x10', 0x10],
    ['TOS --or-tos 0x04', 0x04],
    ['ECN --ecn-ip-ect 1', 0x01],
  ] as const)
    it(`${target} rewrites the TOS byte to 0x${tos.toString(16)} with a valid header checksum`, () => {
      const l = lab(target);
      iptables(l.r, `iptables -t mangle -A FORWARD -p udp -j ${target}`);
      l.b.udp.bind(0, 53, () => {});
      sendUdp(l.a, '10.0.2.1');
      l.sim.run(1e9);
      const [seen] = select(l.atB, rx, protocol(17));
      expect(seen).toBeDefined();
      const frame = seen!.frame;
      expect(frame[15]).toBe(tos);
      expect(internetChecksum(frame, 14, 34)).toBe(0);
      expect(parseIpv4('10.0.2.1')).toBe(
        ((frame[30]! << 24) | (frame[31]! << 16) | (frame[32]! << 8) | frame[33]!) >>> 0,
      );
    });
});
