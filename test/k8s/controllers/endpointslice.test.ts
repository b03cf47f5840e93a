// The lesson's Service signalements (10.96.40.12:80 -> 8000, NodePort 30080) and its two pods, 10.244.2.7 on
// formation-worker2 and 10.244.1.9 on formation-worker, as a ladder on the manual clock.
import { describe, expect, it } from 'vitest';
import { seconds } from '../../../src/core/scheduler.ts';
import { pod, service } from '../../../src/k8s/api/builders.ts';
import { KUBE_DNS_SERVICE_IP } from '../../../src/k8s/controllers/control-plane.ts';
import { MAX_ENDPOINTS_PER_SLICE } from '../../../src/k8s/controllers/endpointslice.ts';
import type { EndpointSlice } from '../../../src/k8s/objects.ts';
import { formation } from './fixture.ts';

function brief(slice: EndpointSlice) {
  return {
    name: slice.metadata.name,
    ports: slice.ports.map((p) => `${p.name}:${p.port}/${p.protocol}`),
    endpoints: slice.endpoints.map(
      (e) =>
        `${e.addresses[0]} ${e.nodeName} ${e.targetRef.name} ${e.conditions.ready ? 'R' : '-'}${e.conditions.serving ? 'S' : '-'}${e.conditions.terminating ? 'T' : '-'}`,
    ),
  };
}

function lesson() {
  const c = formation();
  const { store, must } = c;
  must(
    store.create(
      service({
        name: 'signalements',
        type: 'NodePort',
        clusterIP: '10.96.40.12',
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
        selector: { app: 'signalements' },
      }),
    ),
  );
  const app = (name: string, nodeName: string) =>
    must(
      store.create(
        pod({
          name,
          nodeName,
          labels: { app: 'signalements' },
          ports: [{ name: 'http', containerPort: 8000 }],
        }),
      ),
    );
  app('signalements-a', 'formation-worker2');
  app('signalements-b', 'formation-worker');
  return c;
}

describe('EndpointSlice controller', () => {
  it('keeps a placeholder until pods have IPs, then fills the same slice (name from the seed)', () => {
    const c = lesson();
    const slices = () => c.plane.endpointSlices.slicesOf('default', 'signalements').map(brief);
    expect(slices()).toEqual([]); // nothing before the controller runs
    c.settle();
    expect(slices()).toEqual([{ name: 'signalements-grzzz', ports: [], endpoints: [] }]);
    const [slice] = c.plane.endpointSlices.slicesOf('default', 'signalements');
    expect(slice!.metadata.labels).toEqual({
      'kubernetes.io/service-name': 'signalements',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice!.metadata.ownerReferences).toEqual([
      {
        kind: 'Service',
        name: 'signalements',
        uid: c.store.get('Service', 'default', 'signalements')!.metadata.uid,
      },
    ]);

    // The kubelet reports the first pod running but not ready yet.
    c.kubelet('signalements-a', { podIP: '10.244.2.7', ready: false });
    c.settle();
    expect(slices()).toEqual([
      {
        name: 'signalements-grzzz',
        ports: ['http:8000/TCP'],
        endpoints: ['10.244.2.7 formation-worker2 signalements-a ---'],
      },
    ]);
    c.kubelet('signalements-a', { ready: true });
    c.kubelet('signalements-b', { podIP: '10.244.1.9', ready: true });
    c.settle();
    expect(slices()).toEqual([
      {
        name: 'signalements-grzzz',
        ports: ['http:8000/TCP'],
        endpoints: [
          '10.244.2.7 formation-worker2 signalements-a RS-',
          '10.244.1.9 formation-worker signalements-b RS-',
        ],
      },
    ]);
  });

  it('marks a deleted pod terminating (serving, not ready) and drops it after its 30 s grace period', () => {
    const c = lesson();
    c.kubelet('signalements-a', { podIP: '10.244.2.7', ready: true });
    c.kubelet('signalements-b', { podIP: '10.244.1.9', ready: true });
    c.settle();
    const slices = () => c.plane.endpointSlices.slicesOf('default', 'signalements').map(brief);
    c.scheduler.runFor(seconds(5));
    c.must(c.plane.deletePod('default', 'signalements-a'));
    expect(c.store.get('Pod', 'default', 'signalements-a')!.metadata.deletionTimestamp).toBe(seconds(5));
    c.settle();
    expect(slices()[0]!.endpoints).toEqual([
      '10.244.2.7 formation-worker2 signalements-a -ST',
      '10.244.1.9 formation-worker signalements-b RS-',
    ]);
    c.scheduler.runUntil(seconds(35) - 1);
    expect(c.store.get('Pod', 'default', 'signalements-a')).toBeDefined();
    c.scheduler.runUntil(seconds(35));
    expect(c.store.get('Pod', 'default', 'signalements-a')).toBeUndefined();
    c.settle();
    expect(slices()).toEqual([
      {
        name: 'signalements-grzzz',
        ports: ['http:8000/TCP'],
        endpoints: ['10.244.1.9 formation-worker signalements-b RS-'],
      },
    ]);
    // The kubelet reports the other pod's containers gone: removed at once, the slice back to a placeholder.
    c.must(c.plane.deletePod('default', 'signalements-b'));
    c.kubelet('signalements-b', { phase: 'Succeeded', ready: false });
    c.settle();
    expect(c.store.get('Pod', 'default', 'signalements-b')).toBeUndefined();
    c.settle();
    expect(slices()).toEqual([{ name: 'signalements-grzzz', ports: [], endpoints: [] }]);
  });

  it('resolves named target ports per pod and groups pods by their ports; a missing name leaves the port out', () => {
    const c = lesson();
    c.must(
      c.store.create(
        pod({
          name: 'signalements-c',
          nodeName: 'formation-worker',
          labels: { app: 'signalements' },
          ports: [{ name: 'http', containerPort: 9000 }],
        }),
      ),
    );
    c.must(
      c.store.create(
        pod({ name: 'signalements-d', nodeName: 'formation-worker', labels: { app: 'signalements' } }),
      ),
    );
    c.kubelet('signalements-a', { podIP: '10.244.2.7', ready: true });
    c.kubelet('signalements-c', { podIP: '10.244.1.10', ready: true });
    c.kubelet('signalements-d', { podIP: '10.244.1.11', ready: true });
    c.settle();
    const slices = c.plane.endpointSlices.slicesOf('default', 'signalements').map(brief);
    expect(slices.map((s) => [s.ports, s.endpoints.map((e) => e.split(' ')[0])])).toEqual([
      [['http:8000/TCP'], ['10.244.2.7']],
      [['http:9000/TCP'], ['10.244.1.10']],
      [[], ['10.244.1.11']],
    ]);
    expect(slices[0]!.name).toBe('signalements-grzzz');
  });

  it(`puts at most ${MAX_ENDPOINTS_PER_SLICE} endpoints in a slice`, () => {
    const c = formation();
    c.must(c.store.create(service({ name: 'big', ports: [{ port: 80 }], selector: { app: 'big' } })));
    for (let i = 0; i < 150; i++) {
      c.must(c.store.create(pod({ name: `big-${i}`, nodeName: 'formation-worker', labels: { app: 'big' } })));
      c.kubelet(`big-${i}`, { podIP: `10.244.1.${i + 2}`, ready: true });
    }
    c.settle();
    expect(c.plane.endpointSlices.slicesOf('default', 'big').map((s) => s.endpoints.length)).toEqual([
      100, 50,
    ]);
  });

  it('removes the slices with their Service', () => {
    const c = lesson();
    c.settle();
    c.must(c.store.delete('Service', 'default', 'signalements'));
    c.settle();
    expect(c.store.list('EndpointSlice')).toEqual([]);
  });

  it('bootstraps the kubernetes Service at 10.96.0.1 with the API server endpoint, which the controller leaves alone', () => {
    const c = formation();
    const kubernetes = c.must(c.plane.createKubernetesService('172.18.0.2'));
    expect([kubernetes.spec.clusterIP, kubernetes.spec.ports]).toEqual([
      '10.96.0.1',
      [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443, nodePort: 0 }],
    ]);
    c.settle();
    expect(c.store.list('EndpointSlice').map(brief)).toEqual([
      { name: 'kubernetes', ports: ['https:6443/TCP'], endpoints: ['172.18.0.2   RS-'] },
    ]);
    const dns = c.must(
      c.store.create(
        service({
          name: 'kube-dns',
          namespace: 'kube-system',
          clusterIP: KUBE_DNS_SERVICE_IP,
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'dns-tcp', port: 53 },
          ],
          selector: { 'k8s-app': 'kube-dns' },
        }),
      ),
    );
    expect(dns.spec.clusterIP).toBe('10.96.0.10');
  });
});
