import { describe, expect, it } from 'vitest';
import { formatGoTime, kubeProxyHealth } from '../../../src/k8s/kube-proxy/health.ts';
import type { Node } from '../../../src/k8s/objects.ts';
import { exec } from '../../../src/tools/exec.ts';
import { twoHosts } from '../../support/two-hosts.ts';
import { must, port, service, slice, storeOf } from '../services-fixture.ts';

/** The node (b, 10.0.0.2, formation-worker) runs kube-proxy's health servers; a (10.0.0.1) asks with curl. */
function lab(syncs: 'store' | 'manual' = 'store') {
  const hosts = twoHosts('kube-proxy-health');
  const store = storeOf(hosts.sim);
  must(
    store.create({
      kind: 'Node',
      metadata: { name: 'formation-worker' },
      spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], unschedulable: false, taints: [] },
      status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }], ready: true },
    }),
  );
  const health = kubeProxyHealth(hosts.b, store, { nodeName: 'formation-worker', syncs });
  const curl = (url: string) => exec(hosts.a, `curl -si ${url}`).stdout;
  return { ...hosts, store, health, curl };
}

const LB = service('signalements', {
  type: 'LoadBalancer',
  clusterIP: '10.96.40.12',
  externalTrafficPolicy: 'Local',
  healthCheckNodePort: 32000,
  ports: [port(80, 8000, { nodePort: 30080 })],
});

describe('formatGoTime (time.Time.String)', () => {
  it('trims the fraction, keeps 9 monotonic digits', () => {
    expect(formatGoTime(1_700_000_000_000, 2_500_000_000, 2_500_000_000)).toBe(
      '2023-11-14 22:13:22.5 +0000 UTC m=+2.500000000',
    );
    expect(formatGoTime(1_700_000_000_000, 0, 0)).toBe('2023-11-14 22:13:20 +0000 UTC m=+0.000000000');
    expect(formatGoTime(1_700_000_000_999, 1_000_001, 7)).toBe(
      '2023-11-14 22:13:21.000000001 +0000 UTC m=+0.000000007',
    );
  });
});

describe('the proxier health server on 10256', () => {
  it('/healthz answers 200 with its JSON and the headers Go writes', () => {
    const { curl, sim } = lab();
    sim.run(2.5e9);
    expect(curl('http://10.0.0.2:10256/healthz')).toBe(
      [
        'HTTP/1.1 200 OK',
        'Content-Type: application/json',
        'X-Content-Type-Options: nosniff',
        'Date: Tue, 14 Nov 2023 22:13:22 GMT',
        'Content-Length: 151',
        '',
        '{"lastUpdated": "2023-11-14 22:13:22.5 +0000 UTC m=+2.500000000","currentTime": "2023-11-14 22:13:22.5 +0000 UTC m=+2.500000000", "nodeEligible": true}',
      ].join('\r\n'),
    );
    expect(curl('http://10.0.0.2:10256/livez')).toContain(
      '\r\n\r\n{"lastUpdated": "2023-11-14 22:13:22.5 +0000 UTC m=+2.500000000","currentTime": "2023-11-14 22:13:22.5 +0000 UTC m=+2.500000000"}',
    );
    expect(curl('http://10.0.0.2:10256/other')).toMatch(
      /^HTTP\/1.1 404 Not Found\r\n[\s\S]*404 page not found\n$/,
    );
  });

  it('a queued update not synced within 60 s turns both to 503, showing the last sync; a sync restores 200', () => {
    const { curl, sim, health } = lab('manual');
    health.synced();
    sim.run(10e9);
    health.queuedUpdate();
    sim.run(59.9e9);
    expect(curl('http://10.0.0.2:10256/healthz')).toMatch(/^HTTP\/1.1 200 OK/);
    sim.run(0.1e9);
    expect(curl('http://10.0.0.2:10256/healthz')).toBe(
      [
        'HTTP/1.1 503 Service Unavailable',
        'Content-Type: application/json',
        'X-Content-Type-Options: nosniff',
        'Date: Tue, 14 Nov 2023 22:14:30 GMT',
        'Content-Length: 148',
        '',
        '{"lastUpdated": "2023-11-14 22:13:20 +0000 UTC m=+0.000000000","currentTime": "2023-11-14 22:14:30 +0000 UTC m=+70.000000000", "nodeEligible": true}',
      ].join('\r\n'),
    );
    expect(curl('http://10.0.0.2:10256/livez')).toMatch(/^HTTP\/1.1 503/);
    health.synced();
    expect(curl('http://10.0.0.2:10256/healthz')).toMatch(/^HTTP\/1.1 200 OK/);
  });

  it('a node tainted ToBeDeletedByClusterAutoscaler: /healthz 503 with nodeEligible false, /livez still 200', () => {
    const { curl, store } = lab();
    const node = store.get('Node', '', 'formation-worker') as Node;
    must(
      store.update({
        ...node,
        spec: {
          ...node.spec,
          taints: [{ key: 'ToBeDeletedByClusterAutoscaler', value: '1', effect: 'NoSchedule' }],
        },
      }),
    );
    expect(curl('http://10.0.0.2:10256/healthz')).toMatch(/^HTTP\/1.1 503[\s\S]*"nodeEligible": false}$/);
    expect(curl('http://10.0.0.2:10256/livez')).toMatch(/^HTTP\/1.1 200/);
  });
});

describe("a LoadBalancer Local Service's healthCheckNodePort", () => {
  const SLICE_PORTS = [{ name: '', port: 8000, protocol: 'TCP' as const }];

  it('200 with the local endpoint count while the node has a ready endpoint, on any path', () => {
    const { curl, store, health } = lab();
    must(store.create(LB));
    must(
      store.create(
        slice(
          'signalements',
          [
            { addr: '10.244.1.9', node: 'formation-worker' },
            { addr: '10.244.2.7', node: 'formation-worker2' },
          ],
          SLICE_PORTS,
        ),
      ),
    );
    expect(health.servicePorts()).toEqual(new Map([['default/signalements', 32000]]));
    expect(curl('http://10.0.0.2:32000/healthz')).toBe(
      [
        'HTTP/1.1 200 OK',
        'Content-Type: application/json',
        'X-Content-Type-Options: nosniff',
        'Date: Tue, 14 Nov 2023 22:13:20 GMT',
        'Content-Length: 123',
        '',
        '{\n\t"service": {\n\t\t"namespace": "default",\n\t\t"name": "signalements"\n\t},\n\t"localEndpoints": 1,\n\t"serviceProxyHealthy": true\n}',
      ].join('\r\n'),
    );
    expect(curl('http://10.0.0.2:32000/anything')).toMatch(/^HTTP\/1.1 200 OK/);
  });

  it('503 with localEndpoints 0 when the local endpoint is not ready; the server goes with the Service', () => {
    const { curl, store, health } = lab();
    must(store.create(LB));
    must(
      store.create(
        slice('signalements', [{ addr: '10.244.1.9', node: 'formation-worker', ready: false }], SLICE_PORTS),
      ),
    );
    const answer = curl('http://10.0.0.2:32000/healthz');
    expect(answer).toMatch(/^HTTP\/1.1 503 Service Unavailable\r\n/);
    expect(answer).toContain('"localEndpoints": 0,\n\t"serviceProxyHealthy": true\n}');
    must(store.delete('Service', 'default', 'signalements'));
    expect(health.servicePorts().size).toBe(0);
    expect(exec(lab().a, 'curl -sS http://10.0.0.2:32000/healthz').exitCode).toBe(7);
  });

  it('a Cluster-policy LoadBalancer has no health-check server', () => {
    const { store, health } = lab();
    must(
      store.create({ ...LB, spec: { ...LB.spec, externalTrafficPolicy: 'Cluster', healthCheckNodePort: 0 } }),
    );
    expect(health.servicePorts().size).toBe(0);
  });
});
