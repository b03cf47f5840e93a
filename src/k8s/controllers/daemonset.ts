// The DaemonSet controller: one pod per eligible node, named `<daemonset>-<5 chars>` and bound to its node
// directly, created on nodes added later and removed from nodes that go or stop being eligible. A node is eligible
// when the template tolerates its NoSchedule/NoExecute taints, counting the tolerations the controller adds to every
// daemon pod (so cordoned and not-ready nodes still get one, kind's tainted control plane does not unless the
// template tolerates node-role.kubernetes.io/control-plane). No rolling update of the template (a changed template
// applies to pods created afterwards), no nodeSelector or affinity, no controller-revision-hash label.
//
// mirrors pkg/controller/daemon/daemon_controller.go (podsShouldBeOnNode, syncNodes: create where missing, delete
// extras and pods on nodes that should not run one) and pkg/controller/daemon/util (AddOrUpdateDaemonPodTolerations).

import type { Rng } from '../../core/rng.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { generateName } from '../api/names.ts';
import type { DaemonSet, Node, Pod, Toleration } from '../objects.ts';
import type { Store } from '../store.ts';
import type { PodTermination } from './pod-termination.ts';
import { toleratesNode } from './scheduler.ts';
import { splitKey, WorkQueue } from './work-queue.ts';

function toleration(key: string, effect: Toleration['effect']): Toleration {
  return { key, operator: 'Exists', value: '', effect };
}

/** AddOrUpdateDaemonPodTolerations (network-unavailable only for hostNetwork pods). */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const added = [
    toleration('node.kubernetes.io/not-ready', 'NoExecute'),
    toleration('node.kubernetes.io/unreachable', 'NoExecute'),
    toleration('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    toleration('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    toleration('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    toleration('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) added.push(toleration('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return added;
}

function active(pod: Pod): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    pod.status.phase !== 'Succeeded' &&
    pod.status.phase !== 'Failed'
  );
}

export class DaemonSetController {
  private readonly queue: WorkQueue;

  constructor(
    private readonly store: Store,
    scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly termination: PodTermination,
  ) {
    this.queue = new WorkQueue(scheduler, (key) => this.sync(key));
    store.watch('DaemonSet', (event) => {
      const { namespace, name, uid } = event.object.metadata;
      if (event.type === 'DELETED') {
        for (const pod of this.podsOf(namespace, uid)) this.termination.delete(namespace, pod.metadata.name);
        return;
      }
      this.queue.add(`${namespace}/${name}`);
    });
    store.watch('Node', () => {
      for (const ds of this.store.list('DaemonSet'))
        this.queue.add(`${ds.metadata.namespace}/${ds.metadata.name}`);
    });
    store.watch('Pod', (event) => {
      const owner = event.object.metadata.ownerReferences.find((ref) => ref.kind === 'DaemonSet');
      if (owner !== undefined) this.queue.add(`${event.object.metadata.namespace}/${owner.name}`);
    });
  }

  /** The tolerations a daemon pod of this DaemonSet carries. */
  tolerationsOf(ds: DaemonSet): Toleration[] {
    return [
      ...(ds.spec.template.spec.tolerations ?? []),
      ...daemonPodTolerations(ds.spec.template.spec.hostNetwork),
    ];
  }

  /** The nodes that should run one of its pods, in node creation order. */
  eligibleNodes(ds: DaemonSet): Node[] {
    const tolerations = this.tolerationsOf(ds);
    return this.store.list('Node').filter((node) => toleratesNode(tolerations, node));
  }

  private podsOf(namespace: string, uid: string): Pod[] {
    return this.store
      .list('Pod', namespace)
      .filter((pod) =>
        pod.metadata.ownerReferences.some((ref) => ref.kind === 'DaemonSet' && ref.uid === uid),
      );
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const ds = this.store.get('DaemonSet', namespace, name);
    if (ds === undefined) return;
    const nodes = this.eligibleNodes(ds);
    const eligible = new Set(nodes.map((node) => node.metadata.name));
    const pods = this.podsOf(namespace, ds.metadata.uid).filter(active);
    for (const node of nodes) {
      const here = pods.filter((pod) => pod.spec.nodeName === node.metadata.name);
      if (here.length === 0) this.createPod(ds, node);
      // Extras go, newest first.
      for (const pod of here.slice(1).reverse()) this.termination.delete(namespace, pod.metadata.name);
    }
    for (const pod of pods) {
      if (!eligible.has(pod.spec.nodeName)) this.termination.delete(namespace, pod.metadata.name);
    }
    const current = this.store.get('DaemonSet', namespace, name)!;
    const ready = this.podsOf(namespace, ds.metadata.uid).filter(
      (pod) => active(pod) && pod.status.ready && eligible.has(pod.spec.nodeName),
    ).length;
    const status = { desiredNumberScheduled: nodes.length, numberReady: ready };
    if (JSON.stringify(status) !== JSON.stringify(current.status))
      this.store.update<'DaemonSet'>({ ...current, status });
  }

  private createPod(ds: DaemonSet, node: Node): void {
    const { namespace } = ds.metadata;
    let name = generateName(this.rng, `${ds.metadata.name}-`);
    while (this.store.get('Pod', namespace, name) !== undefined)
      name = generateName(this.rng, `${ds.metadata.name}-`);
    this.store.create<'Pod'>({
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        labels: { ...ds.spec.template.labels },
        ownerReferences: [{ kind: 'DaemonSet', name: ds.metadata.name, uid: ds.metadata.uid }],
      },
      spec: { ...ds.spec.template.spec, nodeName: node.metadata.name, tolerations: this.tolerationsOf(ds) },
      status: { phase: 'Pending', podIP: '', hostIP: '', ready: false, containerStatuses: [] },
    });
  }
}
