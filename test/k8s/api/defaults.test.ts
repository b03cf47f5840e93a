import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { Scheduler } from '../../../src/core/scheduler.ts';
import { deployment, node, pod } from '../../../src/k8s/api/builders.ts';
import { resolveFenceposts } from '../../../src/k8s/api/defaults.ts';
import { fnv32a, generateName, safeEncodeString } from '../../../src/k8s/api/names.ts';
import { ControlPlane } from '../../../src/k8s/controllers/control-plane.ts';
import { Store } from '../../../src/k8s/store.ts';

function setup() {
  const scheduler = new Scheduler();
  const rng = new Rng('defaults-test');
  const store = new Store(rng.fork('store'), () => scheduler.now);
  new ControlPlane(store, scheduler, rng.fork('control-plane'));
  return store;
}

describe('names', () => {
  it('encodes as rand.SafeEncodeString and hashes as FNV-32a', () => {
    // '0' is 48: 48 % 27 = 21 -> '4'; '9' is 57: 57 % 27 = 3 -> 'f'.
    expect(safeEncodeString('09')).toBe('4f');
    // FNV-32a test vectors (the FNV reference): "" and "a".
    expect(fnv32a('')).toBe(0x811c9dc5);
    expect(fnv32a('a')).toBe(0xe40c292c);
  });

  it('generates names as generateName does: the base cut to 58 characters, 5 safe characters', () => {
    expect(generateName(new Rng('n'), 'web-')).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(generateName(new Rng('n'), `${'x'.repeat(70)}-`)).toHaveLength(63);
  });
});

describe('Pod, Node and Deployment admission', () => {
  it('defaults a pod: grace period 30 s, TCP ports, Pending', () => {
    const store = setup();
    const created = store.create(pod({ name: 'diag', ports: [{ containerPort: 8000 }] }));
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value.spec.terminationGracePeriodSeconds).toBe(30);
    expect(created.value.spec.containers[0]!.ports).toEqual([
      { name: '', containerPort: 8000, protocol: 'TCP' },
    ]);
    expect(created.value.status.phase).toBe('Pending');
  });

  it('refuses bad pods with validation.go wording', () => {
    const store = setup();
    const refused = store.create(
      pod({
        name: 'Diag_1',
        ports: [
          { name: 'http', containerPort: 0 },
          { name: 'http', containerPort: 70000 },
        ],
      }),
    );
    expect(!refused.ok && refused.error.message).toBe(
      "Pod \"Diag_1\" is invalid: [metadata.name: Invalid value: \"Diag_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.containers[0].name: Invalid value: \"Diag_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.containers[0].ports[0].containerPort: Required value, spec.containers[0].ports[1].name: Duplicate value: \"http\", spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive]",
    );
    const empty = store.create(pod({ name: 'empty', containers: [] }));
    expect(!empty.ok && empty.error.message).toBe('Pod "empty" is invalid: spec.containers: Required value');
    expect(store.list('Pod')).toEqual([]);
  });

  it('resolves 25% surge (up) and unavailability (down); both 0 makes unavailable 1', () => {
    expect(resolveFenceposts(1)).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(resolveFenceposts(3)).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(resolveFenceposts(4)).toEqual({ maxSurge: 1, maxUnavailable: 1 });
    expect(resolveFenceposts(10)).toEqual({ maxSurge: 3, maxUnavailable: 2 });
    expect(resolveFenceposts(0)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
  });

  it('refuses a Deployment whose selector misses its labels and negative replicas', () => {
    const store = setup();
    const d = deployment({ name: 'web', labels: { app: 'web' }, replicas: -1 });
    const refused = store.create({ ...d, spec: { ...d.spec, selector: { app: 'other' } } });
    expect(!refused.ok && refused.error.message).toBe(
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    );
  });

  it('builds kind nodes: the control plane tainted NoSchedule', () => {
    const store = setup();
    const created = store.create(
      node({ name: 'formation-control-plane', controlPlane: true, internalIP: '172.18.0.2' }),
    );
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value.spec.taints).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' },
    ]);
    expect(created.value.status.addresses[0]).toEqual({ type: 'InternalIP', address: '172.18.0.2' });
  });
});
