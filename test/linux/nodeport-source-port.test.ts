// A node's own source port inside the NodePort range, on the kernel and on packetlab (scenarios/collisions.ts,
// collision-ports, replays what these cases show). Node `n` (172.18.0.3) has a NodePort-style DNAT (`fib daddr type
// local tcp dport 30080 dnat to 10.244.1.9:8000`) and masquerades its pod; `x` (172.18.0.1) is outside.
// - connect() draws its port from ip_local_port_range, NodePorts included; ip_local_reserved_ports takes them out
//   (inet_hash_connect skips inet_is_local_reserved_port): EADDRNOTAVAIL when the range holds nothing else.
// - A connection from n's port 30080 works: its replies match its conntrack entry, and the nat table only sees a
//   connection's first packet, so the DNAT never applies to them; the NodePort answers other clients meanwhile.
// - A segment to 30080 that conntrack does not know (the entry expired or was deleted) is picked up mid-stream
//   (nf_conntrack_tcp_loose), goes through nat PREROUTING as a new connection and is DNATed to the pod, which
//   answers with a reset: the peer's connection is torn down, the node's socket never hears of it.
// - MASQUERADE keeps a pod's source port 31000 although the node reserves 30000-32767: NAT does not read
//   ip_local_reserved_ports (nf_nat_l4proto_unique_tuple), the pod's namespace has its own.

import { describe, expect, it } from 'vitest';
import { ETHERTYPE_IPV4 } from '../../src/wire/ethernet.ts';
import { ethernet, ip, mac, tcp } from '../support/frames.ts';
import { dissectFrame } from './dissect.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import { ScenarioBuilder } from './scenario.ts';

const NODE_RULES = `table ip nat {
	chain prerouting {
		type nat hook prerouting priority dstnat; policy accept;
		fib daddr type local tcp dport 30080 dnat to 10.244.1.9:8000
	}
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		ip saddr 10.244.1.0/24 oifname "eth0" masquerade
	}
}
`;

/** The TCP segments of a capture as `SPORT>DPORT FLAGS`. */
function tcpAt(side: Observed, label: string): string[] {
  const capture = side.captures.find((c) => c.label === label);
  if (capture === undefined) throw new Error(`no capture ${label}`);
  return capture.frames.flatMap((frame) => {
    const fields = dissectFrame(frame);
    const value = (name: string) => fields.find((f) => f.name.endsWith(name))?.value;
    const flags = value('tcp.flags');
    return flags === undefined ? [] : [`${value('tcp.srcPort')}>${value('tcp.dstPort')} ${flags}`];
  });
}

/** x — eth0 — n — veth-pod — pod (eth0), the node forwarding and translating. */
function node(name: string): ScenarioBuilder {
  return new ScenarioBuilder(name)
    .namespace('x')
    .namespace('n')
    .namespace('pod')
    .veth('x', 'eth0', 'n', 'eth0')
    .veth('n', 'veth-pod', 'pod', 'eth0')
    .addr('x', '172.18.0.1/24', 'eth0')
    .addr('n', '172.18.0.3/24', 'eth0')
    .addr('n', '10.244.1.1/24', 'veth-pod')
    .addr('pod', '10.244.1.9/24', 'eth0')
    .up('x', 'eth0')
    .up('n', 'eth0', 'veth-pod')
    .up('pod', 'eth0')
    .route('pod', 'add', 'default', 'via', '10.244.1.1')
    .route('x', 'add', '10.244.0.0/16', 'via', '172.18.0.3')
    .sysctl('n', 'net.ipv4.ip_forward', 1)
    .nft('n', NODE_RULES);
}

describe('differential: a node source port in the NodePort range', () => {
  it('connect() takes 30080 when ip_local_port_range holds it, and skips it once reserved', async (ctx) => {
    const scenario = node('nodeport-connect-range')
      .sysctl('n', 'net.ipv4.ip_local_port_range', '30080 30080')
      .ports({
        client: 'n',
        server: { ns: 'x', ports: [5044] },
        range: [30080, 30080],
        actions: [
          { kind: 'connect', dst: '172.18.0.1', port: 5044, count: 1, timeoutMs: 2_000 },
          { kind: 'close' },
          { kind: 'sysctl', key: 'net.ipv4.ip_local_reserved_ports', value: '30000-32767' },
          { kind: 'connect', dst: '172.18.0.1', port: 5045, count: 1, timeoutMs: 2_000 },
        ],
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const lines = outputOf(side, 'n: ports');
      expect(lines, side.side).toMatch(/^connect 5044 even in range$/m);
      expect(lines, side.side).toMatch(/^connect 5045 error EADDRNOTAVAIL$/m);
    }
  });

  it('a tracked connection from 30080 keeps its replies; an untracked segment to 30080 is DNATed to the pod and reset; MASQUERADE ignores reserved ports', async (ctx) => {
    const b = node('nodeport-source-port').sysctl('n', 'net.ipv4.ip_local_reserved_ports', '30000-32767');
    const macX = b.macOf('x', 'eth0');
    const macN = b.macOf('n', 'eth0');
    b.neigh('n', 'add', '172.18.0.1', 'lladdr', macX, 'dev', 'eth0', 'nud', 'permanent');
    b.capture('x', 'eth0').capture('pod', 'eth0');
    // The node's own connection, bound to 30080 (bind() ignores the reservation), echoed twice by x.
    b.tcp({
      client: { ns: 'n', bind: '0.0.0.0', port: 30080 },
      server: { ns: 'x', bind: '0.0.0.0', port: 5044 },
      dst: '172.18.0.1',
      count: 2,
      payload: 'subscribe',
    });
    // Meanwhile the NodePort answers a client of its own.
    b.tcp({
      client: { ns: 'x', bind: '0.0.0.0', port: 40000 },
      server: { ns: 'pod', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.3',
      dstPort: 30080,
      count: 1,
      payload: 'GET /sante',
    });
    // x's next segment of a connection conntrack no longer knows (port 5045: not the TIME_WAIT entry above).
    b.frames('x', 'eth0', [
      ethernet(
        { dst: mac(macN), src: mac(macX), ethertype: ETHERTYPE_IPV4 },
        tcp({
          src: ip('172.18.0.1'),
          dst: ip('172.18.0.3'),
          srcPort: 5045,
          dstPort: 30080,
          seq: 1_000_000,
          ack: 2_000_000,
          flags: { ack: true, psh: true },
          payload: new TextEncoder().encode('config v2\n'),
          ident: 5045,
        }),
      ),
    ]);
    // A pod's datagram from 31000, masqueraded on the node that reserves 30000-32767.
    b.udp({
      client: { ns: 'pod', bind: '0.0.0.0', port: 31000 },
      server: { ns: 'x', bind: '0.0.0.0', port: 9000 },
      dst: '172.18.0.1',
      count: 1,
      payload: 'pod',
    });
    b.observe('n', 'conntrack', '-L');
    const result = await differential(ctx, b.build());
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const conntrack = outputOf(side, 'n: conntrack -L');
      // The pod got the stray segment and reset it; its one-packet entry died with the reset (the first reply is
      // a RST: nf_conntrack_proto_tcp.c kills the entry at once), so `conntrack -L` no longer shows it.
      expect(tcpAt(side, 'pod/eth0'), side.side).toEqual(
        expect.arrayContaining(['5045>8000 0x18', '8000>5045 0x04']),
      );
      expect(tcpAt(side, 'x/eth0'), side.side).toEqual(expect.arrayContaining(['30080>5045 0x04']));
      expect(conntrack, side.side).not.toMatch(/sport=5045/);
      expect(conntrack, side.side).toMatch(
        /src=172\.18\.0\.3 dst=172\.18\.0\.1 sport=30080 dport=5044 .*src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=5044 dport=30080 /,
      );
      expect(conntrack, side.side).toMatch(
        /src=10\.244\.1\.9 dst=172\.18\.0\.1 sport=31000 dport=9000 .*src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=9000 dport=31000 /,
      );
      expect(outputOf(side, 'n: tcp send'), side.side).toContain('reply "subscribe 2"');
    }
  });
});
