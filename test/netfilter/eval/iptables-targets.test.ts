// iptables targets evaluated on real packets: verdicts and user chains (-j/-g/RETURN, policies), REJECT's answers,
// MARK and CONNMARK arithmetic, the NAT targets' rewrites both ways, LOG's kernel line, NOTRACK and TRACE.

import { describe, expect, it } from 'vitest';
import { exec, spawn } from '../../../src/tools/exec.ts';
import {
  ack,
  checkRuleCase,
  dport,
  dst,
  expectIpv4,
  flags,
  icmp,
  iptables,
  type Lab,
  l4Fields,
  lab,
  mark,
  only,
  type Probe,
  type RuleCase,
  rawTcp,
  restore,
  rulePackets,
  rx,
  SEC,
  select,
  sendRaw,
  sendSyn,
  sendUdp,
  seq,
  sport,
  sportIn,
  src,
  synProbe,
  tcp,
  ttl,
  tx,
  type,
  udp,
  udpEcho,
  udpProbe,
} from './support.ts';

const ab = (options: Parameters<typeof udpProbe>[2] = {}): Probe => udpProbe('a', '10.0.2.1', options);
const syn = (dportValue = 80): Probe => synProbe('a', '10.0.2.1', dportValue);

const VERDICTS: RuleCase[] = [
  {
    name: 'ACCEPT ends the chain',
    rules: ['iptables -A FORWARD -p udp -j ACCEPT', 'iptables -A FORWARD -j DROP'],
    steps: [
      [ab(), 'passed'],
      [syn(), 'dropped'],
    ],
    packets: [1, 1],
  },
  {
    name: 'DROP',
    rules: ['iptables -A FORWARD -p tcp -j DROP'],
    steps: [
      [syn(), 'dropped'],
      [ab(), 'passed'],
    ],
    packets: [1],
  },
  {
    name: 'policy DROP (and its counter)',
    rules: ['iptables -P FORWARD DROP', 'iptables -A FORWARD -p udp --dport 53 -j ACCEPT'],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 54 }), 'dropped'],
      [syn(), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-j CHAIN, then RETURN goes on after the jump',
    rules: [
      'iptables -N CHECK',
      'iptables -A CHECK -p udp -j RETURN',
      'iptables -A CHECK -j DROP',
      'iptables -A FORWARD -j CHECK',
      'iptables -A FORWARD -p udp --dport 54 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 54 }), 'dropped'],
      [syn(), 'dropped'],
    ],
    packets: [3, 1],
  },
  {
    name: '-g CHAIN: a RETURN there skips the rest of the calling chain',
    rules: [
      'iptables -N CHECK',
      'iptables -A CHECK -p udp -j RETURN',
      'iptables -A CHECK -j DROP',
      'iptables -A FORWARD -g CHECK',
      'iptables -A FORWARD -p udp --dport 54 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 54 }), 'passed'],
      [syn(), 'dropped'],
    ],
    packets: [3, 0],
  },
  {
    name: 'the end of a user chain returns like RETURN',
    rules: [
      'iptables -N INNER',
      'iptables -A INNER -p tcp -j DROP',
      'iptables -N OUTER',
      'iptables -A OUTER -j INNER',
      'iptables -A OUTER -p udp --dport 54 -j DROP',
      'iptables -A FORWARD -j OUTER',
      'iptables -A FORWARD -p udp --dport 55 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 54 }), 'dropped'],
      [ab({ dport: 55 }), 'dropped'],
      [syn(), 'dropped'],
    ],
    packets: [4, 1],
  },
  {
    name: 'RETURN in a base chain applies the policy',
    rules: [
      'iptables -P FORWARD DROP',
      'iptables -A FORWARD -p udp -j RETURN',
      'iptables -A FORWARD -j ACCEPT',
    ],
    steps: [
      [ab(), 'dropped'],
      [syn(), 'passed'],
    ],
    // The SYN and the RST b answers with.
    packets: [1, 2],
  },
];

describe('verdicts and user chains', () => {
  for (const c of VERDICTS) it(c.name, () => checkRuleCase(c));

  it('policy counters count what met the policy', () => {
    const l = checkRuleCase(VERDICTS[2]!);
    // One UDP datagram of 32 bytes and one SYN of 60.
    expect(exec(l.r, 'iptables-save -c -t filter').stdout).toContain(':FORWARD DROP [2:92]\n');
  });
});

describe('REJECT', () => {
  const answers: [string, string, string][] = [
    ['', 'Destination Port Unreachable', '3/3'],
    ['--reject-with icmp-port-unreachable', 'Destination Port Unreachable', '3/3'],
    ['--reject-with icmp-host-prohibited', 'Destination Host Prohibited', '3/10'],
    ['--reject-with icmp-net-unreachable', 'Destination Net Unreachable', '3/0'],
    ['--reject-with icmp-admin-prohibited', 'Packet filtered', '3/13'],
  ];
  for (const [option, text, typeCode] of answers) {
    it(`-j REJECT ${option || '(default)'}: ping shows "${text}"`, () => {
      const l = lab(`reject ${option}`);
      iptables(l.r, `iptables -A FORWARD -p icmp -j REJECT ${option}`.trim());
      const result = exec(l.a, 'ping -c 1 -W 1 10.0.2.1');
      expect(result.stdout).toContain(`From 10.0.1.254 icmp_seq=1 ${text}\n`);
      expect(select(l.atB, rx, icmp())).toEqual([]);
      const [t, c] = typeCode.split('/').map(Number) as [number, number];
      only(l.atA, rx, src('10.0.1.254'), dst('10.0.1.1'), icmp(type(t, c)));
      expect(rulePackets(l.r, 'filter', 'FORWARD')).toEqual([1]);
      expect(l.r.ipv4.drops.get('NETFILTER_DROP')).toBe(1);
    });
  }

  it('-j REJECT --reject-with tcp-reset: a RST from the destination, seq 0, ack = the SYN seq + 1', () => {
    const l = lab('reject tcp-reset');
    iptables(l.r, 'iptables -A FORWARD -p tcp --dport 80 -j REJECT --reject-with tcp-reset');
    sendSyn(l.a, '10.0.2.1', 80, 40000);
    l.sim.run(SEC);
    const synSeq = l4Fields(only(l.atA, tx, tcp(flags('S')))).seq;
    expect(select(l.atB, rx, tcp())).toEqual([]);
    expectIpv4(
      only(l.atA, rx, tcp()),
      src('10.0.2.1'),
      dst('10.0.1.1'),
      ttl(64),
      tcp(sport(80), dport(40000), flags('R.'), seq(0), ack(synSeq + 1)),
    );
  });

  it('-j REJECT --reject-with tcp-reset answers an ACK segment with seq = its ack and no ACK flag', () => {
    const l = lab('reject tcp-reset ack');
    iptables(l.r, 'iptables -A FORWARD -p tcp --dport 80 -j REJECT --reject-with tcp-reset');
    const probe = l4Probe(l);
    probe('.', 5000, 777777);
    expectIpv4(
      only(l.atA, rx, tcp()),
      src('10.0.2.1'),
      tcp(sport(80), dport(40000), flags('R'), seq(777777), ack(0)),
    );
  });
});

/** Sends hand-made TCP segments from a (flags, seq, ack) and runs the clock. */
function l4Probe(l: Lab) {
  return (letters: string, seqValue: number, ackValue: number) => {
    sendRaw(l.a, rawTcp({ flags: letters, seq: seqValue, ack: ackValue }));
    l.sim.run(SEC);
  };
}

describe('MARK', () => {
  // The packet arrives marked 0x0f0f (a first MARK rule), then the target under test runs.
  const cases: [string, number][] = [
    ['--set-mark 0x4000', 0x4000],
    ['--set-mark 0x4000/0x4000', 0x4f0f],
    ['--set-xmark 0x1/0xff', 0x0f01],
    ['--set-xmark 0xffff0000/0xffff0000', 0xffff0f0f],
    ['--or-mark 0x4000', 0x4f0f],
    ['--and-mark 0xff', 0x0f],
    ['--xor-mark 0x0101', 0x0e0e],
  ];
  for (const [option, expectedMark] of cases) {
    it(`-j MARK ${option}`, () => {
      const l = lab(`mark ${option}`);
      iptables(
        l.r,
        'iptables -t mangle -A PREROUTING -i to-a -j MARK --set-mark 0x0f0f',
        `iptables -t mangle -A PREROUTING -i to-a -p udp -j MARK ${option}`,
      );
      sendUdp(l.a, '10.0.2.1');
      l.sim.run(SEC);
      expectIpv4(only(l.rToB, udp()), src('10.0.1.1'), mark(expectedMark));
    });
  }
});

describe('CONNMARK', () => {
  // The first datagram (a → b) has its mark set to 0x1234 and runs `forward`; the answer (b → a) runs `reply`.
  const cases: { name: string; forward: string; reply: string[]; replyMark: number }[] = [
    {
      name: '--save-mark, then --restore-mark on the reply',
      forward: '-j CONNMARK --save-mark',
      reply: ['-j CONNMARK --restore-mark'],
      replyMark: 0x1234,
    },
    {
      name: '--save-mark --mask 0xff',
      forward: '-j CONNMARK --save-mark --mask 0xff',
      reply: ['-j CONNMARK --restore-mark'],
      replyMark: 0x34,
    },
    {
      name: '--restore-mark --nfmask 0xf0 --ctmask 0xf0 keeps the other bits of the packet mark',
      forward: '-j CONNMARK --save-mark',
      reply: ['-j MARK --set-mark 0x0f0f', '-j CONNMARK --restore-mark --nfmask 0xf0 --ctmask 0xf0'],
      // (0x0f0f & ~0xf0) ^ (0x1234 & 0xf0)
      replyMark: 0x0f3f,
    },
    {
      name: '--set-mark on the connection, --restore-mark',
      forward: '-j CONNMARK --set-mark 0xab',
      reply: ['-j CONNMARK --restore-mark'],
      replyMark: 0xab,
    },
    {
      name: 'no --save-mark: the reply restores 0',
      forward: '-j MARK --set-mark 0x1',
      reply: ['-j MARK --set-mark 0x77', '-j CONNMARK --restore-mark'],
      replyMark: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const l = lab(`connmark ${c.name}`);
      iptables(
        l.r,
        'iptables -t mangle -A PREROUTING -i to-a -j MARK --set-mark 0x1234',
        `iptables -t mangle -A PREROUTING -i to-a ${c.forward}`,
        ...c.reply.map((target) => `iptables -t mangle -A PREROUTING -i to-b ${target}`),
      );
      l.b.udp.bind(0, 53, (d) =>
        l.b.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 53, payload: d.payload }),
      );
      l.a.udp.bind(0, 40000, () => {});
      sendUdp(l.a, '10.0.2.1');
      l.sim.run(SEC);
      expectIpv4(only(l.rToA, tx, udp()), src('10.0.2.1'), udp(sport(53)), mark(c.replyMark));
    });
  }
});

/** A UDP server on b answering every datagram from its own port; the answers a got, as "src:sport > dst:dport". */
function echoServer(l: Lab, port: number): { atServer: string[]; atClient: string[] } {
  const atServer: string[] = [];
  const atClient: string[] = [];
  const text = (d: { srcAddr: number; srcPort: number; dstAddr: number; dstPort: number }) =>
    `${format(d.srcAddr)}:${d.srcPort} > ${format(d.dstAddr)}:${d.dstPort}`;
  l.b.udp.bind(0, port, (d) => {
    atServer.push(text(d));
    l.b.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: port, payload: d.payload });
  });
  for (const clientPort of [40000, 40001]) l.a.udp.bind(0, clientPort, (d) => atClient.push(text(d)));
  return { atServer, atClient };
}

function format(addr: number): string {
  return [24, 16, 8, 0].map((shift) => (addr >>> shift) & 0xff).join('.');
}

describe('NAT targets', () => {
  it('DNAT --to-destination A:P: b serves it, a hears the answer from the address it asked', () => {
    const l = lab('dnat');
    iptables(
      l.r,
      'iptables -t nat -A PREROUTING -d 10.0.2.99 -p udp --dport 80 -j DNAT --to-destination 10.0.2.1:8080',
    );
    const { atServer, atClient } = echoServer(l, 8080);
    sendUdp(l.a, '10.0.2.99', { dport: 80 });
    l.sim.run(SEC);
    expect(atServer).toEqual(['10.0.1.1:40000 > 10.0.2.1:8080']);
    expect(atClient).toEqual(['10.0.2.99:80 > 10.0.1.1:40000']);
    expect(rulePackets(l.r, 'nat', 'PREROUTING')).toEqual([1]);
  });

  it('SNAT --to-source A keeps the source port', () => {
    const l = lab('snat');
    iptables(l.r, 'iptables -t nat -A POSTROUTING -o to-b -j SNAT --to-source 10.0.2.254');
    const { atServer, atClient } = echoServer(l, 53);
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    expect(atServer).toEqual(['10.0.2.254:40000 > 10.0.2.1:53']);
    expect(atClient).toEqual(['10.0.2.1:53 > 10.0.1.1:40000']);
  });

  it('SNAT --to-source A:LOW-HIGH picks ports in the range, one per flow', () => {
    const l = lab('snat ports');
    iptables(l.r, 'iptables -t nat -A POSTROUTING -o to-b -p udp -j SNAT --to-source 10.0.2.254:2000-2001');
    const { atClient } = echoServer(l, 53);
    sendUdp(l.a, '10.0.2.1', { sport: 40000 });
    sendUdp(l.a, '10.0.2.1', { sport: 40001 });
    l.sim.run(SEC);
    const ports = select(l.atB, rx, udp()).map((seen) => l4Fields(seen).srcPort);
    expect(ports.sort()).toEqual([2000, 2001]);
    for (const seen of select(l.atB, rx, udp()))
      expectIpv4(seen, src('10.0.2.254'), udp(sportIn(2000, 2001)));
    expect(atClient.sort()).toEqual(['10.0.2.1:53 > 10.0.1.1:40000', '10.0.2.1:53 > 10.0.1.1:40001']);
  });

  it('MASQUERADE takes the outgoing interface address and keeps the port', () => {
    const l = lab('masquerade');
    iptables(l.r, 'iptables -t nat -A POSTROUTING -o to-b -j MASQUERADE');
    const { atServer, atClient } = echoServer(l, 53);
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    expect(atServer).toEqual(['10.0.2.254:40000 > 10.0.2.1:53']);
    expect(atClient).toEqual(['10.0.2.1:53 > 10.0.1.1:40000']);
  });

  it('MASQUERADE --to-ports 5000-5001', () => {
    const l = lab('masquerade to-ports');
    iptables(l.r, 'iptables -t nat -A POSTROUTING -o to-b -p udp -j MASQUERADE --to-ports 5000-5001');
    echoServer(l, 53);
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    expectIpv4(only(l.atB, rx, udp()), src('10.0.2.254'), udp(sportIn(5000, 5001), dport(53)));
  });

  it('MASQUERADE --random-fully moves even a free source port, and the answer still comes back', () => {
    const l = lab('masquerade random-fully');
    iptables(l.r, 'iptables -t nat -A POSTROUTING -o to-b -j MASQUERADE --random-fully');
    const { atServer, atClient } = echoServer(l, 53);
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    expect(atServer).toHaveLength(1);
    const port = Number(atServer[0]!.split(' ')[0]!.split(':')[1]);
    expect(port).not.toBe(40000);
    expect(port).toBeGreaterThanOrEqual(1024);
    expect(atClient).toEqual(['10.0.2.1:53 > 10.0.1.1:40000']);
  });

  it('REDIRECT --to-ports on b: the local socket gets it at the incoming address', () => {
    const l = lab('redirect');
    iptables(l.b, 'iptables -t nat -A PREROUTING -p udp --dport 80 -j REDIRECT --to-ports 8080');
    const atServer = udpEcho(l.b, 8080);
    l.a.udp.bind(0, 40000, () => {});
    sendUdp(l.a, '10.0.2.1', { dport: 80 });
    l.sim.run(SEC);
    expect(atServer).toEqual(['10.0.1.1:40000 > 10.0.2.1:8080']);
    expectIpv4(only(l.atA, rx, udp()), src('10.0.2.1'), udp(sport(80), dport(40000)));
  });
});

describe('LOG', () => {
  const hex = (mac: number) =>
    [40, 32, 24, 16, 8, 0]
      .map((shift) => (Math.floor(mac / 2 ** shift) & 0xff).toString(16).padStart(2, '0'))
      .join(':');

  it('INPUT on b: the kernel line for a ping, field by field', () => {
    const l = lab('log input');
    iptables(l.b, 'iptables -A INPUT -p icmp -j LOG --log-prefix "IN-ICMP: "');
    exec(l.a, 'ping -c 1 10.0.2.1');
    const request = only(l.atB, rx, icmp(type(8)));
    const ipId = (request.frame[18]! << 8) | request.frame[19]!;
    const echoId = (request.frame[38]! << 8) | request.frame[39]!;
    const macs = `${hex(l.b.byName('eth0')!.mac)}:${hex(l.r.byName('to-b')!.mac)}:08:00`;
    expect(l.sim.kernelLog).toEqual([
      `IN-ICMP: IN=eth0 OUT= MAC=${macs} SRC=10.0.1.1 DST=10.0.2.1 LEN=84 TOS=0x00 PREC=0x00 TTL=63 ID=${ipId} DF PROTO=ICMP TYPE=8 CODE=0 ID=${echoId} SEQ=1 `,
    ]);
  });

  it('FORWARD on r: both interfaces, UDP ports and length, and the mark', () => {
    const l = lab('log forward');
    iptables(
      l.r,
      'iptables -t mangle -A PREROUTING -p udp -j MARK --set-mark 0x4000',
      'iptables -A FORWARD -p udp -j LOG --log-prefix "FWD: " --log-level 6',
    );
    l.b.udp.bind(0, 53, () => {});
    sendUdp(l.a, '10.0.2.1', { len: 10 });
    l.sim.run(SEC);
    const seen = only(l.atA, tx, udp());
    const ipId = (seen.frame[18]! << 8) | seen.frame[19]!;
    const macs = `${hex(l.r.byName('to-a')!.mac)}:${hex(l.a.byName('eth0')!.mac)}:08:00`;
    expect(l.sim.kernelLog).toEqual([
      `FWD: IN=to-a OUT=to-b MAC=${macs} SRC=10.0.1.1 DST=10.0.2.1 LEN=38 TOS=0x00 PREC=0x00 TTL=63 ID=${ipId} DF PROTO=UDP SPT=40000 DPT=53 LEN=18 MARK=0x4000 `,
    ]);
  });

  it('OUTPUT on a: no MAC, a SYN with its window and flags', () => {
    const l = lab('log output');
    iptables(l.a, 'iptables -A OUTPUT -p tcp -j LOG');
    sendSyn(l.a, '10.0.2.1', 80, 40000);
    l.sim.run(SEC);
    const seen = only(l.atA, tx, tcp(flags('S')));
    const ipId = (seen.frame[18]! << 8) | seen.frame[19]!;
    expect(l.sim.kernelLog).toEqual([
      `IN= OUT=eth0 SRC=10.0.1.1 DST=10.0.2.1 LEN=60 TOS=0x00 PREC=0x00 TTL=64 ID=${ipId} DF PROTO=TCP SPT=40000 DPT=80 WINDOW=64240 RES=0x00 SYN URGP=0 `,
    ]);
  });
});

describe('NOTRACK', () => {
  for (const target of ['NOTRACK', 'CT --notrack']) {
    it(`-j ${target}: the packet is UNTRACKED and no entry is made`, () => {
      const l = checkRuleCase({
        name: target,
        rules: [
          `iptables -t raw -A PREROUTING -i to-a -p udp --dport 53 -j ${target}`,
          'iptables -A FORWARD -m conntrack --ctstate UNTRACKED -j DROP',
        ],
        steps: [
          [ab({ dport: 53 }), 'dropped'],
          [ab({ dport: 54 }), 'passed'],
        ],
        packets: [1],
      });
      expect(l.r.netfilter.conntrack.count).toBe(1);
    });
  }
});

describe('TRACE', () => {
  // iptables-nft creates a table with its first rule, so no mangle or nat chain shows up here.
  it('xtables-monitor --trace follows a forwarded datagram through raw, a user chain and filter', () => {
    const l = lab('trace');
    iptables(
      l.r,
      'iptables -t raw -A PREROUTING -p udp -j TRACE',
      'iptables -N CHECK',
      'iptables -A CHECK -p udp --dport 53 -j RETURN',
      'iptables -A FORWARD -j CHECK',
      'iptables -A FORWARD -p udp -j ACCEPT',
    );
    l.b.udp.bind(0, 53, () => {});
    const monitor = spawn(l.r, 'xtables-monitor --trace');
    if (!('stop' in monitor)) throw new Error(monitor.stderr);
    sendUdp(l.a, '10.0.2.1');
    l.sim.run(SEC);
    const lines = monitor
      .stop()
      .stdout.split('\n')
      .filter((line) => line.startsWith(' TRACE'))
      .map((line) => line.replace(/^ TRACE: 2 [0-9a-f]{8} /, '').replace(/:rule:0x[0-9a-f]+:/, ':rule:H:'));
    expect(lines).toEqual([
      'raw:PREROUTING:rule:H:CONTINUE  -4 -t raw -A PREROUTING -p udp -j TRACE',
      'raw:PREROUTING:policy:ACCEPT ',
      'filter:FORWARD:rule:H:JUMP:CHECK  -4 -t filter -A FORWARD -j CHECK',
      'filter:CHECK:rule:H:0xfffffffb  -4 -t filter -A CHECK -p udp -m udp --dport 53 -j RETURN',
      'filter:FORWARD:rule:H:ACCEPT  -4 -t filter -A FORWARD -p udp -j ACCEPT',
    ]);
  });
});

describe('iptables-restore: the kube-proxy masquerade bit', () => {
  const RULES = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-POSTROUTING - [0:0]
-A PREROUTING -p udp --dport 53 -j KUBE-MARK-MASQ
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
COMMIT
`;

  it('a marked flow is masqueraded and leaves with the bit cleared; an unmarked one keeps its source', () => {
    const l = lab('kube-proxy masquerade');
    restore(l.r, RULES);
    l.b.udp.bind(0, 53, () => {});
    l.b.udp.bind(0, 54, () => {});
    sendUdp(l.a, '10.0.2.1', { dport: 53 });
    sendUdp(l.a, '10.0.2.1', { dport: 54, sport: 40001 });
    l.sim.run(SEC);
    expectIpv4(only(l.rToB, tx, udp(dport(53))), src('10.0.2.254'), mark(0));
    expectIpv4(only(l.rToB, tx, udp(dport(54))), src('10.0.1.1'), udp(sport(40001)), mark(0));
    expect(rulePackets(l.r, 'nat', 'KUBE-POSTROUTING')).toEqual([1, 1, 1]);
    expect(rulePackets(l.r, 'nat', 'KUBE-MARK-MASQ')).toEqual([1]);
  });
});
