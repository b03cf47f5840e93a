// Scheduling, Deployments and DaemonSets on the lesson's three-node kind cluster, on the manual clock.
import { describe, expect, it } from 'vitest';
import { seconds } from '../../../src/core/scheduler.ts';
import { daemonSet, deployment, node, pod } from '../../../src/k8s/api/builders.ts';
import { podTemplateHash } from '../../../src/k8s/controllers/deployment.ts';
import { formation } from './fixture.ts';

describe('pod scheduler', () => {
  it('places pods on the worker with the fewest pods, ties by name, never on the tainted control plane', () => {
    const c = formation();
    c.must(c.store.create(pod({ name: 'pinned', nodeName: 'formation-worker' })));
    for (const name of ['p1', 'p2', 'p3']) c.must(c.store.create(pod({ name })));
    c.settle();
    expect(c.pods()).toEqual([
      'pinned@formation-worker',
      'p1@formation-worker2',
      'p2@formation-worker',
      'p3@formation-worker2',
    ]);
  });

  it('leaves a pod Pending when no node fits and binds it when one is added or tolerated', () => {
    const c = formation();
    for (const name of ['formation-worker', 'formation-worker2']) {
      const current = c.store.get('Node', '', name)!;
      c.must(c.store.update<'Node'>({ ...current, spec: { ...current.spec, unschedulable: true } }));
    }
    c.must(c.store.create(pod({ name: 'waiting' })));
    c.must(
      c.store.create(
        pod({
          name: 'tolerant',
          tolerations: [
            {
              key: 'node-role.kubernetes.io/control-plane',
              operator: 'Exists',
              value: '',
              effect: 'NoSchedule',
            },
          ],
        }),
      ),
    );
    c.settle();
    expect(c.pods()).toEqual(['waiting@', 'tolerant@formation-control-plane']);
    c.must(c.store.create(node({ name: 'formation-worker3' })));
    c.settle();
    expect(c.pods()).toEqual(['waiting@formation-worker3', 'tolerant@formation-control-plane']);
  });
});

describe('Deployment controller', () => {
  const web = { name: 'web', labels: { app: 'web' }, ports: [{ containerPort: 8000 }] };

  it('names pods <deployment>-<pod-template-hash>-<5 chars>, scales up and down, newest and unready first', () => {
    const c = formation();
    const created = c.must(c.store.create(deployment({ ...web, replicas: 2 })));
    const hash = podTemplateHash(created.spec.template);
    expect(hash).toBe('b546ff6f4');
    c.settle();
    expect(c.pods()).toEqual([
      'web-b546ff6f4-bdlwr@formation-worker',
      'web-b546ff6f4-r2nt5@formation-worker2',
    ]);
    expect(c.store.get('Pod', 'default', 'web-b546ff6f4-bdlwr')!.metadata.labels).toEqual({
      app: 'web',
      'pod-template-hash': 'b546ff6f4',
    });
    c.kubelet('web-b546ff6f4-bdlwr', { podIP: '10.244.1.2', ready: true });
    c.kubelet('web-b546ff6f4-r2nt5', { podIP: '10.244.2.2', ready: true });
    c.settle();
    expect(c.store.get('Deployment', 'default', 'web')!.status).toEqual({
      replicas: 2,
      readyReplicas: 2,
      updatedReplicas: 2,
    });

    c.scheduler.runFor(seconds(10));
    c.must(c.plane.scale('default', 'web', 4));
    c.settle();
    const added = c.pods().slice(2);
    expect(added).toEqual(['web-b546ff6f4-qqtb7@formation-worker', 'web-b546ff6f4-7qg4p@formation-worker2']);
    c.kubelet('web-b546ff6f4-qqtb7', { podIP: '10.244.1.3', ready: true });
    c.settle();
    // Down to 2: the Pending pod goes first, then the newest ready one (both nodes hold two pods: equal ranks).
    c.scheduler.runFor(seconds(10));
    c.must(c.plane.scale('default', 'web', 2));
    c.settle();
    expect(c.pods()).toEqual([
      'web-b546ff6f4-bdlwr@formation-worker',
      'web-b546ff6f4-r2nt5@formation-worker2',
      'web-b546ff6f4-qqtb7@formation-worker terminating',
      'web-b546ff6f4-7qg4p@formation-worker2 terminating',
    ]);
    c.scheduler.runFor(seconds(30));
    expect(c.pods()).toEqual([
      'web-b546ff6f4-bdlwr@formation-worker',
      'web-b546ff6f4-r2nt5@formation-worker2',
    ]);
  });

  it('rolls a new template out one surge pod at a time, waiting for readiness (maxSurge 1, maxUnavailable 0)', () => {
    const c = formation();
    c.must(c.store.create(deployment({ ...web, replicas: 2, maxSurge: 1, maxUnavailable: 0 })));
    c.settle();
    for (const [i, name] of c.store
      .list('Pod')
      .map((p) => p.metadata.name)
      .entries()) {
      c.kubelet(name, { podIP: `10.244.${i + 1}.2`, ready: true });
    }
    c.settle();
    const current = c.store.get('Deployment', 'default', 'web')!;
    const template = {
      ...current.spec.template,
      spec: {
        ...current.spec.template.spec,
        containers: [{ ...current.spec.template.spec.containers[0]!, image: 'signalements:v2' }],
      },
    };
    const newHash = podTemplateHash(template);
    c.must(c.store.update<'Deployment'>({ ...current, spec: { ...current.spec, template } }));
    c.settle();
    const hashes = () =>
      c.store
        .list('Pod')
        .map(
          (p) =>
            `${p.metadata.labels['pod-template-hash'] === newHash ? 'new' : 'old'}${p.metadata.deletionTimestamp === undefined ? '' : '-terminating'}`,
        );
    expect(hashes()).toEqual(['old', 'old', 'new']);
    c.settle();
    expect(hashes()).toEqual(['old', 'old', 'new']); // nothing more until the new pod is ready
    const first = c.store.list('Pod')[2]!.metadata.name;
    c.kubelet(first, { podIP: '10.244.1.3', ready: true });
    c.settle();
    c.settle();
    expect(hashes()).toEqual(['old-terminating', 'old', 'new', 'new']);
    const second = c.store.list('Pod')[3]!.metadata.name;
    c.kubelet(second, { podIP: '10.244.2.3', ready: true });
    c.settle();
    c.settle();
    expect(hashes()).toEqual(['old-terminating', 'old-terminating', 'new', 'new']);
    expect(c.store.get('Deployment', 'default', 'web')!.status).toEqual({
      replicas: 2,
      readyReplicas: 2,
      updatedReplicas: 2,
    });
    expect([...c.plane.deployments.replicaSetsOf('default', 'web')]).toEqual([
      ['b546ff6f4', 0],
      [newHash, 2],
    ]);
  });

  it('replaces the pods of a removed node on the remaining workers', () => {
    const c = formation();
    c.must(c.store.create(deployment({ ...web, replicas: 2 })));
    c.settle();
    expect(c.pods()).toEqual([
      'web-b546ff6f4-bdlwr@formation-worker',
      'web-b546ff6f4-r2nt5@formation-worker2',
    ]);
    c.must(c.store.delete('Node', '', 'formation-worker2'));
    c.settle(); // pod GC removes r2nt5
    c.settle(); // the Deployment creates a replacement, the scheduler binds it
    expect(c.pods()).toEqual([
      'web-b546ff6f4-bdlwr@formation-worker',
      'web-b546ff6f4-qqtb7@formation-worker',
    ]);
  });

  it('deletes its pods with the Deployment', () => {
    const c = formation();
    c.must(c.store.create(deployment({ ...web, replicas: 2 })));
    c.settle();
    c.must(c.store.delete('Deployment', 'default', 'web'));
    c.scheduler.runFor(seconds(30));
    expect(c.store.list('Pod')).toEqual([]);
  });
});

describe('DaemonSet controller', () => {
  it('runs one pod per worker, on nodes added later too, and leaves removed nodes', () => {
    const c = formation();
    c.must(c.store.create(daemonSet({ name: 'fix-mark', labels: { app: 'fix-mark' }, hostNetwork: true })));
    c.settle();
    expect(c.pods()).toEqual(['fix-mark-v5wbt@formation-worker', 'fix-mark-jzcpd@formation-worker2']);
    c.must(c.store.create(node({ name: 'formation-worker3' })));
    c.settle();
    expect(c.pods()).toEqual([
      'fix-mark-v5wbt@formation-worker',
      'fix-mark-jzcpd@formation-worker2',
      'fix-mark-pdzzv@formation-worker3',
    ]);
    c.kubelet('fix-mark-v5wbt', { podIP: '172.18.0.3', ready: true });
    c.settle();
    expect(c.store.get('DaemonSet', 'default', 'fix-mark')!.status).toEqual({
      desiredNumberScheduled: 3,
      numberReady: 1,
    });
    c.must(c.store.delete('Node', '', 'formation-worker3'));
    c.settle();
    c.settle();
    expect(c.pods()).toEqual(['fix-mark-v5wbt@formation-worker', 'fix-mark-jzcpd@formation-worker2']);
    expect(c.store.get('DaemonSet', 'default', 'fix-mark')!.status).toEqual({
      desiredNumberScheduled: 2,
      numberReady: 1,
    });
  });

  it('covers the control plane when the template tolerates its taint; a deleted pod is replaced', () => {
    const c = formation();
    c.must(
      c.store.create(
        daemonSet({
          name: 'kube-proxy',
          namespace: 'kube-system',
          labels: { 'k8s-app': 'kube-proxy' },
          hostNetwork: true,
          tolerations: [{ key: '', operator: 'Exists', value: '', effect: '' }],
        }),
      ),
    );
    c.settle();
    const nodes = () =>
      c.store
        .list('Pod', 'kube-system')
        .filter((p) => p.metadata.deletionTimestamp === undefined)
        .map((p) => p.spec.nodeName);
    expect(nodes()).toEqual(['formation-control-plane', 'formation-worker', 'formation-worker2']);
    const victim = c.store.list('Pod', 'kube-system')[1]!.metadata.name;
    c.must(c.plane.deletePod('kube-system', victim));
    c.settle();
    expect(nodes()).toEqual(['formation-control-plane', 'formation-worker2', 'formation-worker']);
  });
});
