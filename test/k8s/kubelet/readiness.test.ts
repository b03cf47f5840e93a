// The kubelet's readiness probe in virtual time: a pod with an HTTP readiness probe starts unready, turns ready at
// the first 200, unready after failureThreshold failures in a row (its endpoint leaves kube-proxy's rules), and ready
// again at the next success; a pod without a probe is ready once started.

import { describe, expect, it } from 'vitest';
import { type HttpServer, httpServer } from '../../../src/app/http/server.ts';
import { service } from '../../../src/k8s/api/builders.ts';
import { cluster } from '../../../src/k8s/cluster.ts';

describe('readiness probes', () => {
  const servers = new Map<string, HttpServer>();
  const c = cluster({
    name: 'formation',
    workers: 1,
    seed: 'readiness',
    images: new Map([
      [
        'web',
        (ns, pod) => {
          const server = httpServer(ns, {
            port: 8000,
            routes: { '/sante': { body: 'ok\n' }, '/healthz': { health: true } },
          });
          servers.set(pod.metadata.name, server);
          return { stop: () => server.close() };
        },
      ],
    ]),
  });
  const app = { app: 'web' };
  const probe = { httpGet: { path: '/healthz', port: 8000 }, periodSeconds: 10, failureThreshold: 3 };
  for (const [name, ip, readinessProbe] of [
    ['probed', '10.244.1.20', probe],
    ['plain', '10.244.1.21', undefined],
  ] as const) {
    const created = c.createPod({
      name,
      node: 'formation-worker',
      ip,
      image: 'web',
      labels: app,
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
      ...(readinessProbe === undefined ? {} : { readinessProbe }),
    });
    if (!created.ok) throw new Error(created.error.message);
  }
  const svc = c.store.create<'Service'>(
    service({
      name: 'web',
      clusterIP: '10.96.50.50',
      ports: [{ port: 80, targetPort: 8000 }],
      selector: app,
    }),
  );
  if (!svc.ok) throw new Error(svc.error.message);

  const ready = (name: string) => c.store.get('Pod', 'default', name)?.status.ready;
  const endpointReady = (ip: string) =>
    c.store
      .list('EndpointSlice', 'default')
      .flatMap((slice) => slice.endpoints)
      .find((endpoint) => endpoint.addresses[0] === ip)?.conditions.ready;

  it('starts the probed pod Running but unready, then ready at its first successful probe; the plain one ready at once', () => {
    const seen: string[] = [];
    c.store.watch('Pod', (event) => {
      const pod = event.object;
      seen.push(`${pod.metadata.name} ${pod.status.phase} ${pod.status.ready}`);
    });
    c.settle();
    expect(seen).toEqual(['probed Running false', 'plain Running true', 'probed Running true']);
  });

  it('publishes the probed endpoint once ready', () => {
    c.sim.run(1e8);
    expect(ready('probed')).toBe(true);
    expect(endpointReady('10.244.1.20')).toBe(true);
    expect(c.exec('kubectl get pods').stdout).toMatch(/^probed +1\/1 +Running/m);
  });

  it('turns it unready after three failed probes in a row, not before, and kube-proxy drops it', () => {
    servers.get('probed')!.setHealthy(false);
    c.sim.run(20e9); // two failures (at 10 s and 20 s)
    expect(ready('probed')).toBe(true);
    c.sim.run(10e9); // the third
    expect(ready('probed')).toBe(false);
    c.sim.run(2e9);
    expect(endpointReady('10.244.1.20')).toBe(false);
    expect(c.exec('kubectl get pods').stdout).toMatch(/^probed +0\/1 +Running/m);
    const rules = c.exec('docker exec formation-worker iptables-save -t nat').stdout;
    expect(rules).toContain('--to-destination 10.244.1.21:8000');
    expect(rules).not.toContain('--to-destination 10.244.1.20:8000');
  });

  it('turns it ready again at the next success', () => {
    servers.get('probed')!.setHealthy(true);
    c.sim.run(10e9);
    expect(ready('probed')).toBe(true);
  });
});
