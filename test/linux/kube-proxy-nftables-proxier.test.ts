// kube-proxy's nftables mode as src/k8s/kube-proxy/nftables renders it, on the kernel and on packetlab: the lesson's
// two nodes, the proxier's own `nft -f` transactions (first sync, then the later ones) on w1 with a counter in
// every rule, then traffic: a UDP ClusterIP, a Service scaled to zero (REJECT after a partial sync and the
// stale-chain deletion), and ClientIP affinity sending the second connection through the affinity set.

import { describe, expect, it } from 'vitest';
import { NftablesProxier } from '../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { Endpoint, EndpointSlice, Service, ServicePort } from '../../src/k8s/objects.ts';
import { objectMeta } from '../../src/k8s/objects.ts';
import { makeEndpointSlice, serviceSpec } from '../support/k8s-objects.ts';
import { differential, outputOf } from './harness.ts';
import type { ScenarioBuilder } from './scenario.ts';
import { lesson } from './topologies.ts';

function service(
  name: string,
  clusterIP: string,
  ports: readonly ServicePort[],
  extra: Partial<Service['spec']> = {},
) {
  const object: Service = {
    kind: 'Service',
    metadata: objectMeta('default', name, name),
    spec: serviceSpec({ clusterIP, ports, ...extra }),
    status: { loadBalancerIngress: [] },
  };
  return object;
}

/** The pod `remote` (10.244.2.7 on formation-worker2), ready. */
const REMOTE: Endpoint = {
  addresses: ['10.244.2.7'],
  conditions: { ready: true, serving: true, terminating: false },
  nodeName: 'formation-worker2',
  targetRef: { kind: 'Pod', namespace: 'default', name: 'remote' },
};

function slice(
  service: string,
  endpoints: readonly Endpoint[],
  ports: readonly ServicePort[],
): EndpointSlice {
  const endpointPorts = ports.map((port) => ({
    name: port.name,
    port: Number(port.targetPort),
    protocol: port.protocol,
  }));
  return makeEndpointSlice('default', service, 1, endpoints, endpointPorts, `${service}-1`);
}

/** w1 (formation-worker, 172.18.0.2) as its kube-proxy sees the cluster. */
function view(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): ProxierView {
  return {
    nodeName: 'formation-worker',
    nodeIps: ['172.18.0.2'],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

/** Every transaction of the successive syncs, loaded on w1 in order. */
function syncs(b: ScenarioBuilder, views: readonly ProxierView[]): ScenarioBuilder {
  const proxier = new NftablesProxier({ serviceCidrs: ['10.96.0.0/16'], counters: true });
  views.forEach((v, index) => {
    for (const command of proxier.sync('w1', v, index === 0)) b.command('w1', command.argv);
  });
  return b;
}

const HTTP: ServicePort = { name: 'http', protocol: 'TCP', port: 80, targetPort: 8000, nodePort: 0 };
const DNS: readonly ServicePort[] = [
  { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353, nodePort: 0 },
  { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 5353, nodePort: 0 },
];

describe('differential: the nftables proxier', () => {
  it('a pod queries a UDP ClusterIP: DNAT to the other node, rule counters, conntrack -L', async (ctx) => {
    const services = [service('dns', '10.96.0.10', DNS), service('signalements', '10.96.40.12', [HTTP])];
    const slices = [slice('dns', [REMOTE], DNS), slice('signalements', [REMOTE], [HTTP])];
    const scenario = syncs(lesson('kp-nftp-udp', { pods: 'bridge', nodes: 'vxlan' }), [
      view(services, slices),
    ])
      .capture('diag', 'eth0')
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41000 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 5353 },
        dst: '10.96.0.10',
        dstPort: 53,
        count: 2,
      })
      .observe('w1', 'nft', 'list', 'ruleset')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: nft list ruleset')).toContain(
      'meta l4proto udp counter packets 1 bytes 39 dnat to 10.244.2.7:5353',
    );
  });

  it('scaled to zero: the partial sync and the stale-chain deletion load, and a call is rejected', async (ctx) => {
    const services = [service('signalements', '10.96.40.12', [HTTP])];
    // A default route, as a kind node has one: the SYN to the ClusterIP is routed, so it reaches filter-forward.
    const b = lesson('kp-nftp-zero', { pods: 'bridge', nodes: 'vxlan' }).route(
      'w1',
      'add',
      'default',
      'via',
      '172.18.0.1',
    );
    const scenario = syncs(b, [
      view(services, [slice('signalements', [REMOTE], [HTTP])]),
      view(services, [slice('signalements', [], [HTTP])]),
      view(services, [slice('signalements', [], [HTTP])]),
    ])
      .tcp({ client: { ns: 'diag', bind: '0.0.0.0', port: 41001 }, dst: '10.96.40.12', dstPort: 80 })
      .observe('w1', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const ruleset = outputOf(result.linux, 'w1: nft list ruleset');
    expect(ruleset).not.toContain('chain service-WOTQRQBB');
    expect(ruleset).toMatch(/chain reject-chain \{\n.*\n\t\tcounter packets 1 bytes 60 reject/);
    // reject's ICMP port unreachable ends the connect.
    expect(outputOf(result.linux, 'diag: tcp send')).toContain('error ECONNREFUSED');
  });

  it('a ping to the ClusterIP: cluster-ips-check rejects it, the node answers port unreachable (the lesson pitfall)', async (ctx) => {
    const services = [service('signalements', '10.96.40.12', [HTTP])];
    // A default route, as a kind node has one: the echo request is routed, so it reaches filter-forward.
    const b = lesson('kp-nftp-ping', { pods: 'bridge', nodes: 'vxlan' }).route(
      'w1',
      'add',
      'default',
      'via',
      '172.18.0.1',
    );
    const scenario = syncs(b, [view(services, [slice('signalements', [REMOTE], [HTTP])])])
      .capture('diag', 'eth0')
      .ping('diag', '10.96.40.12', { count: 1, wait: 1 })
      .observe('w1', 'nft', 'list', 'chain', 'ip', 'kube-proxy', 'cluster-ips-check')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'diag: ping'), side.side).toContain(
        'From 10.244.1.1 icmp_seq=1 Destination Port Unreachable',
      );
      expect(outputOf(side, 'w1: nft list chain'), side.side).toMatch(
        /counter packets 1 bytes 84 reject comment "Reject traffic to invalid ports of ClusterIPs"/,
      );
    }
  });

  it('ClientIP affinity: the second connection goes through the affinity set', async (ctx) => {
    const services = [service('signalements', '10.96.40.12', [HTTP], { sessionAffinity: 'ClientIP' })];
    const b = syncs(lesson('kp-nftp-aff', { pods: 'bridge', nodes: 'vxlan' }), [
      view(services, [slice('signalements', [REMOTE], [HTTP])]),
    ]);
    for (const port of [41002, 41003])
      b.tcp({
        client: { ns: 'diag', bind: '0.0.0.0', port },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '10.96.40.12',
        dstPort: 80,
      });
    // The chain only: the set's element lists the time it has left, which runs on different clocks.
    const chain = 'service-WOTQRQBB-default/signalements/tcp/http';
    const scenario = b.observe('w1', 'nft', 'list', 'chain', 'ip', 'kube-proxy', chain).build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: nft list chain')).toMatch(
      /@affinity-\S+ counter packets 1 bytes 60 goto/,
    );
  });
});
