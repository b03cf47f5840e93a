// Graceful pod deletion and pod garbage collection: a delete sets deletionTimestamp (the pod is Terminating, its
// endpoints turn terminating), and the pod object goes once the kubelet reports its containers gone (phase
// Succeeded or Failed, or finish()) or terminationGracePeriodSeconds of virtual time have passed; pods bound to a
// deleted Node are removed at once. No deletionGracePeriodSeconds field, no shortening of a running grace period, no
// finalizers; the pod GC's 40 s quarantine for orphaned pods is not modelled.
//
// mirrors pkg/registry/core/pod/strategy.go (podStrategy.CheckGracefulDelete: the pod's own grace period, 0 for a pod
// never scheduled or already terminal) and pkg/controller/podgc/gc_controller.go (gcOrphaned).

import type { Scheduler, TimerId } from '../../core/scheduler.ts';
import { seconds } from '../../core/scheduler.ts';
import type { Pod } from '../objects.ts';
import { type ApiResult, notFound, type Store } from '../store.ts';

function terminal(pod: Pod): boolean {
  return pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed';
}

export class PodTermination {
  private readonly timers = new Map<string, TimerId>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {
    store.watch('Pod', (event) => {
      if (
        event.type === 'MODIFIED' &&
        event.object.metadata.deletionTimestamp !== undefined &&
        terminal(event.object)
      ) {
        const { namespace, name } = event.object.metadata;
        this.scheduler.schedule(0, () => this.finish(namespace, name));
      }
      if (event.type === 'DELETED')
        this.cancel(`${event.object.metadata.namespace}/${event.object.metadata.name}`);
    });
    store.watch('Node', (event) => {
      if (event.type !== 'DELETED') return;
      const nodeName = event.object.metadata.name;
      this.scheduler.schedule(0, () => {
        for (const pod of this.store.list('Pod')) {
          if (pod.spec.nodeName === nodeName)
            this.store.delete('Pod', pod.metadata.namespace, pod.metadata.name);
        }
      });
    });
  }

  /**
   * `kubectl delete pod`: marks the pod terminating and removes it after its grace period (or `gracePeriodSeconds`);
   * a pod never scheduled, already terminal, or given 0 goes at once. Deleting a terminating pod again changes nothing.
   */
  delete(namespace: string, name: string, gracePeriodSeconds?: number): ApiResult<Pod> {
    const pod = this.store.get('Pod', namespace, name);
    if (pod === undefined) return notFound('Pod', name);
    if (pod.metadata.deletionTimestamp !== undefined) return { ok: true, value: pod };
    const grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds;
    if (grace <= 0 || pod.spec.nodeName === '' || terminal(pod))
      return this.store.delete('Pod', namespace, name);
    const marked = this.store.update<'Pod'>({
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: this.scheduler.now },
    });
    if (!marked.ok) return marked;
    const key = `${namespace}/${name}`;
    const uid = pod.metadata.uid;
    this.timers.set(
      key,
      this.scheduler.schedule(seconds(grace), () => {
        this.timers.delete(key);
        if (this.store.get('Pod', namespace, name)?.metadata.uid === uid)
          this.store.delete('Pod', namespace, name);
      }),
    );
    return marked;
  }

  /** The kubelet's final delete once the containers are gone: removes a terminating pod now. */
  finish(namespace: string, name: string): ApiResult<Pod> {
    const pod = this.store.get('Pod', namespace, name);
    if (pod === undefined) return notFound('Pod', name);
    this.cancel(`${namespace}/${name}`);
    return this.store.delete('Pod', namespace, name);
  }

  /** Whether a removal is pending for the pod. */
  terminating(namespace: string, name: string): boolean {
    return this.timers.has(`${namespace}/${name}`);
  }

  private cancel(key: string): void {
    const timer = this.timers.get(key);
    if (timer !== undefined) this.scheduler.cancel(timer);
    this.timers.delete(key);
  }
}
