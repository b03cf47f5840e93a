// The kubelet's preStop sleep hook, as a ladder on the virtual clock: a deleted pod whose container has
// `lifecycle.preStop.sleep.seconds: N` keeps running and serving for N seconds (its endpoint serving and
// terminating), then its container is killed; without a hook it is killed at once; the hook is cut at the grace period.

import { describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import { pod, service } from '../../../src/k8s/api/builders.ts';
import { cluster } from '../../../src/k8s/cluster.ts';
import { exec } from '../../../src/tools/exec.ts';

const SECOND = 1_000_000_000;

function lab(preStopSleepSeconds: number | undefined, terminationGracePeriodSeconds = 30) {
  const c = cluster({
    name: 'formation',
    workers: 1,
    seed: 'prestop',
    images: new Map([
      [
        'web',
        (ns) => {
          const server = httpServer(ns, { port: 8000, routes: { '/': { body: 'ok\n' } } });
          return { stop: () => server.close() };
        },
      ],
    ]),
  });
  const created = c.store.create(
    pod({
      name: 'web',
      nodeName: 'formation-worker',
      podIP: '10.244.1.20',
      labels: { app: 'web' },
      image: 'web',
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
      terminationGracePeriodSeconds,
      ...(preStopSleepSeconds === undefined ? {} : { preStopSleepSeconds }),
    }),
  );
  if (!created.ok) throw new Error(created.error.message);
  c.store.create(
    service({
      name: 'web',
      clusterIP: '10.96.50.50',
      ports: [{ port: 80, targetPort: 8000 }],
      selector: { app: 'web' },
    }),
  );
  c.sim.run(2 * SECOND);
  const node = c.node('formation-worker')!.ns;
  /** One ladder line: does the pod answer, and its endpoint's conditions. */
  const state = () => {
    const answers = exec(node, 'curl -s -m 1 http://10.244.1.20:8000/').stdout === 'ok\n';
    const endpoint = c.store
      .list('EndpointSlice', 'default')
      .flatMap((s) => s.endpoints)
      .find((e) => e.addresses[0] === '10.244.1.20');
    const conditions = endpoint?.conditions;
    return `${answers ? 'answers' : 'silent'} ${conditions === undefined ? 'no endpoint' : `ready=${conditions.ready} serving=${conditions.serving} terminating=${conditions.terminating}`}`;
  };
  return { c, state };
}

describe('preStop sleep', () => {
  it('keeps the deleted pod serving for the hook, then kills it', () => {
    const { c, state } = lab(10);
    expect(state()).toBe('answers ready=true serving=true terminating=false');
    expect(c.exec('kubectl delete pod web')).toMatchObject({ exitCode: 0 });
    const ladder: string[] = [];
    for (const seconds of [1, 5, 5]) {
      c.sim.run(seconds * SECOND);
      ladder.push(state());
    }
    expect(ladder).toEqual([
      'answers ready=false serving=true terminating=true',
      'answers ready=false serving=true terminating=true',
      'silent ready=false serving=false terminating=true',
    ]);
  });

  it('without a hook the container stops at once', () => {
    const { c, state } = lab(undefined);
    c.exec('kubectl delete pod web');
    c.sim.run(SECOND);
    expect(state()).toBe('silent ready=false serving=false terminating=true');
  });

  it('a hook longer than the grace period is cut at the grace period', () => {
    const { c, state } = lab(60, 5);
    c.exec('kubectl delete pod web');
    c.sim.run(4 * SECOND);
    expect(state()).toBe('answers ready=false serving=true terminating=true');
    c.sim.run(2 * SECOND);
    expect(state()).toMatch(/^silent /);
  });
});
