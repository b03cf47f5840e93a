import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { pod } from '../../src/k8s/api/builders.ts';
import type { Pod } from '../../src/k8s/objects.ts';
import { invalid, kubectlError, Store, type WatchEvent } from '../../src/k8s/store.ts';

function newStore(seed = 'store') {
  let now = 0;
  const store = new Store(new Rng(seed), () => now);
  return { store, tick: (ns: number) => (now += ns) };
}

describe('Store', () => {
  it('creates, gets, lists in creation order, updates and deletes, with one revision counter', () => {
    const { store, tick } = newStore();
    const a = store.create(pod({ name: 'a' }));
    tick(5);
    const b = store.create(pod({ name: 'b', namespace: 'kube-system' }));
    expect(a.ok && a.value.metadata).toMatchObject({
      namespace: 'default',
      resourceVersion: 1,
      creationTimestamp: 0,
    });
    expect(b.ok && b.value.metadata).toMatchObject({
      namespace: 'kube-system',
      resourceVersion: 2,
      creationTimestamp: 5,
    });
    expect(store.list('Pod').map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(store.list('Pod', 'kube-system').map((p) => p.metadata.name)).toEqual(['b']);
    const got = store.get('Pod', 'default', 'a')!;
    const updated = store.update<'Pod'>({
      ...got,
      metadata: { ...got.metadata, uid: 'forged', creationTimestamp: 99 },
      status: { ...got.status, podIP: '10.244.1.5' },
    });
    expect(updated.ok && updated.value.metadata).toMatchObject({
      uid: got.metadata.uid,
      creationTimestamp: 0,
      resourceVersion: 3,
    });
    expect(store.delete('Pod', 'default', 'a').ok).toBe(true);
    expect(store.get('Pod', 'default', 'a')).toBeUndefined();
    expect(store.delete('Pod', 'default', 'a')).toEqual({
      ok: false,
      error: { code: 404, reason: 'NotFound', message: 'pods "a" not found' },
    });
    expect(store.create(pod({ name: 'b', namespace: 'kube-system' }))).toEqual({
      ok: false,
      error: { code: 409, reason: 'AlreadyExists', message: 'pods "b" already exists' },
    });
  });

  it('delivers watch events synchronously and in order, with the old object on MODIFIED', () => {
    const { store } = newStore();
    const seen: string[] = [];
    const stop = store.watch('Pod', (event: WatchEvent<Pod>) => {
      const old = event.type === 'MODIFIED' ? ` from ${event.old.metadata.resourceVersion}` : '';
      seen.push(`${event.type} ${event.object.metadata.name} ${event.object.metadata.resourceVersion}${old}`);
    });
    store.create(pod({ name: 'a' }));
    store.update<'Pod'>(store.get('Pod', 'default', 'a')!);
    store.delete('Pod', 'default', 'a');
    stop();
    store.create(pod({ name: 'b' }));
    expect(seen).toEqual(['ADDED a 1', 'MODIFIED a 2 from 1', 'DELETED a 2']);
  });

  it('a refused object changes nothing: no event, no revision, and earlier steps are reverted', () => {
    const { store } = newStore();
    const events: string[] = [];
    const reverted: string[] = [];
    store.watch('Pod', (event) => events.push(event.type));
    store.admit('Pod', (object) => ({
      ok: true,
      value: object,
      revert: () => reverted.push(object.metadata.name),
    }));
    store.admit('Pod', (object) =>
      object.metadata.name === 'bad'
        ? invalid('Pod', 'bad', ['spec.containers: Required value'])
        : { ok: true, value: object },
    );
    const refused = store.create(pod({ name: 'bad' }));
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 422, message: 'Pod "bad" is invalid: spec.containers: Required value' },
    });
    expect(store.list('Pod')).toEqual([]);
    expect(events).toEqual([]);
    expect(reverted).toEqual(['bad']);
    expect(
      store.create(pod({ name: 'good' })).ok && store.get('Pod', 'default', 'good')!.metadata.resourceVersion,
    ).toBe(1);
    // A refused update keeps the stored object and emits nothing.
    const before = store.get('Pod', 'default', 'good')!;
    store.admit('Pod', (object, old) =>
      old !== undefined
        ? invalid('Pod', object.metadata.name, ['spec: Forbidden: pod updates may not change fields'])
        : { ok: true, value: object },
    );
    const refusedUpdate = store.update<'Pod'>({
      ...before,
      status: { ...before.status, podIP: '10.244.1.5' },
    });
    expect(!refusedUpdate.ok && refusedUpdate.error.message).toBe(
      'Pod "good" is invalid: spec: Forbidden: pod updates may not change fields',
    );
    expect(store.get('Pod', 'default', 'good')).toBe(before);
    expect(events).toEqual(['ADDED']);
    expect(reverted).toEqual(['bad', 'good']);
  });

  it('draws uids from the seed: the same seed gives the same uids, another seed others', () => {
    const uids = (seed: string) => {
      const { store } = newStore(seed);
      return ['a', 'b'].map((name) => {
        const created = store.create(pod({ name }));
        return created.ok ? created.value.metadata.uid : '';
      });
    };
    const first = uids('s1');
    expect(uids('s1')).toEqual(first);
    expect(uids('s2')).not.toEqual(first);
    expect(first[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first[0]).not.toBe(first[1]);
  });

  it('words Invalid refusals as the API server (Status.message) and as kubectl prints them', () => {
    const one = invalid('Service', 'signalements', [
      'spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    ]);
    if (one.ok) throw new Error('expected a refusal');
    expect(one.error.message).toBe(
      'Service "signalements" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    expect(kubectlError(one.error)).toBe(
      'The Service "signalements" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n',
    );
    const two = invalid('Deployment', 'web', [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.spec.containers: Required value',
      'spec.template.spec.containers: Required value',
    ]);
    if (two.ok) throw new Error('expected a refusal');
    expect(two.error.message).toBe(
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.containers: Required value]',
    );
    expect(kubectlError(two.error)).toBe(
      'The Deployment "web" is invalid: \n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n* spec.template.spec.containers: Required value\n',
    );
    expect(kubectlError({ code: 404, reason: 'NotFound', message: 'pods "web" not found' })).toBe(
      'Error from server (NotFound): pods "web" not found\n',
    );
  });
});
