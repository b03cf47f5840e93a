// Hairpin masquerade on the kernel and on packetlab: a pod calls a ClusterIP whose only endpoint is itself. kube-proxy's
// rules DNAT the call back to the pod and mark it (the KUBE-SEP chain's `-s ENDPOINT` rule), so KUBE-POSTROUTING
// masquerades it with --random-fully: the pod sees the call from the node's cni0 address and a port the NAT chose.
//
// Both run br_netfilter (bridge-nf-call-iptables=1, as on a Kubernetes node): the call's PREROUTING runs at bridge
// level, and a DNAT to an address behind the same bridge is bridged back out, not routed
// (br_nf_pre_routing_finish_bridge): without hairpin mode on the pod's port the bridge drops it (should_deliver),
// and with it the frame keeps its TTL and the pod's own source MAC. Captured on the pod's bridge port (the node's
// view, what lesson-case 4's `tcpdump -ni any` reads), each call comes in for the Service and goes back out the same
// port from cni0's address, frame for frame on both sides.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec } from '../../scenarios/kube-proxy-iptables.ts';
import { MASQ_AGENT_RULES } from '../../src/k8s/lesson.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import type { ScenarioBuilder } from './scenario.ts';
import { lesson } from './topologies.ts';

/** A UDP Service whose only endpoint is the pod `local` (10.244.1.9). */
const SERVICE: ServiceSpec = {
  servicePort: 'default/hairpin:udp',
  protocol: 'udp',
  clusterIp: '10.96.40.13',
  port: 80,
  nodePort: undefined,
  endpoints: ['10.244.1.9:8000'],
  clusterCidr: '10.244.0.0/16',
};

/** The ports no NAT chose; the masqueraded source port is the kernel's or packetlab's random pick. */
const FIXED_PORTS = [41234, 80, 8000];

/** w1 with kube-proxy's and ip-masq-agent's rules; `local` calls the Service twice. */
function hairpin(name: string, hairpinMode: boolean, atPort = false): ScenarioBuilder {
  const b = lesson(name, { pods: 'bridge', nodes: 'direct' })
    .iptablesRestore('w1', kubeProxyNatRules([SERVICE]))
    .command('w1', ['iptables-restore', '--noflush'], MASQ_AGENT_RULES);
  // kubelet's hairpinMode=hairpin-veth: the pod's bridge port may send a frame back where it came from.
  if (hairpinMode) b.run('w1', 'bridge', 'link', 'set', 'dev', 'veth-local', 'hairpin', 'on');
  // The node's view (what `tcpdump -ni any` shows on it): the pod's bridge port, both ways.
  if (atPort) b.capture('w1', 'veth-local');
  return b
    .capture('local', 'eth0')
    .udp({
      client: { ns: 'local', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'local', bind: '0.0.0.0', port: 8000 },
      dst: '10.96.40.13',
      dstPort: 80,
      count: 2,
      payload: 'hairpin',
      // Without hairpin mode the kernel's calls time out: no need to wait long for that.
      timeoutMs: hairpinMode ? 1000 : 400,
    })
    .observe('w1', 'iptables-save', '-c', '-t', 'nat')
    .observe('w1', 'conntrack', '-L');
}

/** The source port the pod's echo server saw the first call from. */
function hairpinPort(observed: Observed): number {
  const match = /^from 10\.244\.1\.1:(\d+) "hairpin 1"$/m.exec(outputOf(observed, 'local: udp echo'));
  if (match === null) throw new Error(`${observed.side}: the pod did not see the call from cni0's address`);
  return Number(match[1]);
}

describe('differential: hairpin masquerade', () => {
  it('with hairpin mode, a pod calling its own ClusterIP sees the call from cni0 (10.244.1.1), port remapped', async (ctx) => {
    const result = await differential(ctx, hairpin('hairpin', true).build(), { natPorts: FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'local: udp send'), side.side).toContain('reply from 10.96.40.13:80 "hairpin 2"');
      const port = hairpinPort(side);
      expect(port, side.side).toBeGreaterThanOrEqual(1024);
      expect(port, side.side).toBeLessThanOrEqual(65535);
    }
  });

  it("on the pod's bridge port: the call comes in for the Service and goes back out from 10.244.1.1, never routed", async (ctx) => {
    const result = await differential(ctx, hairpin('hairpin-port', true, true).build(), {
      natPorts: FIXED_PORTS,
    });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'local: udp send'), side.side).toContain('reply from 10.96.40.13:80 "hairpin 2"');
      // Per call on the port: in to the Service, out from cni0's address, the reply in, out from the Service (the
      // other frames are the neighbour resolution toward the pod, equal on both sides too).
      const port = side.captures.find((capture) => capture.label.includes('veth-local'));
      const ipv4 = (port?.frames ?? []).filter((frame) => frame[12] === 0x08 && frame[13] === 0x00);
      expect(ipv4.length, side.side).toBe(8);
      // The second frame of a call: IPv4 source 10.244.1.1 (bytes 26-29), destination the pod, back out its port.
      expect([...ipv4[1]!.subarray(26, 34)].join('.'), side.side).toBe('10.244.1.1.10.244.1.9');
    }
  });

  it('without hairpin mode the bridge drops the call it would send back where it came from', async (ctx) => {
    const result = await differential(ctx, hairpin('hairpin-off', false).build(), { natPorts: FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'local: udp send'), side.side).toBe('timeout 1\ntimeout 2\n');
  });
});
