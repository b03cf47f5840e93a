// kube-proxy's iptables mode as packetlab renders it (src/k8s/kube-proxy/iptables/), loaded on the kernel and on
// packetlab the way kube-proxy loads it, as traffic-phase commands whose outputs are compared (iptables 1.8.9 prints a
// notice for -W): the canary chains and jump rules of the first sync (`iptables -w 5 -W
// 100000 -N/-I`), then `iptables-restore -w 5 -W 100000 --noflush --counters`. Traffic through a UDP ClusterIP with
// ClientIP affinity (-m recent), a NodePort from outside the cluster (DNAT + MASQUERADE --random-fully) and a
// Service without endpoints (REJECT in filter); a resync that deletes the chains of a Service scaled to zero;
// externalTrafficPolicy Local on the node with the pod and on the one without; a LoadBalancer IP with
// loadBalancerSourceRanges. `iptables-save -c`, `conntrack -L` and the peers' lines compared.

import { describe, expect, it } from 'vitest';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

const VIEW: ProxierView = {
  nodeName: 'formation-worker',
  nodeIps: ['172.18.0.2'],
  clusterCidr: '10.244.0.0/16',
  masqueradeBit: 14,
  services: [
    makeService('default', 'signalements', (svc) => {
      svc.type = 'NodePort';
      svc.clusterIP = '10.96.40.12';
      svc.ports = [
        servicePort({ name: 'udp', port: 80, protocol: 'UDP', targetPort: 8000, nodePort: 30080 }),
      ];
      svc.sessionAffinity = 'ClientIP';
    }),
    makeService('default', 'vide', (svc) => {
      svc.clusterIP = '10.96.0.50';
      svc.ports = [servicePort({ name: 'udp', port: 53, protocol: 'UDP' })];
    }),
  ],
  endpointSlices: [
    makeEndpointSlice(
      'default',
      'signalements',
      1,
      [endpoint('10.244.2.7', { nodeName: 'formation-worker2' })],
      [{ name: 'udp', port: 8000, protocol: 'UDP' }],
    ),
  ],
};

describe('differential: kube-proxy iptables mode, rendered and loaded as kube-proxy does', () => {
  it('first sync, ClusterIP with affinity, NodePort from outside, REJECT without endpoints', async (ctx) => {
    // A default route, as a kind node has, so traffic to a ClusterIP without endpoints reaches FORWARD.
    let builder = lesson('kp-iptables', { pods: 'bridge', nodes: 'direct', client: true }).route(
      'w1',
      'add',
      'default',
      'via',
      '172.18.0.100',
    );
    for (const command of new IptablesProxier().sync('w1', VIEW, true))
      builder = builder.actCommand(command.ns, command.argv, command.stdin);
    // The refused exchange first: its wait is wall time on the kernel, so it would age the later conntrack entries.
    const scenario = builder
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41236 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 53 },
        dst: '10.96.0.50',
        dstPort: 53,
        count: 1,
        payload: 'nobody',
      })
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '10.96.40.12',
        dstPort: 80,
        count: 2,
        payload: 'GET /sante',
      })
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.2',
        dstPort: 30080,
        count: 1,
        payload: 'nodeport',
      })
      .observe('w1', 'iptables-save', '-c')
      .observe('w1', 'conntrack', '-L')
      .build();
    // MASQUERADE --random-fully picks the NodePort reply's port at random on both sides.
    const result = await differential(ctx, scenario, {
      natPorts: [41234, 41235, 41236, 8000, 80, 30080, 53],
    });
    if (result === undefined) return;
    const all = (label: string) =>
      result.linux.traffic
        .filter((t) => t.label.startsWith(label))
        .map((t) => t.stdout)
        .join('');
    expect(all('diag: udp send')).toContain('timeout 1');
    expect(all('diag: udp send')).toContain('reply from 10.96.40.12:80 "GET /sante 1"');
    // The NodePort's client is masqueraded to the node's address; the Service without endpoints is refused.
    expect(all('remote: udp echo')).toMatch(/from 172\.18\.0\.2:\d+ "nodeport 1"/);
    expect(outputOf(result.linux, 'w1: iptables-save')).toMatch(
      /\[1:\d+\] -A KUBE-SERVICES -d 10\.96\.0\.50\/32 .* -j REJECT/,
    );
  });

  it('a resync after the endpoint went deletes the service chains (-X) and rejects, on both sides', async (ctx) => {
    const proxier = new IptablesProxier();
    const scaledToZero: ProxierView = { ...VIEW, endpointSlices: [] };
    let builder = lesson('kp-iptables-resync', { pods: 'bridge', nodes: 'direct' });
    for (const command of [...proxier.sync('w1', VIEW, true), ...proxier.sync('w1', scaledToZero, false)])
      builder = builder.actCommand(command.ns, command.argv, command.stdin);
    const scenario = builder.observe('w1', 'iptables-save').build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const saved = outputOf(result.linux, 'w1: iptables-save');
    expect(saved).not.toMatch(/KUBE-(SVC|SEP|EXT)-/);
    expect(saved).toContain('"default/signalements:udp has no endpoints"');
  });

  it('externalTrafficPolicy Local: the node with the pod keeps the client address, the other drops', async (ctx) => {
    const local = makeService('default', 'signalements', (svc) => {
      svc.type = 'NodePort';
      svc.clusterIP = '10.96.40.12';
      svc.externalTrafficPolicy = 'Local';
      svc.ports = [
        servicePort({ name: 'udp', port: 80, protocol: 'UDP', targetPort: 8000, nodePort: 30081 }),
      ];
    });
    const view = (nodeName: string, nodeIp: string): ProxierView => ({
      ...VIEW,
      nodeName,
      nodeIps: [nodeIp],
      services: [local],
    });
    let builder = lesson('kp-iptables-local', { pods: 'bridge', nodes: 'direct', client: true });
    const commands = [
      ...new IptablesProxier().sync('w1', view('formation-worker', '172.18.0.2'), true),
      ...new IptablesProxier().sync('w2', view('formation-worker2', '172.18.0.3'), true),
    ];
    for (const command of commands) builder = builder.actCommand(command.ns, command.argv, command.stdin);
    const scenario = builder
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41250 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.2',
        dstPort: 30081,
        count: 1,
        payload: 'to w1',
      })
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41251 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.3',
        dstPort: 30081,
        count: 1,
        payload: 'to w2',
      })
      .observe('w1', 'iptables-save', '-c', '-t', 'filter')
      .observe('w2', 'iptables-save', '-c', '-t', 'nat')
      .observe('w2', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const echoes = result.linux.traffic
      .filter((t) => t.label.startsWith('remote: udp echo'))
      .map((t) => t.stdout)
      .join('');
    expect(echoes).not.toContain('to w1');
    expect(echoes).toContain('from 172.18.0.100:41251 "to w2 1"');
    expect(outputOf(result.linux, 'w1: iptables-save')).toMatch(
      /\[1:\d+\] -A KUBE-EXTERNAL-SERVICES .*has no local endpoints.* --dport 30081 -j DROP/,
    );
  });

  it('LoadBalancer IPs with loadBalancerSourceRanges: KUBE-FW- lets the range in, KUBE-PROXY-FIREWALL drops the rest', async (ctx) => {
    const lb = (name: string, clusterIP: string, ingress: string, range: string) =>
      makeService('default', name, (svc) => {
        svc.type = 'LoadBalancer';
        svc.clusterIP = clusterIP;
        svc.ports = [servicePort({ name: 'udp', port: 80, protocol: 'UDP', targetPort: 8000, nodePort: 0 })];
        svc.loadBalancerIngress = [ingress];
        svc.loadBalancerSourceRanges = [range];
      });
    const slice = (name: string) =>
      makeEndpointSlice(
        'default',
        name,
        1,
        [endpoint('10.244.2.7', { nodeName: 'formation-worker2' })],
        [{ name: 'udp', port: 8000, protocol: 'UDP' }],
      );
    const view: ProxierView = {
      ...VIEW,
      services: [
        lb('ouvert', '10.96.0.60', '172.18.0.200', '172.18.0.100/32'),
        lb('ferme', '10.96.0.61', '172.18.0.201', '203.0.113.0/24'),
      ],
      endpointSlices: [slice('ouvert'), slice('ferme')],
    };
    // The load balancer's addresses reach w1 as a cloud's would: routed to the node.
    let builder = lesson('kp-iptables-lb', { pods: 'bridge', nodes: 'direct', client: true })
      .route('client', 'add', '172.18.0.200/32', 'via', '172.18.0.2')
      .route('client', 'add', '172.18.0.201/32', 'via', '172.18.0.2');
    for (const command of new IptablesProxier().sync('w1', view, true))
      builder = builder.actCommand(command.ns, command.argv, command.stdin);
    const scenario = builder
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41260 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.201',
        dstPort: 80,
        count: 1,
        payload: 'ferme',
      })
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41261 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.200',
        dstPort: 80,
        count: 1,
        payload: 'ouvert',
      })
      .observe('w1', 'iptables-save', '-c')
      .observe('w1', 'conntrack', '-L')
      .build();
    // MASQUERADE --random-fully picks the source port at random on both sides.
    const result = await differential(ctx, scenario, { natPorts: [41260, 41261, 8000, 80] });
    if (result === undefined) return;
    const sent = result.linux.traffic
      .filter((t) => t.label.startsWith('client: udp send'))
      .map((t) => t.stdout)
      .join('');
    expect(sent).toContain('reply from 172.18.0.200:80 "ouvert 1"');
    expect(sent).toContain('timeout 1');
    expect(outputOf(result.linux, 'w1: iptables-save')).toMatch(
      /\[1:\d+\] -A KUBE-PROXY-FIREWALL -d 172\.18\.0\.201\/32 .* -j DROP/,
    );
  });
});
