// nftables' bridge, netdev and arp families on the kernel and on packetlab: a bridge-family filter on a bridge
// between two namespaces (prerouting trace, a forward drop, input/output/postrouting counters, ARP bridged), and
// netdev ingress/egress chains with an arp table on a host's veth (an ingress drop; counters: ingress and arp
// input count the frame without its Ethernet header, egress and arp output with it), and crafted 802.1Q-tagged
// frames bridged through vlan matches (counters without the tag). Counters (`nft list
// ruleset`), `nft monitor trace`, the UDP peers' lines, `ip -s link` and every captured frame are compared.
// (No flowtable case: this machine's kernel is built without CONFIG_NF_FLOW_TABLE; docs/deviations.md.)

import { describe, expect, it } from 'vitest';
import { ethernet, ip, mac, udp } from '../support/frames.ts';
import { differential, outputOf } from './harness.ts';
import { ScenarioBuilder } from './scenario.ts';

const BRIDGE_RULESET = `table bridge filter {
  chain pre {
    type filter hook prerouting priority -200; policy accept;
    udp dport { 8000, 9999 } meta nftrace set 1
    ether type arp counter
  }
  chain fw {
    type filter hook forward priority 0; policy accept;
    udp dport 9999 counter drop
    ip saddr 10.9.0.1 ip daddr 10.9.0.2 udp dport 8000 counter accept
    arp operation request counter
    arp operation reply counter
    counter
  }
  chain inp {
    type filter hook input priority filter; policy accept;
    counter
  }
  chain out {
    type filter hook output priority out; policy accept;
    counter
  }
  chain post {
    type filter hook postrouting priority 0; policy accept;
    ether type ip counter
    counter
  }
}
`;

/** With br_netfilter (bridge-nf-call-iptables=1), bridged IPv4 meets the ip family too, between the bridge chains. */
const BR_NETFILTER_RULESET = `table ip brnf {
  chain pre {
    type filter hook prerouting priority raw; policy accept;
    udp dport 8000 counter
  }
  chain fw2 {
    type filter hook forward priority filter; policy accept;
    udp dport 8000 counter
  }
  chain po {
    type filter hook postrouting priority srcnat; policy accept;
    udp dport 8000 counter
  }
}
table bridge late {
  chain pre {
    type filter hook prerouting priority 5; policy accept;
    udp dport 8000 counter
  }
  chain fw2 {
    type filter hook forward priority 10; policy accept;
    udp dport 8000 counter
  }
}
`;

const NETDEV_RULESET = `table netdev edge {
  chain in {
    type filter hook ingress device "e0" priority 0; policy accept;
    udp dport { 8000, 9999 } meta nftrace set 1
    udp dport 9999 counter drop
    ether type arp counter
    counter
  }
  chain eg {
    type filter hook egress device "e0" priority filter; policy accept;
    ether type arp counter
    udp sport 8000 counter
  }
}
table arp a {
  chain i {
    type filter hook input priority 0; policy accept;
    arp operation request arp daddr ip 10.9.0.2 counter
    counter
  }
  chain o {
    type filter hook output priority filter; policy accept;
    arp operation reply counter
  }
}
`;

/** Hosts a (10.9.0.1) and b (10.9.0.2), each with one veth to the bridge br0 in namespace sw. */
function bridged(name: string): ScenarioBuilder {
  return new ScenarioBuilder(name)
    .namespace('a')
    .namespace('b')
    .namespace('sw')
    .bridge('sw', 'br0')
    .veth('a', 'e0', 'sw', 'p1')
    .veth('b', 'e0', 'sw', 'p2')
    .master('sw', 'p1', 'br0')
    .master('sw', 'p2', 'br0')
    .up('sw', 'br0', 'p1', 'p2')
    .addr('a', '10.9.0.1/24', 'e0')
    .addr('b', '10.9.0.2/24', 'e0')
    .up('a', 'e0')
    .up('b', 'e0');
}

describe('differential: nftables families', () => {
  it('a bridge-family filter forwards, drops and traces bridged frames', async (ctx) => {
    const scenario = bridged('nft-bridge')
      .nft('sw', BRIDGE_RULESET, 'bridge.nft')
      .nft('sw', BR_NETFILTER_RULESET, 'brnf.nft')
      .capture('b', 'e0')
      .monitor('sw', 'nft', 'monitor', 'trace')
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.9.0.2',
        count: 2,
        payload: 'bridged',
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41001 },
        server: { ns: 'b', bind: '0.0.0.0', port: 9999 },
        dst: '10.9.0.2',
        count: 1,
        payload: 'dropped',
        timeoutMs: 300,
      })
      .observe('sw', 'nft', 'list', 'ruleset')
      .observe('sw', 'ip', '-s', 'link', 'show', 'dev', 'p2')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const listing = outputOf(side, 'sw: nft list ruleset');
      expect(listing, side.side).toContain('udp dport 9999 counter packets 1 bytes 37 drop');
      expect(outputOf(side, 'sw: nft monitor trace'), side.side).toContain(
        'bridge filter fw rule udp dport 9999',
      );
    }
  });

  it('netdev ingress drops before the stack, egress counts whole frames, arp chains see ARP', async (ctx) => {
    const scenario = bridged('nft-netdev')
      .nft('b', NETDEV_RULESET, 'netdev.nft')
      .capture('b', 'e0')
      .monitor('b', 'nft', 'monitor', 'trace')
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41000 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.9.0.2',
        count: 2,
        payload: 'edge',
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41001 },
        server: { ns: 'b', bind: '0.0.0.0', port: 9999 },
        dst: '10.9.0.2',
        count: 1,
        payload: 'dropped',
        timeoutMs: 300,
      })
      .observe('b', 'nft', 'list', 'ruleset')
      .observe('b', 'ip', '-s', 'link', 'show', 'dev', 'e0')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'b: nft list ruleset'), side.side).toContain(
        'udp dport 9999 counter packets 1 bytes 37 drop',
      );
      const sends = side.traffic.filter((o) => o.label.startsWith('a: udp send'));
      expect(sends.map((o) => o.stdout).join(''), side.side).toContain('timeout');
    }
  });

  it('802.1Q-tagged frames bridged: vlan id, pcp and the inner IPv4 match, counters leave the tag out', async (ctx) => {
    const builder = bridged('nft-vlan').nft(
      'sw',
      `table bridge v {
  chain fw {
    type filter hook forward priority 0; policy accept;
    vlan id 10 vlan pcp 3 ip daddr 10.9.0.2 udp dport 7777 counter
    vlan id 20 counter drop
    ether type vlan counter
    vlan type ip counter
  }
}
`,
      'vlan.nft',
    );
    const tagged = (vid: number, pcp: number, dstPort: number): Uint8Array =>
      ethernet(
        {
          dst: mac(builder.macOf('b', 'e0')),
          src: mac(builder.macOf('a', 'e0')),
          ethertype: 0x0800,
          vlan: { pcp, dei: false, vid },
        },
        udp({
          src: ip('10.9.0.1'),
          dst: ip('10.9.0.2'),
          srcPort: 40000,
          dstPort,
          payload: new TextEncoder().encode('tagged'),
          ident: vid,
        }),
      );
    const scenario = builder
      .capture('b', 'e0')
      .frames('a', 'e0', [tagged(10, 3, 7777), tagged(10, 0, 7777), tagged(20, 3, 7777)])
      .observe('sw', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'sw: nft list ruleset'), side.side).toContain(
        'vlan id 20 counter packets 1 bytes 34 drop',
      );
  });
});
