// The Deployment controller with its ReplicaSets folded in: one replica set per pod template (named by the
// template's hash), pods named `<deployment>-<pod-template-hash>-<5 chars>` and labelled pod-template-hash, scaling
// up and down, and rolling updates bounded by maxSurge and maxUnavailable that wait for new pods to be ready.
// ReplicaSets are not objects here: the replica counts live in the controller and pods are owned by the Deployment.
// No Recreate strategy, minReadySeconds, progress deadline, pause, revision history or proportional scaling during a
// rollout; the hash is FNV-32a over packetlab's JSON of the template, not over Go's dump of the v1 struct, so its
// value differs from a real cluster's while its form (digits mapped by rand.SafeEncodeString) is the same.
//
// mirrors pkg/controller/deployment/rolling.go (reconcileNewReplicaSet, reconcileOldReplicaSets,
// cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate), deployment/util (NewRSNewReplicas,
// controller.ComputeHash) and pkg/controller/replicaset/replica_set.go (manageReplicas, getPodsToDelete) with
// controller_utils.go's ActivePodsWithRanks order: unassigned, then Pending before Running, unready before ready,
// more pods of the Deployment on the same node first, then newer first by log2 of age (seconds-resolution
// timestamps, as the API stores them); remaining ties by name (Go's sort is not stable; packetlab's order is fixed).

import type { Rng } from '../../core/rng.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { fnv32a, generateName, safeEncodeString } from '../api/names.ts';
import type { Deployment, Pod, PodTemplate } from '../objects.ts';
import type { Store } from '../store.ts';
import type { PodTermination } from './pod-termination.ts';
import { splitKey, WorkQueue } from './work-queue.ts';

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** JSON with keys sorted at every level, so equal templates hash equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** controller.ComputeHash: SafeEncodeString of the decimal FNV-32a of the template. */
export function podTemplateHash(template: PodTemplate): string {
  return safeEncodeString(String(fnv32a(canonical(template))));
}

function active(pod: Pod): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    pod.status.phase !== 'Succeeded' &&
    pod.status.phase !== 'Failed'
  );
}

function available(pod: Pod): boolean {
  return active(pod) && pod.status.ready;
}

const PHASE_ORDER: Readonly<Record<Pod['status']['phase'], number>> = {
  Pending: 0,
  Running: 2,
  Succeeded: 3,
  Failed: 3,
};

/** ActivePodsWithRanks' Less, as a comparator: negative when `a` is deleted before `b`. */
export function deletionOrder(a: Pod, b: Pod, rank: (pod: Pod) => number, now: number): number {
  const aUnassigned = a.spec.nodeName === '';
  const bUnassigned = b.spec.nodeName === '';
  if (aUnassigned !== bUnassigned) return aUnassigned ? -1 : 1;
  if (PHASE_ORDER[a.status.phase] !== PHASE_ORDER[b.status.phase]) {
    return PHASE_ORDER[a.status.phase] - PHASE_ORDER[b.status.phase];
  }
  if (a.status.ready !== b.status.ready) return a.status.ready ? 1 : -1;
  if (rank(a) !== rank(b)) return rank(b) - rank(a);
  const ageRank = (pod: Pod) => {
    const created = Math.floor(pod.metadata.creationTimestamp / 1e9) * 1e9;
    const age = now - created;
    return age > 0 ? Math.floor(Math.log2(age)) : -1;
  };
  if (ageRank(a) !== ageRank(b)) return ageRank(a) - ageRank(b);
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

interface ReplicaSetState {
  readonly hash: string;
  readonly template: PodTemplate;
  /** When the replica set was made: old ones are scaled down oldest first. */
  readonly order: number;
  replicas: number;
}

export class DeploymentController {
  private readonly queue: WorkQueue;
  /** Per Deployment uid, its replica sets by template hash. */
  private readonly replicaSets = new Map<string, Map<string, ReplicaSetState>>();
  private made = 0;

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly termination: PodTermination,
  ) {
    this.queue = new WorkQueue(scheduler, (key) => this.sync(key));
    store.watch('Deployment', (event) => {
      const { namespace, name, uid } = event.object.metadata;
      if (event.type === 'DELETED') {
        this.replicaSets.delete(uid);
        for (const pod of this.podsOf(namespace, uid)) this.termination.delete(namespace, pod.metadata.name);
        return;
      }
      this.queue.add(`${namespace}/${name}`);
    });
    store.watch('Pod', (event) => {
      const owner = event.object.metadata.ownerReferences.find((ref) => ref.kind === 'Deployment');
      if (owner !== undefined) this.queue.add(`${event.object.metadata.namespace}/${owner.name}`);
    });
  }

  /** The replica counts the controller wants, by pod-template-hash (its ReplicaSets' spec.replicas). */
  replicaSetsOf(namespace: string, name: string): ReadonlyMap<string, number> {
    const deployment = this.store.get('Deployment', namespace, name);
    const sets = deployment === undefined ? undefined : this.replicaSets.get(deployment.metadata.uid);
    return new Map([...(sets?.values() ?? [])].map((set) => [set.hash, set.replicas]));
  }

  private podsOf(namespace: string, uid: string): Pod[] {
    return this.store
      .list('Pod', namespace)
      .filter((pod) =>
        pod.metadata.ownerReferences.some((ref) => ref.kind === 'Deployment' && ref.uid === uid),
      );
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const deployment = this.store.get('Deployment', namespace, name);
    if (deployment === undefined) return;
    const { uid } = deployment.metadata;
    const sets = this.replicaSets.get(uid) ?? new Map<string, ReplicaSetState>();
    this.replicaSets.set(uid, sets);
    const hash = podTemplateHash(deployment.spec.template);
    let newSet = sets.get(hash);
    if (newSet === undefined) {
      newSet = { hash, template: deployment.spec.template, order: this.made++, replicas: 0 };
      sets.set(hash, newSet);
    }
    const pods = this.podsOf(namespace, uid);
    const podsOfSet = (set: ReplicaSetState) =>
      pods.filter((pod) => pod.metadata.labels[POD_TEMPLATE_HASH_LABEL] === set.hash);
    const availableOf = (set: ReplicaSetState) => podsOfSet(set).filter(available).length;
    const olds = [...sets.values()].filter((set) => set !== newSet).sort((a, b) => a.order - b.order);
    const { replicas, maxSurge, maxUnavailable } = deployment.spec;

    // reconcileNewReplicaSet (NewRSNewReplicas for RollingUpdate).
    const total = () => [...sets.values()].reduce((sum, set) => sum + set.replicas, 0);
    if (newSet.replicas > replicas) newSet.replicas = replicas;
    else if (newSet.replicas < replicas) {
      const scaleUp = Math.min(replicas + maxSurge - total(), replicas - newSet.replicas);
      if (scaleUp > 0) newSet.replicas += scaleUp;
    }
    // reconcileOldReplicaSets.
    const minAvailable = replicas - maxUnavailable;
    const newUnavailable = newSet.replicas - availableOf(newSet);
    let maxScaledDown = total() - minAvailable - newUnavailable;
    if (maxScaledDown > 0) {
      for (const set of olds) {
        if (maxScaledDown <= 0) break;
        const unhealthy = set.replicas - availableOf(set);
        const down = Math.min(maxScaledDown, unhealthy);
        if (down > 0) {
          set.replicas -= down;
          maxScaledDown -= down;
        }
      }
      const availableCount = [...sets.values()].reduce(
        (sum, set) => sum + Math.min(set.replicas, availableOf(set)),
        0,
      );
      let totalScaleDown = availableCount - minAvailable;
      for (const set of olds) {
        if (totalScaleDown <= 0) break;
        const down = Math.min(set.replicas, totalScaleDown);
        set.replicas -= down;
        totalScaleDown -= down;
      }
    }
    // Each replica set's manageReplicas.
    for (const set of sets.values()) this.manage(deployment, set, podsOfSet(set), pods);
    for (const set of olds) if (set.replicas === 0 && podsOfSet(set).length === 0) sets.delete(set.hash);
    this.updateStatus(deployment, hash);
  }

  private manage(
    deployment: Deployment,
    set: ReplicaSetState,
    mine: readonly Pod[],
    related: readonly Pod[],
  ): void {
    const activePods = mine.filter(active);
    const diff = activePods.length - set.replicas;
    if (diff < 0) {
      for (let i = 0; i < -diff; i++) this.createPod(deployment, set);
    } else if (diff > 0) {
      const onNode = new Map<string, number>();
      for (const pod of related.filter(active))
        onNode.set(pod.spec.nodeName, (onNode.get(pod.spec.nodeName) ?? 0) + 1);
      const rank = (pod: Pod) => (pod.spec.nodeName === '' ? 0 : (onNode.get(pod.spec.nodeName) ?? 0));
      const now = this.scheduler.now;
      const victims = [...activePods].sort((a, b) => deletionOrder(a, b, rank, now)).slice(0, diff);
      for (const pod of victims) this.termination.delete(pod.metadata.namespace, pod.metadata.name);
    }
  }

  private createPod(deployment: Deployment, set: ReplicaSetState): void {
    const { namespace } = deployment.metadata;
    const base = `${deployment.metadata.name}-${set.hash}-`;
    let name = generateName(this.rng, base);
    while (this.store.get('Pod', namespace, name) !== undefined) name = generateName(this.rng, base);
    this.store.create<'Pod'>({
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        labels: { ...set.template.labels, [POD_TEMPLATE_HASH_LABEL]: set.hash },
        ownerReferences: [
          { kind: 'Deployment', name: deployment.metadata.name, uid: deployment.metadata.uid },
        ],
      },
      spec: { ...set.template.spec, nodeName: '' },
      status: { phase: 'Pending', podIP: '', hostIP: '', ready: false, containerStatuses: [] },
    });
  }

  private updateStatus(deployment: Deployment, hash: string): void {
    const current = this.store.get('Deployment', deployment.metadata.namespace, deployment.metadata.name)!;
    const pods = this.podsOf(deployment.metadata.namespace, deployment.metadata.uid).filter(active);
    const status = {
      replicas: pods.length,
      readyReplicas: pods.filter((pod) => pod.status.ready).length,
      updatedReplicas: pods.filter((pod) => pod.metadata.labels[POD_TEMPLATE_HASH_LABEL] === hash).length,
    };
    if (JSON.stringify(status) === JSON.stringify(current.status)) return;
    this.store.update<'Deployment'>({ ...current, status });
  }
}
