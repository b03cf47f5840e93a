// TCP exchanges on both sides: the handshake with Linux's options and windows, the ACK policy (quick ACKs, then
// replies carrying them), the three-segment close; a port without a listener; REJECT with tcp-reset and ICMP;
// a dropped SYN retransmitted; conntrack after TCP and UDP; a TCP ClusterIP through kube-proxy's DNAT.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { differential, outputOf } from './harness.ts';
import { segmentLadder } from './tcp-segments.ts';
import { lesson, REMOTE_ENDPOINT_SERVICE, twoHosts } from './topologies.ts';

const CLIENT = { ns: 'a', bind: '10.0.0.1', port: 40000 } as const;

const REJECT_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 81 -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 82 -j REJECT
-A INPUT -p tcp -m tcp --dport 83 -j REJECT --reject-with icmp-host-prohibited
-A INPUT -p tcp -m tcp --dport 84 -j DROP
COMMIT
`;

/** A stateful filter, as on most hosts: it makes conntrack follow every flow of the namespace. */
const STATEFUL_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -p tcp -m tcp --dport 8080 -m conntrack --ctstate NEW -j ACCEPT
-A INPUT -p udp -m udp --dport 8000 -m conntrack --ctstate NEW -j ACCEPT
COMMIT
`;

describe('differential: TCP', () => {
  it('an echo exchange of three messages over a veth: every segment, both peers', async (ctx) => {
    const scenario = twoHosts('tcp-echo')
      .capture('a', 'veth-a')
      .tcp({ client: CLIENT, server: { ns: 'b', bind: '0.0.0.0', port: 8080 }, dst: '10.0.0.2', count: 3 })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: tcp send')).toContain('reply "packetlab 3"');
  });

  it.for([
    ['0.0.0.0', 'connect() picks it: __inet_hash_connect tries even ports first', 0],
    ['10.0.0.1', 'bind() to the address picks it: inet_csk_get_port tries odd ports first', 1],
  ] as const)('a client bound to %s without a port: %s', async ([bind, _why, parity], ctx) => {
    const scenario = twoHosts(`tcp-ephemeral-${parity}`)
      .capture('a', 'veth-a')
      .tcp({
        client: { ns: 'a', bind, port: 0 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
      })
      .build();
    // The port is the kernel's keyed hash on one side and the seed on the other: it reads as NAT in the comparison.
    const result = await differential(ctx, scenario, { natPorts: [8080] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const accepted = /^accept 10\.0\.0\.1:(\d+)$/m.exec(outputOf(side, 'b: tcp echo'));
      const port = Number(accepted?.[1]);
      expect(port, side.side).toBeGreaterThanOrEqual(32768);
      expect(port, side.side).toBeLessThanOrEqual(60999);
      expect(port % 2, side.side).toBe(parity);
    }
  });

  it('messages of 502 bytes: under rcv_mss, windows stay where the handshake put them on both sides', async (ctx) => {
    const scenario = twoHosts('tcp-502')
      .capture('a', 'veth-a')
      .tcp({
        client: CLIENT,
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        count: 3,
        payload: 'x'.repeat(500),
      })
      .build();
    await differential(ctx, scenario);
  });

  it('SO_KEEPALIVE after one echo (setKeepAlive(true, 1000)): a probe at snd_una - 1 each idle second, answered with the window', async (ctx) => {
    const scenario = twoHosts('tcp-keepalive')
      .capture('a', 'veth-a')
      .tcp({
        client: CLIENT,
        server: { ns: 'b', bind: '0.0.0.0', port: 8080 },
        dst: '10.0.0.2',
        count: 1,
        keepAliveMs: 1000,
        idleMs: 3500,
      })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    // Probes at snd_una - 1 (the echo ended at 12) each second of the 3.5 s, every one answered.
    const ladder = segmentLadder(result.linux.captures[0]?.frames ?? []).segments;
    const probes = ladder.filter((line) => line === '40000>8080 11:11 . ack 12 win 63');
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(ladder.filter((line) => line === '8080>40000 12:12 . ack 12 win 64')).toHaveLength(probes.length);
  }, 30_000);

  it('over lo: ping 127.0.0.1 and a TCP echo at MTU 65536 (MSS 65495, capped by IPV4_MAX_PMTU; SYN-ACK window 65483)', async (ctx) => {
    const scenario = twoHosts('tcp-loopback')
      .capture('a', 'lo')
      .ping('a', '127.0.0.1', { count: 1 })
      .tcp({
        client: { ns: 'a', bind: '127.0.0.1', port: 40000 },
        server: { ns: 'a', bind: '0.0.0.0', port: 8080 },
        dst: '127.0.0.1',
        count: 2,
      })
      .build();
    await differential(ctx, scenario);
  });

  it('a port without a listener, REJECT tcp-reset, port unreachable, host prohibited, and DROP', async (ctx) => {
    const scenario = twoHosts('tcp-refused')
      .iptablesRestore('b', REJECT_RULES)
      .capture('a', 'veth-a')
      .tcp({ client: CLIENT, dst: '10.0.0.2', dstPort: 80 })
      .tcp({ client: { ...CLIENT, port: 40001 }, dst: '10.0.0.2', dstPort: 81 })
      .tcp({ client: { ...CLIENT, port: 40002 }, dst: '10.0.0.2', dstPort: 82 })
      .tcp({ client: { ...CLIENT, port: 40003 }, dst: '10.0.0.2', dstPort: 83 })
      // The SYN goes again after the initial RTO (1 s); the client gives up before the second retry.
      .tcp({ client: { ...CLIENT, port: 40004 }, dst: '10.0.0.2', dstPort: 84, timeoutMs: 1500 })
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'a: tcp send 10.0.0.1:40001')).toContain('error ECONNREFUSED');
    expect(outputOf(result.linux, 'a: tcp send 10.0.0.1:40003')).toContain('error EHOSTUNREACH');
    expect(outputOf(result.linux, 'a: tcp send 10.0.0.1:40004')).toContain('timeout connect');
  }, 30_000);

  it('conntrack -L after a TCP exchange (TIME_WAIT) and a UDP one, with a stateful filter', async (ctx) => {
    const scenario = twoHosts('tcp-conntrack')
      .iptablesRestore('b', STATEFUL_RULES)
      .tcp({ client: CLIENT, server: { ns: 'b', bind: '0.0.0.0', port: 8080 }, dst: '10.0.0.2', count: 2 })
      .udp({
        client: { ns: 'a', bind: '10.0.0.1', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.0.0.2',
        count: 2,
      })
      .observe('b', 'conntrack', '-L')
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'b: conntrack -L')).toContain('TIME_WAIT');
  });

  it('conntrack -E while a TCP exchange opens and closes: every state change of the tracker', async (ctx) => {
    const scenario = twoHosts('tcp-ct-events')
      .iptablesRestore('b', STATEFUL_RULES)
      .monitor('b', 'conntrack', '-E')
      .tcp({ client: CLIENT, server: { ns: 'b', bind: '0.0.0.0', port: 8080 }, dst: '10.0.0.2', count: 2 })
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'b: conntrack -E')).toContain('[UPDATE] tcp      6 120 TIME_WAIT');
  });

  it('a TCP ClusterIP: kube-proxy DNAT to a pod on the other node, over VXLAN, with conntrack -E and -L', async (ctx) => {
    const scenario = lesson('tcp-clusterip', { pods: 'bridge', nodes: 'vxlan' })
      .iptablesRestore('w1', kubeProxyNatRules([REMOTE_ENDPOINT_SERVICE]))
      .monitor('w1', 'conntrack', '-E')
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .tcp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '10.96.40.12',
        dstPort: 80,
        count: 2,
        payload: 'GET /sante',
      })
      .observe('w1', 'conntrack', '-L')
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'remote: tcp echo')).toContain('accept 10.244.1.5:41234');
  });
});
