// kubectl's writing verbs on a real formation cluster (2 workers): each verb's output as kubectl v1.31 prints it, its
// refusals, and its effect through the control plane — pods scheduled and started, a Service's endpoints following
// labels and replicas, a deleted pod Terminating for its grace period in virtual time.

import { beforeEach, describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import { type Cluster, cluster } from '../../../src/k8s/cluster.ts';
import type { ImageRunner } from '../../../src/k8s/kubelet/kubelet.ts';
import { exec } from '../../../src/tools/exec.ts';

const S = 1_000_000_000;

const SIGNALEMENTS: ImageRunner = (ns, pod) => {
  const server = httpServer(ns, { port: 8000, routes: { '/sante': { body: `${pod.metadata.name}\n` } } });
  return { stop: () => server.close() };
};

function formation(): Cluster {
  return cluster({
    name: 'formation',
    workers: 2,
    seed: 'kubectl-write',
    images: new Map([['signalements:1.0', SIGNALEMENTS]]),
  });
}

function kubectl(c: Cluster, line: string) {
  return c.exec(`kubectl ${line}`);
}

/** klog's line for a command that failed (the pid is the process's, drawn from the commands' rng). */
function klogFailed(err: string): RegExp {
  const escaped = err.replace(/[\\()[\].*+?^$|]/g, (ch) => `\\${ch}`);
  return new RegExp(`^E0101 00:00:\\d\\d\\.\\d{6} +\\d+ run\\.go:72\\] "command failed" err="${escaped}"\n$`);
}

function pods(c: Cluster): string {
  return kubectl(c, 'get pods --no-headers')
    .stdout.split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/).slice(0, 3).join(' '))
    .join('\n');
}

describe('kubectl run', () => {
  let c: Cluster;
  beforeEach(() => {
    c = formation();
  });

  it('creates a pod labelled run=NAME that the scheduler binds and the kubelet starts', () => {
    expect(kubectl(c, 'run diag --image=nicolaka/netshoot:v0.13')).toEqual({
      stdout: 'pod/diag created\n',
      stderr: '',
      exitCode: 0,
    });
    c.sim.run(S);
    const pod = c.store.get('Pod', 'default', 'diag')!;
    expect(pod.metadata.labels).toEqual({ run: 'diag' });
    expect(pod.spec.containers.map((k) => `${k.name} ${k.image}`)).toEqual(['diag nicolaka/netshoot:v0.13']);
    expect(pod.spec.nodeName).toMatch(/^formation-worker2?$/);
    expect(pods(c)).toBe('diag 1/1 Running');
  });

  it('takes --labels and --port, and -n', () => {
    expect(
      kubectl(c, 'run web -n kube-system --image=signalements:1.0 --labels=app=web,tier=api --port=8000')
        .stdout,
    ).toBe('pod/web created\n');
    const pod = c.store.get('Pod', 'kube-system', 'web')!;
    expect(pod.metadata.labels).toEqual({ app: 'web', tier: 'api' });
    expect(pod.spec.containers[0]!.ports.map((p) => `${p.containerPort}/${p.protocol}`)).toEqual([
      '8000/TCP',
    ]);
  });

  it('refuses a second pod of the same name, a missing image or name, and changes nothing', () => {
    kubectl(c, 'run diag --image=nicolaka/netshoot:v0.13');
    const before = c.store.get('Pod', 'default', 'diag');
    expect(kubectl(c, 'run diag --image=busybox')).toEqual({
      stdout: '',
      stderr: 'Error from server (AlreadyExists): pods "diag" already exists\n',
      exitCode: 1,
    });
    expect(c.store.get('Pod', 'default', 'diag')).toBe(before);
    expect(kubectl(c, 'run other').stderr).toMatch(klogFailed('required flag(s) \\"image\\" not set'));
    expect(kubectl(c, 'run --image=busybox')).toEqual({
      stdout: '',
      stderr: "error: NAME is required for run\nSee 'kubectl run -h' for help and examples\n",
      exitCode: 1,
    });
    expect(c.store.get('Pod', 'default', 'other')).toBeUndefined();
  });
});

describe('kubectl create deployment, expose, scale and delete on the signalements app', () => {
  let c: Cluster;
  beforeEach(() => {
    c = formation();
    kubectl(c, 'run diag --image=nicolaka/netshoot:v0.13');
    c.sim.run(S);
  });

  function curlService(): ReturnType<typeof exec> {
    const ip = c.store.get('Service', 'default', 'signalements')!.spec.clusterIP;
    return exec(c.podNamespace('default', 'diag')!, `curl -s --max-time 2 http://${ip}/sante`);
  }

  it('creates the Deployment, exposes it, and the ClusterIP answers from its pods', () => {
    expect(
      kubectl(c, 'create deployment signalements --image=signalements:1.0 --replicas=2 --port=8000'),
    ).toEqual({
      stdout: 'deployment.apps/signalements created\n',
      stderr: '',
      exitCode: 0,
    });
    const made = c.store.get('Deployment', 'default', 'signalements')!;
    expect(made.spec.selector).toEqual({ app: 'signalements' });
    expect(made.spec.template.spec.containers.map((k) => k.name)).toEqual(['signalements']);
    expect(kubectl(c, 'expose deployment signalements --port=80 --target-port=8000 --type=NodePort')).toEqual(
      {
        stdout: 'service/signalements exposed\n',
        stderr: '',
        exitCode: 0,
      },
    );
    const svc = c.store.get('Service', 'default', 'signalements')!;
    expect(svc.spec.type).toBe('NodePort');
    expect(svc.spec.selector).toEqual({ app: 'signalements' });
    expect(svc.spec.ports.map((p) => `${p.name}|${p.port}|${p.targetPort}|${p.protocol}`)).toEqual([
      '|80|8000|TCP',
    ]);
    expect(svc.spec.ports[0]!.nodePort).toBeGreaterThanOrEqual(30000);
    c.sim.run(3 * S);
    expect(
      pods(c)
        .split('\n')
        .filter((l) => l.startsWith('signalements-')),
    ).toHaveLength(2);
    const answer = curlService();
    expect(answer.exitCode).toBe(0);
    expect(answer.stdout).toMatch(/^signalements-[0-9a-z]+-[0-9a-z]{5}\n$/);
  });

  it('scales to 0: the pods terminate and a curl to the Service is refused; back to 1, it answers again', () => {
    kubectl(c, 'create deployment signalements --image=signalements:1.0 --replicas=2 --port=8000');
    kubectl(c, 'expose deployment signalements --port=80 --target-port=8000');
    c.sim.run(3 * S);
    expect(curlService().exitCode).toBe(0);
    expect(kubectl(c, 'scale deployment signalements --replicas=0')).toEqual({
      stdout: 'deployment.apps/signalements scaled\n',
      stderr: '',
      exitCode: 0,
    });
    expect(c.store.get('Deployment', 'default', 'signalements')!.spec.replicas).toBe(0);
    c.sim.run(35 * S);
    expect(pods(c)).toBe('diag 1/1 Running');
    const refused = exec(
      c.podNamespace('default', 'diag')!,
      `curl --max-time 2 http://${c.store.get('Service', 'default', 'signalements')!.spec.clusterIP}/sante`,
    );
    expect(refused.exitCode).toBe(7);
    expect(refused.stderr).toMatch(/Could(n't| not) connect to server/);
    expect(kubectl(c, 'scale deploy/signalements --replicas=1').stdout).toBe(
      'deployment.apps/signalements scaled\n',
    );
    c.sim.run(3 * S);
    expect(curlService().exitCode).toBe(0);
  });

  it('refuses scale without --replicas, with a negative count or on a missing Deployment', () => {
    kubectl(c, 'create deployment signalements --image=signalements:1.0');
    // A required flag is cobra's error past kubectl's flag hook: component-base logs it through klog.
    const missing = kubectl(c, 'scale deployment signalements');
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(klogFailed('required flag(s) \\"replicas\\" not set'));
    expect(kubectl(c, 'scale deployment signalements --replicas=-1').stderr).toBe(
      'error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n',
    );
    expect(kubectl(c, 'scale deployment nope --replicas=3')).toEqual({
      stdout: '',
      stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n',
      exitCode: 1,
    });
    expect(c.store.get('Deployment', 'default', 'signalements')!.spec.replicas).toBe(1);
  });

  it('refuses create deployment without --image or a name, and a second expose', () => {
    expect(kubectl(c, 'create deployment web').stderr).toMatch(
      klogFailed('required flag(s) \\"image\\" not set'),
    );
    expect(kubectl(c, 'create deployment --image=nginx').stderr).toBe(
      "error: exactly one NAME is required, got 0\nSee 'kubectl create deployment -h' for help and examples\n",
    );
    expect(c.store.list('Deployment', 'default')).toEqual([]);
    kubectl(c, 'create deployment signalements --image=signalements:1.0');
    expect(kubectl(c, 'expose deployment signalements').stderr).toBe(
      "error: couldn't find port via --port flag or introspection\nSee 'kubectl expose -h' for help and examples\n",
    );
    expect(kubectl(c, 'expose deployment signalements --port=80').exitCode).toBe(0);
    expect(kubectl(c, 'expose deployment signalements --port=81')).toEqual({
      stdout: '',
      stderr: 'Error from server (AlreadyExists): services "signalements" already exists\n',
      exitCode: 1,
    });
    expect(c.store.get('Service', 'default', 'signalements')!.spec.ports[0]!.port).toBe(80);
    expect(kubectl(c, 'expose deployment nope --port=80').stderr).toBe(
      'Error from server (NotFound): deployments.apps "nope" not found\n',
    );
  });

  it('deletes a Service and a Deployment (its pods terminate)', () => {
    kubectl(c, 'create deployment signalements --image=signalements:1.0 --replicas=2 --port=8000');
    kubectl(c, 'expose deployment signalements --port=80 --target-port=8000 --name=sig');
    c.sim.run(3 * S);
    expect(kubectl(c, 'delete svc sig')).toEqual({
      stdout: 'service "sig" deleted\n',
      stderr: '',
      exitCode: 0,
    });
    expect(c.store.get('Service', 'default', 'sig')).toBeUndefined();
    expect(kubectl(c, 'delete deployment signalements').stdout).toBe(
      'deployment.apps "signalements" deleted\n',
    );
    c.sim.run(S);
    expect(
      pods(c)
        .split('\n')
        .filter((l) => l.startsWith('signalements-')),
    ).toEqual([expect.stringMatching(/ 0\/1 Terminating$/), expect.stringMatching(/ 0\/1 Terminating$/)]);
    c.sim.run(30 * S);
    expect(pods(c)).toBe('diag 1/1 Running');
  });
});

describe('kubectl delete pod', () => {
  let c: Cluster;
  beforeEach(() => {
    c = formation();
    kubectl(c, 'run diag --image=nicolaka/netshoot:v0.13');
    c.sim.run(S);
  });

  it('marks the pod Terminating, and it disappears after its 30 s grace period in virtual time', () => {
    expect(kubectl(c, 'delete pod diag')).toEqual({
      stdout: 'pod "diag" deleted\n',
      stderr: '',
      exitCode: 0,
    });
    expect(pods(c)).toBe('diag 1/1 Terminating');
    c.sim.run(29 * S);
    expect(pods(c)).toBe('diag 0/1 Terminating');
    c.sim.run(2 * S);
    expect(kubectl(c, 'get pods')).toEqual({
      stdout: '',
      stderr: 'No resources found in default namespace.\n',
      exitCode: 0,
    });
  });

  it('takes --grace-period=N, and --now as one second', () => {
    kubectl(c, 'run other --image=busybox');
    c.sim.run(S);
    expect(kubectl(c, 'delete pod diag --grace-period=5').stdout).toBe('pod "diag" deleted\n');
    expect(kubectl(c, 'delete pod/other --now').stdout).toBe('pod "other" deleted\n');
    c.sim.run(1.5 * S);
    expect(pods(c)).toBe('diag 0/1 Terminating');
    c.sim.run(4 * S);
    expect(c.store.list('Pod', 'default')).toEqual([]);
  });

  it('--force with --grace-period=0 removes it at once with the warning; --grace-period=0 alone is 1 s', () => {
    expect(kubectl(c, 'delete pod diag --grace-period=0 --force')).toEqual({
      stdout: 'pod "diag" force deleted\n',
      stderr:
        'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n',
      exitCode: 0,
    });
    expect(c.store.get('Pod', 'default', 'diag')).toBeUndefined();
    kubectl(c, 'run diag --image=busybox');
    c.sim.run(S);
    expect(kubectl(c, 'delete pod diag --grace-period=0').stdout).toBe('pod "diag" deleted\n');
    expect(pods(c)).toBe('diag 1/1 Terminating');
  });

  it('refuses a missing pod and contradictory flags, leaving the pod', () => {
    expect(kubectl(c, 'delete pod nope')).toEqual({
      stdout: '',
      stderr: 'Error from server (NotFound): pods "nope" not found\n',
      exitCode: 1,
    });
    expect(kubectl(c, 'delete pod nope --ignore-not-found').exitCode).toBe(0);
    expect(kubectl(c, 'delete pod diag --now --grace-period=3').stderr).toBe(
      'error: --now and --grace-period cannot be specified together\n',
    );
    expect(kubectl(c, 'delete pod diag --force --grace-period=3').stderr).toBe(
      'error: --force and --grace-period greater than 0 cannot be specified together\n',
    );
    expect(kubectl(c, 'delete pod').stderr).toBe(
      'error: resource(s) were provided, but no name was specified\n',
    );
    // The builder's hint names `get` whatever the verb (as kubectl 1.32 prints it on this machine).
    expect(kubectl(c, 'delete pod/diag diag').stderr).toBe(
      "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'\n",
    );
    expect(kubectl(c, 'delete pod diag --grace-period=abc').stderr).toBe(
      'Error: invalid argument "abc" for "--grace-period" flag: strconv.ParseInt: parsing "abc": invalid syntax\nSee \'kubectl delete --help\' for usage.\n',
    );
    expect(pods(c)).toBe('diag 1/1 Running');
  });

  it('a Deployment replaces a deleted pod', () => {
    kubectl(c, 'create deployment signalements --image=signalements:1.0');
    c.sim.run(2 * S);
    const first = c.store.list('Pod', 'default').find((p) => p.metadata.name.startsWith('signalements-'))!;
    expect(kubectl(c, `delete pod ${first.metadata.name}`).stdout).toBe(
      `pod "${first.metadata.name}" deleted\n`,
    );
    c.sim.run(2 * S);
    const names = c.store
      .list('Pod', 'default')
      .filter(
        (p) => p.metadata.name.startsWith('signalements-') && p.metadata.deletionTimestamp === undefined,
      );
    expect(names).toHaveLength(1);
    expect(names[0]!.metadata.name).not.toBe(first.metadata.name);
  });
});

describe('kubectl label', () => {
  let c: Cluster;
  beforeEach(() => {
    c = formation();
    kubectl(c, 'run diag --image=nicolaka/netshoot:v0.13');
    c.sim.run(S);
  });

  it('adds, refuses to overwrite without --overwrite, overwrites, and removes', () => {
    expect(kubectl(c, 'label pod diag env=dev')).toEqual({
      stdout: 'pod/diag labeled\n',
      stderr: '',
      exitCode: 0,
    });
    expect(kubectl(c, 'label pod diag env=prod')).toEqual({
      stdout: '',
      stderr: "error: 'env' already has a value (dev), and --overwrite is false\n",
      exitCode: 1,
    });
    expect(c.store.get('Pod', 'default', 'diag')!.metadata.labels).toEqual({ run: 'diag', env: 'dev' });
    expect(kubectl(c, 'label pod diag env=prod --overwrite').stdout).toBe('pod/diag labeled\n');
    expect(c.store.get('Pod', 'default', 'diag')!.metadata.labels.env).toBe('prod');
    expect(kubectl(c, 'label pod diag env-').stdout).toBe('pod/diag unlabeled\n');
    expect(c.store.get('Pod', 'default', 'diag')!.metadata.labels).toEqual({ run: 'diag' });
    expect(kubectl(c, 'label pod diag a=-x').stderr).toBe(
      `error: invalid label value: "a=-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n`,
    );
    expect(kubectl(c, 'label pod diag a=b=c').stderr).toBe('error: invalid label spec: a=b=c\n');
    expect(kubectl(c, 'label pod diag a=b a-').stderr).toBe(
      'error: can not both modify and remove a label in the same command\n',
    );
    expect(kubectl(c, 'label pod nope a=b').stderr).toBe(
      'Error from server (NotFound): pods "nope" not found\n',
    );
    expect(kubectl(c, 'label pod diag').stderr).toBe('error: at least one label update is required\n');
  });

  it('a pod labelled app=signalements joins the Service’s EndpointSlice', () => {
    kubectl(c, 'run sig --image=signalements:1.0 --port=8000');
    kubectl(c, 'expose pod sig --port=80 --target-port=8000 --name=signalements');
    kubectl(c, 'run sig2 --image=signalements:1.0 --labels=app=other --port=8000');
    c.sim.run(2 * S);
    const addresses = () =>
      c.store
        .list('EndpointSlice', 'default')
        .filter((s) => s.metadata.name.startsWith('signalements-'))
        .flatMap((s) => s.endpoints.map((e) => e.targetRef.name))
        .sort();
    expect(addresses()).toEqual(['sig']);
    expect(kubectl(c, 'label pod sig2 run=sig --overwrite').stdout).toBe('pod/sig2 labeled\n');
    c.sim.run(2 * S);
    expect(addresses()).toEqual(['sig', 'sig2']);
  });
});

describe('kubectl cordon and uncordon', () => {
  it('marks the node unschedulable; new pods go to the other worker; uncordon undoes it', () => {
    const c = formation();
    expect(kubectl(c, 'cordon formation-worker')).toEqual({
      stdout: 'node/formation-worker cordoned\n',
      stderr: '',
      exitCode: 0,
    });
    expect(kubectl(c, 'cordon formation-worker').stdout).toBe('node/formation-worker already cordoned\n');
    expect(kubectl(c, 'get nodes formation-worker --no-headers').stdout).toMatch(
      /^formation-worker\s+Ready,SchedulingDisabled\s/,
    );
    for (const name of ['a', 'b', 'c']) kubectl(c, `run ${name} --image=busybox`);
    c.sim.run(S);
    expect(c.store.list('Pod', 'default').map((p) => p.spec.nodeName)).toEqual([
      'formation-worker2',
      'formation-worker2',
      'formation-worker2',
    ]);
    expect(kubectl(c, 'uncordon formation-worker').stdout).toBe('node/formation-worker uncordoned\n');
    expect(kubectl(c, 'uncordon formation-worker').stdout).toBe('node/formation-worker already uncordoned\n');
    expect(c.store.get('Node', '', 'formation-worker')!.spec.unschedulable).toBe(false);
    expect(kubectl(c, 'cordon nope')).toEqual({
      stdout: '',
      stderr: 'Error from server (NotFound): nodes "nope" not found\n',
      exitCode: 1,
    });
    expect(kubectl(c, 'cordon').stderr).toBe(
      "error: USAGE: cordon NODE [flags]\nSee 'kubectl cordon -h' for help and examples\n",
    );
  });
});
