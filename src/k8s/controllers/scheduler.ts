// A pod scheduler: binds each unscheduled pod (no nodeName, not terminating) to a schedulable node — ready, not
// cordoned, every NoSchedule/NoExecute taint tolerated (kind's control plane carries
// node-role.kubernetes.io/control-plane:NoSchedule). The choice is deterministic and not kube-scheduler's scoring:
// the node with the fewest non-terminal pods bound to it, ties broken by node name; pods are placed in creation order.
// No affinity, resources, topology spread or preemption; a pod that fits nowhere stays Pending until a node changes.
//
// mirrors the filters of pkg/scheduler/framework/plugins (NodeUnschedulable, TaintToleration) and
// k8s.io/component-helpers/scheduling/corev1 (Toleration.ToleratesTaint).

import type { Scheduler } from '../../core/scheduler.ts';
import type { Node, Pod, Taint, Toleration } from '../objects.ts';
import type { Store } from '../store.ts';
import { WorkQueue } from './work-queue.ts';

/** ToleratesTaint: an empty effect matches all, Exists with an empty key matches every taint. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key !== '' && toleration.key !== taint.key) return false;
  return toleration.operator === 'Exists' || toleration.value === taint.value;
}

/** Whether every NoSchedule and NoExecute taint of the node is tolerated. */
export function toleratesNode(tolerations: readonly Toleration[], node: Node): boolean {
  return node.spec.taints.every(
    (taint) =>
      taint.effect === 'PreferNoSchedule' || tolerations.some((toleration) => tolerates(toleration, taint)),
  );
}

function boundPods(pods: readonly Pod[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const pod of pods) {
    if (pod.spec.nodeName === '' || pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed')
      continue;
    counts.set(pod.spec.nodeName, (counts.get(pod.spec.nodeName) ?? 0) + 1);
  }
  return counts;
}

export class PodScheduler {
  private readonly queue: WorkQueue;

  constructor(
    private readonly store: Store,
    scheduler: Scheduler,
  ) {
    this.queue = new WorkQueue(scheduler, () => this.scheduleAll());
    store.watch('Pod', (event) => {
      if (event.type !== 'DELETED' && event.object.spec.nodeName === '') this.queue.add('pending');
    });
    store.watch('Node', (event) => {
      if (event.type !== 'DELETED') this.queue.add('pending');
    });
  }

  /** The node a pod would go to now, or undefined when none fits. */
  choose(pod: Pod, counts: ReadonlyMap<string, number>): Node | undefined {
    let best: Node | undefined;
    let bestCount = Number.POSITIVE_INFINITY;
    for (const node of this.store.list('Node')) {
      if (node.spec.unschedulable || !node.status.ready) continue;
      if (!toleratesNode(pod.spec.tolerations ?? [], node)) continue;
      const count = counts.get(node.metadata.name) ?? 0;
      if (
        count < bestCount ||
        (count === bestCount && best !== undefined && node.metadata.name < best.metadata.name)
      ) {
        best = node;
        bestCount = count;
      }
    }
    return best;
  }

  private scheduleAll(): void {
    const pods = this.store.list('Pod');
    const counts = boundPods(pods);
    for (const pod of pods) {
      if (pod.spec.nodeName !== '' || pod.metadata.deletionTimestamp !== undefined) continue;
      const node = this.choose(pod, counts);
      if (node === undefined) continue;
      const bound = this.store.update<'Pod'>({ ...pod, spec: { ...pod.spec, nodeName: node.metadata.name } });
      if (bound.ok) counts.set(node.metadata.name, (counts.get(node.metadata.name) ?? 0) + 1);
    }
  }
}
