// The lesson's kind cluster as objects for controller tests: formation-control-plane (tainted), formation-worker,
// formation-worker2; `kubelet` plays the kubelet by writing pod status through the store.
import { Rng } from '../../../src/core/rng.ts';
import { Scheduler } from '../../../src/core/scheduler.ts';
import { node } from '../../../src/k8s/api/builders.ts';
import { ControlPlane } from '../../../src/k8s/controllers/control-plane.ts';
import type { Pod } from '../../../src/k8s/objects.ts';
import { Store } from '../../../src/k8s/store.ts';

export function formation(seed = 'formation') {
  const scheduler = new Scheduler();
  const rng = new Rng(seed);
  const store = new Store(rng.fork('store'), () => scheduler.now);
  const plane = new ControlPlane(store, scheduler, rng.fork('control-plane'));
  const must = <T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  };
  must(
    store.create(
      node({
        name: 'formation-control-plane',
        controlPlane: true,
        internalIP: '172.18.0.2',
        podCIDR: '10.244.0.0/24',
      }),
    ),
  );
  must(store.create(node({ name: 'formation-worker', internalIP: '172.18.0.3', podCIDR: '10.244.1.0/24' })));
  must(store.create(node({ name: 'formation-worker2', internalIP: '172.18.0.4', podCIDR: '10.244.2.0/24' })));
  /** The kubelet's status update: Running with an IP, ready or not. */
  const kubelet = (name: string, status: Partial<Pod['status']>, namespace = 'default') => {
    const current = store.get('Pod', namespace, name)!;
    return must(
      store.update<'Pod'>({ ...current, status: { ...current.status, phase: 'Running', ...status } }),
    );
  };
  /** Lets the controllers react to everything due now. */
  const settle = () => scheduler.runFor(0);
  const pods = (namespace = 'default') =>
    store
      .list('Pod', namespace)
      .map(
        (p) =>
          `${p.metadata.name}@${p.spec.nodeName}${p.metadata.deletionTimestamp === undefined ? '' : ' terminating'}`,
      );
  return { scheduler, store, plane, must, kubelet, settle, pods };
}
