// What a packet to a just-removed pod's address meets on a node, on the kernel and on packetlab (the "delete at
// once during kube-proxy's sync gap" case of test/k8s/change/): remote's host veth deleted on formation-worker2 after
// diag pinged it. On the bridge (flannel) the node's neighbour entry on cni0 outlives the port (deleting a port
// flushes its FDB entries, not the neighbour), so the next echo requests are flooded to the ports left and nobody
// answers, without an ICMP error; on kindnet the veth's host route went with it and the address follows the node's
// default route to the Docker host, which has no route for the pod network either. With no neighbour entry left, the
// ARP probes fail and the client's connect through a Service DNAT ends in EHOSTUNREACH.

import { describe, expect, it } from 'vitest';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { differential, outputOf } from './harness.ts';
import { kindCluster } from './topologies.ts';

function scenario(label: string, cni: Cni) {
  const cluster = kindCluster(`pod-removal-${label}`, {
    cni,
    pods: [
      { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
      { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
      { name: 'other', node: 'formation-worker2', address: '10.244.2.8' },
    ],
  });
  const b = cluster.builder;
  const veth = cluster.plan.sandboxes.find((sandbox) => sandbox.address === '10.244.2.7')!.hostVeth;
  b.ping('diag', '10.244.2.7', { count: 1 });
  b.act('w2', 'ip', 'link', 'del', veth);
  b.act('w2', 'ip', 'neigh', 'show', '10.244.2.7');
  b.act('w2', 'ip', 'route', 'get', '10.244.2.7');
  b.ping('diag', '10.244.2.7', { count: 2, interval: 0.2, wait: 1 });
  b.observe('w2', 'ip', 'route');
  b.observe('w2', 'ip', '-br', 'link');
  return cluster.build();
}

/**
 * The address's neighbour entry gone too (as when it had failed or never existed): the node ARPs, nobody answers,
 * and after the probes the queued packets get ICMP host unreachable (arp_error_report → ipv4_link_failure) — through a
 * Service DNAT on diag's node, conntrack maps the quoted header back and the client's connect fails: EHOSTUNREACH.
 */
function unresolved(label: string) {
  const cluster = kindCluster(`pod-removal-arp-${label}`, {
    cni: new FlannelVxlan(),
    pods: [
      { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
      { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
    ],
  });
  const b = cluster.builder;
  const veth = cluster.plan.sandboxes.find((sandbox) => sandbox.address === '10.244.2.7')!.hostVeth;
  b.run(
    'w1',
    'iptables',
    '-t',
    'nat',
    '-A',
    'PREROUTING',
    '-d',
    '10.96.40.12/32',
    '-p',
    'tcp',
    '--dport',
    '80',
    '-j',
    'DNAT',
    '--to-destination',
    '10.244.2.7:8000',
  );
  b.run('w2', 'ip', 'link', 'del', veth);
  b.act('diag', 'nc', '-zv', '-w', '8', '10.96.40.12', '80');
  b.ping('diag', '10.244.2.7', { count: 1, wait: 5 });
  b.observe('w2', 'ip', 'neigh', 'show', 'dev', 'cni0');
  return cluster.build();
}

describe('differential: a packet to a removed pod address', () => {
  it('flannel-vxlan, no neighbour entry: ARP fails, ICMP host unreachable, connect through the DNAT fails EHOSTUNREACH', async (ctx) => {
    const result = await differential(ctx, unresolved('flannel'));
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const nc = [...side.traffic].find((o) => o.label.startsWith('diag: nc'))!;
      expect(nc.stderr, side.side).toBe(
        'nc: connect to 10.96.40.12 port 80 (tcp) failed: No route to host\n',
      );
      expect(outputOf(side, 'diag: ping'), side.side).toContain(
        'From 10.244.2.0 icmp_seq=1 Destination Host Unreachable',
      );
      expect(outputOf(side, 'w2: ip neigh show dev cni0'), side.side).toBe('10.244.2.7 FAILED \n');
    }
  }, 60_000);

  it('flannel-vxlan: the neighbour entry on cni0 stays REACHABLE, echo requests are flooded and lost, no ICMP', async (ctx) => {
    const result = await differential(ctx, scenario('flannel', new FlannelVxlan()));
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'w2: ip neigh show 10.244.2.7'), side.side).toMatch(
        / dev cni0 lladdr \S+ REACHABLE/,
      );
      const lost = side.traffic.filter((o) => o.label.startsWith('diag: ping')).at(-1)!.stdout;
      expect(lost, side.side).toContain('2 packets transmitted, 0 received, 100% packet loss');
      expect(lost, side.side).not.toContain('Unreachable');
    }
  }, 60_000);

  it('kindnet: the host route went with the veth, the address follows the default route out of the node', async (ctx) => {
    const result = await differential(ctx, scenario('kindnet', new Kindnet()));
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'w2: ip route get 10.244.2.7'), side.side).toMatch(
        /^10\.244\.2\.7 via 172\.18\.0\.1 dev eth0/,
      );
      const lost = side.traffic.filter((o) => o.label.startsWith('diag: ping')).at(-1)!.stdout;
      expect(lost, side.side).toContain('100% packet loss');
    }
  }, 60_000);
});
