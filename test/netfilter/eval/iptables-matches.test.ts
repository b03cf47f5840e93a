// iptables matches evaluated on real packets: one case per match, each loading a small ruleset on the router r
// through the iptables command line and sending packets that must match (dropped) and must not (passed);
// the rule counters must have moved exactly for the matching ones.

import { describe, expect, it } from 'vitest';
import {
  checkRuleCase,
  iptables,
  lab,
  type Probe,
  pingProbe,
  type RuleCase,
  rawTcpProbe,
  resetProbe,
  rulePackets,
  SEC,
  sendUdp,
  synProbe,
  udpProbe,
  unreachableProbe,
} from './support.ts';

const ab = (options: Parameters<typeof udpProbe>[2] = {}, to = '10.0.2.1'): Probe =>
  udpProbe('a', to, options);
const ba = (options: Parameters<typeof udpProbe>[2] = {}, to = '10.0.1.1'): Probe =>
  udpProbe('b', to, options);

const CASES: RuleCase[] = [
  {
    name: '-s with a prefix',
    rules: ['iptables -A FORWARD -s 10.0.1.0/24 -j DROP'],
    steps: [
      [ab(), 'dropped'],
      [ab({ src: '10.0.3.1' }), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '! -s',
    rules: ['iptables -A FORWARD ! -s 10.0.1.0/24 -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ab({ src: '10.0.3.1' }), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-s with a dotted mask',
    rules: ['iptables -A FORWARD -s 10.0.3.0/255.255.255.0 -j DROP'],
    steps: [
      [ab({ src: '10.0.3.1' }), 'dropped'],
      [ab(), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '-d with a /25',
    rules: ['iptables -A FORWARD -d 10.0.2.0/25 -j DROP'],
    steps: [
      [ab(), 'dropped'],
      [ab({}, '10.0.4.1'), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '! -d host',
    rules: ['iptables -A FORWARD -s 10.0.1.1 ! -d 10.0.2.1 -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ab({}, '10.0.4.1'), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-p udp',
    rules: ['iptables -A FORWARD -p udp -j DROP'],
    steps: [
      [ab(), 'dropped'],
      [synProbe('a', '10.0.2.1', 80), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '! -p tcp (the RST back from b is tcp too)',
    rules: ['iptables -A FORWARD ! -p tcp -j DROP'],
    steps: [
      [resetProbe(80), 'passed'],
      [ab(), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '--sport range',
    rules: ['iptables -A FORWARD -p udp --sport 1000:1010 -j DROP'],
    steps: [
      [ab({ sport: 1000 }), 'dropped'],
      [ab({ sport: 1010 }), 'dropped'],
      [ab({ sport: 1011 }), 'passed'],
    ],
    packets: [2],
  },
  {
    name: '! --dport',
    rules: ['iptables -A FORWARD -p udp ! --dport 53 -j DROP'],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 54 }), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-i with +',
    rules: ['iptables -A FORWARD -i to-+ -p udp -j DROP'],
    steps: [
      [ab(), 'dropped'],
      [ba(), 'dropped'],
    ],
    packets: [2],
  },
  {
    name: '-i exact',
    rules: ['iptables -A FORWARD -i to-b -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ba(), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '! -o with +',
    rules: ['iptables -A FORWARD ! -o to-b+ -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ba(), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-m comment matches everything',
    rules: ['iptables -A FORWARD -p udp -m comment --comment "kubernetes service portals" -j DROP'],
    steps: [[ab(), 'dropped']],
    packets: [1],
  },
  {
    name: '-m mark --mark V/M',
    rules: [
      'iptables -t mangle -A PREROUTING -p udp --dport 53 -j MARK --set-mark 0x4001',
      'iptables -t mangle -A PREROUTING -p udp --dport 54 -j MARK --set-mark 0x8000',
      'iptables -A FORWARD -m mark --mark 0x4000/0x4000 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'dropped'],
      [ab({ dport: 54 }), 'passed'],
      [ab({ dport: 55 }), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '-m mark ! --mark V (no mask: the whole mark)',
    rules: [
      'iptables -t mangle -A PREROUTING -p udp --dport 53 -j MARK --set-mark 0x4001',
      'iptables -t mangle -A PREROUTING -p udp --dport 54 -j MARK --set-mark 0x4000',
      'iptables -A FORWARD -p udp -m mark ! --mark 0x4000 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'dropped'],
      [ab({ dport: 54 }), 'passed'],
      [ab({ dport: 55 }), 'dropped'],
    ],
    packets: [2],
  },
  {
    name: '-m connmark: the mark of the connection, also seen by the reply',
    rules: [
      'iptables -t mangle -A PREROUTING -i to-a -p udp --dport 53 -j CONNMARK --set-mark 0x7',
      'iptables -A FORWARD -i to-b -m connmark --mark 0x7 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ba({ sport: 53, dport: 40000 }), 'dropped'],
      [ab({ dport: 54 }), 'passed'],
      [ba({ sport: 54, dport: 40000 }), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '--ctstate NEW',
    rules: ['iptables -A FORWARD -m conntrack --ctstate NEW -j DROP'],
    steps: [[ab(), 'dropped']],
    packets: [1],
  },
  {
    name: '--ctstate ESTABLISHED: the answer to a datagram, and the next one',
    rules: ['iptables -A FORWARD -p udp -m conntrack --ctstate ESTABLISHED -j DROP'],
    steps: [
      [ba({ sport: 53, dport: 40000 }), 'passed'],
      [ab(), 'dropped'],
      [ba({ sport: 53, dport: 40000 }), 'dropped'],
      [ab({ sport: 40001 }), 'passed'],
    ],
    packets: [2],
  },
  {
    name: '--ctstate RELATED: the port unreachable about a datagram',
    rules: ['iptables -A FORWARD -m conntrack --ctstate RELATED -j DROP'],
    steps: [[unreachableProbe(9), 'dropped']],
    packets: [1],
  },
  {
    name: '--ctstate INVALID: a SYN+FIN segment',
    rules: ['iptables -A FORWARD -m conntrack --ctstate INVALID -j DROP'],
    steps: [
      [rawTcpProbe({ flags: 'SF', sport: 40001 }), 'dropped'],
      [synProbe('a', '10.0.2.1', 80), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '! --ctstate NEW,ESTABLISHED',
    rules: ['iptables -A FORWARD -m conntrack ! --ctstate NEW,ESTABLISHED -j DROP'],
    steps: [
      [ab(), 'passed'],
      [unreachableProbe(9), 'dropped'],
    ],
    packets: [1],
  },
  {
    // DNAT is a virtual --ctstate (xt_conntrack's XT_CONNTRACK_STATE_DNAT); `--ctstatus DNAT` is refused as by
    // iptables 1.8.9 ("Bad ctstatus"): the statuses are NONE, EXPECTED, SEEN_REPLY, ASSURED, CONFIRMED.
    name: '--ctstate DNAT',
    rules: [
      'iptables -t nat -A PREROUTING -d 10.0.2.99 -p udp -j DNAT --to-destination 10.0.2.1',
      'iptables -A FORWARD -m conntrack --ctstate DNAT -j DROP',
    ],
    steps: [
      [ab({}, '10.0.2.1'), 'passed'],
      [
        {
          label: 'udp a > 10.0.2.99:53 (DNAT to b)',
          send: (l) => {
            if (!l.b.udp.isBound(53)) l.b.udp.bind(0, 53, () => {});
            sendUdp(l.a, '10.0.2.99', { sport: 40001 });
          },
          arrivals: (l) => l.b.udp.stats.inDatagrams,
        },
        'dropped',
      ],
    ],
    packets: [1],
  },
  {
    name: '--ctstatus SEEN_REPLY',
    rules: ['iptables -A FORWARD -i to-a -m conntrack --ctstatus SEEN_REPLY -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ab(), 'passed'],
      [ba({ sport: 53, dport: 40000 }), 'passed'],
      [ab(), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-m state --state NEW',
    rules: ['iptables -A FORWARD -i to-b -m state --state NEW -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ba({ sport: 53, dport: 40000 }), 'passed'],
      [ba({ sport: 54, dport: 40000 }), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-m addrtype --dst-type LOCAL (raw PREROUTING)',
    rules: ['iptables -t raw -A PREROUTING -p udp -m addrtype --dst-type LOCAL -j DROP'],
    steps: [
      [ab({}, '10.0.2.254'), 'dropped'],
      [ab({}, '10.0.2.1'), 'passed'],
    ],
    packets: [1],
    chain: ['raw', 'PREROUTING'],
  },
  {
    name: '-m addrtype ! --dst-type LOCAL',
    rules: ['iptables -t raw -A PREROUTING -p udp -m addrtype ! --dst-type LOCAL -j DROP'],
    steps: [
      [ab({}, '10.0.2.254'), 'passed'],
      [ab({}, '10.0.2.1'), 'dropped'],
    ],
    packets: [1],
    chain: ['raw', 'PREROUTING'],
  },
  {
    name: '-m addrtype --src-type LOCAL (mangle POSTROUTING)',
    rules: ['iptables -t mangle -A POSTROUTING -p udp -m addrtype --src-type LOCAL -j DROP'],
    steps: [
      [udpProbe('r', '10.0.2.1', { src: '10.0.2.254' }), 'dropped'],
      [ab(), 'passed'],
    ],
    packets: [1],
    chain: ['mangle', 'POSTROUTING'],
  },
  {
    name: '-m statistic --mode nth --every 3',
    // On Linux 6.18, datagrams 0..7 through OUTPUT with --every 3 --packet 0: the first is dropped.
    rules: ['iptables -A FORWARD -p udp -m statistic --mode nth --every 3 --packet 0 -j DROP'],
    steps: [
      [ab(), 'dropped'],
      [ab(), 'passed'],
      [ab(), 'passed'],
      [ab(), 'dropped'],
      [ab(), 'passed'],
      [ab(), 'passed'],
    ],
    packets: [2],
  },
  {
    name: '-m statistic --mode nth --every 2 --packet 1',
    // Linux 6.18 passed datagram 0 and dropped datagram 1 (--every 5 --packet 3: 0, 1, 2 passed, 3 dropped).
    rules: ['iptables -A FORWARD -p udp -m statistic --mode nth --every 2 --packet 1 -j DROP'],
    steps: [
      [ab(), 'passed'],
      [ab(), 'dropped'],
      [ab(), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '-m multiport --dports with a range',
    rules: ['iptables -A FORWARD -p udp -m multiport --dports 53,1000:1010 -j DROP'],
    steps: [
      [ab({ dport: 53 }), 'dropped'],
      [ab({ dport: 1005 }), 'dropped'],
      [ab({ dport: 54 }), 'passed'],
    ],
    packets: [2],
  },
  {
    name: '-m multiport --sports',
    rules: ['iptables -A FORWARD -p udp -m multiport --sports 40000,40002 -j DROP'],
    steps: [
      [ab({ sport: 40002 }), 'dropped'],
      [ab({ sport: 40001 }), 'passed'],
    ],
    packets: [1],
  },
  {
    name: '-m multiport ! --ports (source or destination)',
    rules: ['iptables -A FORWARD -p udp -m multiport ! --ports 53,7 -j DROP'],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ sport: 7, dport: 54 }), 'passed'],
      [ab({ dport: 54 }), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-m recent --set / --rcheck --seconds on the virtual clock',
    rules: [
      'iptables -A FORWARD -p udp --dport 1 -m recent --name knock --set',
      'iptables -A FORWARD -p udp --dport 53 -m recent --name knock --rcheck --seconds 10 -j DROP',
    ],
    steps: [
      [ab({ dport: 53 }), 'passed'],
      [ab({ dport: 1 }), 'passed'],
      [ab({ dport: 53 }), 'dropped'],
      // Each probe runs the clock one second: 9 s after --set, then 11 s.
      { wait: 7 },
      [ab({ dport: 53 }), 'dropped'],
      { wait: 1 },
      [ab({ dport: 53 }), 'passed'],
    ],
    packets: [1, 2],
  },
  {
    name: '-m recent --rdest: the list keeps destinations',
    rules: [
      'iptables -A FORWARD -p udp --dport 1 -m recent --name seen --rdest --set',
      'iptables -A FORWARD -p udp --dport 53 -m recent --name seen --rdest --rcheck -j DROP',
    ],
    steps: [
      [ab({ dport: 1 }, '10.0.4.1'), 'passed'],
      [ab({ dport: 53 }, '10.0.2.1'), 'passed'],
      [ab({ dport: 53 }, '10.0.4.1'), 'dropped'],
    ],
    packets: [1, 1],
  },
  {
    name: '-m tcp --syn',
    rules: ['iptables -A FORWARD -p tcp --syn -j DROP'],
    steps: [
      [rawTcpProbe({ flags: '.', sport: 40001 }), 'passed'],
      [synProbe('a', '10.0.2.1', 80), 'dropped'],
    ],
    packets: [1],
  },
  {
    name: '-m tcp --tcp-flags SYN,RST RST (the answer to a SYN)',
    rules: ['iptables -A FORWARD -p tcp --tcp-flags SYN,RST RST -j DROP'],
    steps: [
      [synProbe('a', '10.0.2.1', 80), 'passed'],
      [resetProbe(81), 'dropped'],
    ],
    // Two RSTs: the one b answered the first SYN with, and the probe's.
    packets: [2],
  },
  {
    name: '-m tcp ! --tcp-flags ALL SYN',
    rules: ['iptables -A FORWARD -i to-a -p tcp ! --tcp-flags ALL SYN -j DROP'],
    steps: [
      [synProbe('a', '10.0.2.1', 80), 'passed'],
      [rawTcpProbe({ flags: 'S.', sport: 40001 }), 'dropped'],
      [rawTcpProbe({ flags: 'SF', sport: 40002 }), 'dropped'],
    ],
    packets: [2],
  },
  {
    name: '-m icmp --icmp-type echo-request',
    rules: ['iptables -A FORWARD -p icmp --icmp-type echo-request -j DROP'],
    steps: [[pingProbe(), 'dropped']],
    packets: [1],
  },
  {
    name: '-m icmp --icmp-type echo-reply (the request passes)',
    rules: ['iptables -A FORWARD -p icmp --icmp-type 0 -j DROP'],
    steps: [
      [pingProbe(), 'passed'],
      [pingProbe({ reply: true }), 'dropped'],
    ],
    packets: [2],
  },
  {
    name: '-m icmp --icmp-type port-unreachable (type/code)',
    rules: ['iptables -A FORWARD -p icmp --icmp-type 3/3 -j DROP'],
    steps: [
      [pingProbe({ reply: true }), 'passed'],
      [unreachableProbe(9), 'dropped'],
    ],
    packets: [1],
  },
];

describe('iptables matches on real packets', () => {
  for (const c of CASES) it(c.name, () => checkRuleCase(c));
});

describe('-m statistic --mode random', () => {
  /** 1000 datagrams through `--probability 0.5`: how many the rule dropped (its counter and b's view agree). */
  function dropped(seed: string): number {
    const l = lab(seed);
    l.b.udp.bind(0, 53, () => {});
    iptables(l.r, 'iptables -A FORWARD -p udp -m statistic --mode random --probability 0.5 -j DROP');
    for (let i = 0; i < 1000; i++) {
      sendUdp(l.a, '10.0.2.1', { sport: 10000 + i });
      l.sim.run(SEC / 1000);
    }
    l.sim.run(SEC);
    const [packets] = rulePackets(l.r, 'filter', 'FORWARD');
    expect(l.b.udp.stats.inDatagrams).toBe(1000 - packets!);
    expect(l.r.ipv4.drops.get('NETFILTER_DROP')).toBe(packets);
    return packets!;
  }

  it('drops close to half of 1000 packets, the same number for the same seed', () => {
    const first = dropped('statistic-1');
    // Binomial(1000, 0.5): the standard deviation is 15.8, so ±60 is almost four of them.
    expect(first).toBeGreaterThan(440);
    expect(first).toBeLessThan(560);
    expect(dropped('statistic-1')).toBe(first);
    expect(dropped('statistic-2')).not.toBe(first);
  });
});
