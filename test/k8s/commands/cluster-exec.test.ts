// The node and pod commands on a two-node fixture cluster: exact outputs in the real tools' layouts and errors.

import { beforeEach, describe, expect, test } from 'vitest';
import { clusterExec, clusterSpawn } from '../../../src/k8s/commands/cluster-exec.ts';
import { exec } from '../../../src/tools/exec.ts';
import { buildFixture, type Fixture, SECOND } from './fixture.ts';

let f: Fixture;
const run = (line: string, stdin?: string) => clusterExec(f.ctx, line, stdin === undefined ? {} : { stdin });
const out = (stdout: string) => ({ stdout, stderr: '', exitCode: 0 });
const err = (stderr: string, exitCode = 1) => ({ stdout: '', stderr, exitCode });

beforeEach(() => {
  f = buildFixture();
  // Nodes created at 0 s, pods at 30, 35, 40 s, the Service and its slice at 45 s; now 120 s.
  f.sim.scheduler.runUntil(120 * SECOND);
});

const signalementsId = () => f.containers.get('formation-worker')![1]!.id;

describe('kubectl get', () => {
  test('pods, in kubectl’s columns, AGE from virtual time', () => {
    expect(run('kubectl get pods')).toEqual(
      out(
        'NAME                      READY   STATUS    RESTARTS   AGE\n' +
          'diag                      1/1     Running   0          90s\n' +
          'signalements-7d9f-abcde   1/1     Running   0          85s\n' +
          'signalements-7d9f-fghij   1/1     Running   0          80s\n',
      ),
    );
  });

  test('pods -o wide adds IP, NODE, NOMINATED NODE, READINESS GATES', () => {
    expect(run('kubectl get po -o wide -l app=signalements').stdout).toBe(
      'NAME                      READY   STATUS    RESTARTS   AGE   IP           NODE                NOMINATED NODE   READINESS GATES\n' +
        'signalements-7d9f-abcde   1/1     Running   0          85s   10.244.1.9   formation-worker    <none>           <none>\n' +
        'signalements-7d9f-fghij   1/1     Running   0          80s   10.244.2.7   formation-worker2   <none>           <none>\n',
    );
  });

  test('a Service with its NodePort, an EndpointSlice with its endpoints', () => {
    expect(run('kubectl get svc').stdout).toBe(
      'NAME           TYPE       CLUSTER-IP    EXTERNAL-IP   PORT(S)        AGE\n' +
        'signalements   NodePort   10.96.40.12   <none>        80:30080/TCP   75s\n',
    );
    expect(run('kubectl get svc -o wide').stdout).toBe(
      'NAME           TYPE       CLUSTER-IP    EXTERNAL-IP   PORT(S)        AGE   SELECTOR\n' +
        'signalements   NodePort   10.96.40.12   <none>        80:30080/TCP   75s   app=signalements\n',
    );
    expect(run('kubectl get endpointslices').stdout).toBe(
      'NAME                 ADDRESSTYPE   PORTS   ENDPOINTS               AGE\n' +
        'signalements-x7k2p   IPv4          8000    10.244.1.9,10.244.2.7   75s\n',
    );
  });

  test('nodes -o wide with the kindest/node values', () => {
    expect(run('kubectl get nodes -o wide').stdout).toBe(
      'NAME                      STATUS   ROLES           AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION   CONTAINER-RUNTIME\n' +
        'formation-control-plane   Ready    control-plane   2m    v1.31.0   172.18.0.2    <none>        Debian GNU/Linux 12 (bookworm)   6.18.0           containerd://1.7.18\n' +
        'formation-worker          Ready    <none>          2m    v1.31.0   172.18.0.3    <none>        Debian GNU/Linux 12 (bookworm)   6.18.0           containerd://1.7.18\n' +
        'formation-worker2         Ready    <none>          2m    v1.31.0   172.18.0.4    <none>        Debian GNU/Linux 12 (bookworm)   6.18.0           containerd://1.7.18\n',
    );
  });

  test('-A adds NAMESPACE; -o name; one object by name', () => {
    expect(run('kubectl get pods -A').stdout.split('\n')[1]).toBe(
      'default     diag                      1/1     Running   0          90s',
    );
    expect(run('kubectl get services -o name')).toEqual(out('service/signalements\n'));
    expect(run('kubectl get endpointslice -o name')).toEqual(
      out('endpointslice.discovery.k8s.io/signalements-x7k2p\n'),
    );
    expect(run('kubectl get pod/diag').stdout).toBe(
      'NAME   READY   STATUS    RESTARTS   AGE\ndiag   1/1     Running   0          90s\n',
    );
  });

  test('a pod being deleted reads Terminating; a LoadBalancer without an address reads <pending>', () => {
    const diag = f.store.get('Pod', 'default', 'diag')!;
    f.store.update({ ...diag, metadata: { ...diag.metadata, deletionTimestamp: f.sim.now } });
    expect(run('kubectl get pod diag').stdout.split('\n')[1]).toBe(
      'diag   1/1     Terminating   0          90s',
    );
    const svc = f.store.get('Service', 'default', 'signalements')!;
    f.store.update({ ...svc, spec: { ...svc.spec, type: 'LoadBalancer' } });
    expect(run('kubectl get svc').stdout.split('\n')[1]).toBe(
      'signalements   LoadBalancer   10.96.40.12   <pending>     80:30080/TCP   75s',
    );
  });

  test('kubectl’s errors: nothing found, unknown name, type, flag, output format', () => {
    expect(run('kubectl get pods -n kube-system')).toEqual({
      stdout: '',
      stderr: 'No resources found in kube-system namespace.\n',
      exitCode: 0,
    });
    expect(run('kubectl get deployments -A')).toEqual({
      stdout: '',
      stderr: 'No resources found\n',
      exitCode: 0,
    });
    expect(run('kubectl get pods nope')).toEqual(
      err('Error from server (NotFound): pods "nope" not found\n'),
    );
    expect(run('kubectl get nodes formation-worker9')).toEqual(
      err('Error from server (NotFound): nodes "formation-worker9" not found\n'),
    );
    expect(run('kubectl get foo')).toEqual(err('error: the server doesn\'t have a resource type "foo"\n'));
    expect(run('kubectl get pods --bogus')).toEqual(
      err("Error: unknown flag: --bogus\nSee 'kubectl get --help' for usage.\n"),
    );
    expect(run('kubectl get pods -z')).toEqual(
      err("Error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help' for usage.\n"),
    );
    expect(run('kubectl get pods -o wat').stderr).toMatch(
      /^error: unable to match a printer suitable for the output format "wat", allowed formats are: custom-columns,/,
    );
    expect(run('kubectl foo')).toEqual(
      err('Error: unknown command "foo" for "kubectl"\n\nDid you mean this?\n\ttop\n\n'),
    );
  });
});

describe('docker exec on a node', () => {
  test('runs the command in the node’s namespace', () => {
    expect(run('docker exec formation-worker ip -br addr show dev lo')).toEqual(
      out('lo               UNKNOWN        127.0.0.1/8 \n'),
    );
  });

  test('docker’s own errors', () => {
    expect(run('docker exec formation-worker3 ip route')).toEqual(
      err('Error response from daemon: No such container: formation-worker3\n'),
    );
    expect(run('docker exec formation-worker')).toEqual(
      err(
        "docker: 'docker exec' requires at least 2 arguments\n\nUsage:  docker exec [OPTIONS] CONTAINER COMMAND [ARG...]\n\nSee 'docker exec --help' for more information\n",
      ),
    );
    expect(run('docker exec --bogus formation-worker ip a')).toEqual(
      err(
        "unknown flag: --bogus\n\nUsage:  docker exec [OPTIONS] CONTAINER COMMAND [ARG...]\n\nRun 'docker exec --help' for more information\n",
        125,
      ),
    );
    expect(run('docker exec formation-worker wget x')).toEqual(
      err(
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "wget": executable file not found in $PATH: unknown\n',
        127,
      ),
    );
  });

  test('the node’s flags stop at the container: `ip -br link` keeps its own flags', () => {
    const result = run('docker exec -it formation-worker ip -br link');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').map((line) => line.split(' ')[0])).toEqual([
      'lo',
      'veth1a2b3c4d@if2',
      'veth5e6f7a8b@if2',
      '',
    ]);
  });
});

describe('crictl on a node', () => {
  test('ps --name: v1.31’s columns, truncated IDs, CREATED from virtual time', () => {
    expect(run('docker exec formation-worker crictl ps --name signalements')).toEqual(
      out(
        'CONTAINER           IMAGE               CREATED              STATE               NAME                ATTEMPT             POD ID              POD\n' +
          `${signalementsId().slice(0, 13)}       f239418f835b4       About a minute ago   Running             signalements        0                   91f96c591df04       signalements-7d9f-abcde\n`,
      ),
    );
  });

  test('ps lists newest first; -q prints whole IDs; pods lists the sandboxes', () => {
    const [diag, signalements] = f.containers.get('formation-worker')!;
    expect(run('docker exec formation-worker crictl ps -q')).toEqual(
      out(`${signalements!.id}\n${diag!.id}\n`),
    );
    expect(run('docker exec formation-worker crictl pods').stdout).toBe(
      'POD ID              CREATED              STATE               NAME                      NAMESPACE           ATTEMPT             RUNTIME\n' +
        '91f96c591df04       About a minute ago   Ready               signalements-7d9f-abcde   default             0                   (default)\n' +
        'ba87fd15f169d       About a minute ago   Ready               diag                      default             0                   (default)\n',
    );
  });

  test('inspect with a go-template gives the PID; a prefix of the ID is enough', () => {
    const line = `docker exec formation-worker crictl inspect --output go-template --template '{{.info.pid}}' ${signalementsId().slice(0, 13)}`;
    expect(run(line)).toEqual(out('2388\n'));
    expect(
      run(
        `docker exec formation-worker crictl inspect -o go-template --template 'pid={{ .info.pid }}' ${signalementsId()}`,
      ),
    ).toEqual(out('pid=2388\n'));
  });

  test('inspect’s JSON: sorted keys, the fields a user reaches for', () => {
    const json = JSON.parse(
      run(`docker exec formation-worker crictl inspect ${signalementsId().slice(0, 6)}`).stdout,
    );
    expect(Object.keys(json)).toEqual(['info', 'status']);
    expect(json.status.id).toBe(signalementsId());
    expect(json.status.state).toBe('CONTAINER_RUNNING');
    expect(json.status.createdAt).toBe('1970-01-01T00:00:35Z');
    expect(json.status.image.image).toBe('registry.example/signalements:1.4');
    expect(json.status.labels['io.kubernetes.pod.name']).toBe('signalements-7d9f-abcde');
    expect(json.info.pid).toBe(2388);
    expect(json.info.runtimeSpec.linux.namespaces).toContainEqual({
      path: '/proc/2342/ns/net',
      type: 'network',
    });
  });

  test('crictl’s errors, logged by logrus (logfmt without a terminal, FATA with -t)', () => {
    expect(run('docker exec formation-worker crictl inspect 0000')).toEqual(
      err(
        'time="1970-01-01T00:02:00Z" level=fatal msg="get the status of containers: get container status: rpc error: code = NotFound desc = an error occurred when try to find container \\"0000\\": not found"\n',
      ),
    );
    expect(run('docker exec -t formation-worker crictl ps --bogus')).toEqual(
      err(`\x1b[31mFATA\x1b[0m[0000] ${'flag provided but not defined: -bogus'.padEnd(44)} \n`),
    );
    expect(
      run(
        `docker exec -t formation-worker crictl inspect -o go-template --template '{{.info.nope}}' ${signalementsId()}`,
      ),
    ).toEqual(
      err(
        '\x1b[31mFATA\x1b[0m[0000] get the status of containers: execute template: failed to template data: template: tmplExecuteRawJSON:1:2: executing "tmplExecuteRawJSON" at <.info.nope>: map has no entry for key "nope" \n',
      ),
    );
    expect(run('docker exec formation-worker crictl frobnicate')).toEqual(
      err("No help topic for 'frobnicate'\n", 3),
    );
  });
});

describe('nsenter -t PID -n on a node', () => {
  test('the lesson’s three steps: crictl ps, crictl inspect, nsenter', () => {
    const id = run('docker exec formation-worker crictl ps --name signalements -q').stdout.trim();
    const pid = run(
      `docker exec formation-worker crictl inspect --output go-template --template '{{.info.pid}}' ${id}`,
    ).stdout.trim();
    const addr = run(`docker exec formation-worker nsenter -t ${pid} -n ip -br addr`);
    expect(addr).toEqual(
      out('lo               UNKNOWN        127.0.0.1/8 \neth0@if3         UP             10.244.1.9/24 \n'),
    );
    expect(run(`docker exec formation-worker nsenter --target=${pid} --net -- ip -br addr`)).toEqual(addr);
  });

  test('util-linux’s errors, as nsenter 2.38.1 prints them on this machine', () => {
    expect(run('docker exec formation-worker nsenter -t 999999 -n ip addr')).toEqual(
      err('nsenter: cannot open /proc/999999/ns/net: No such file or directory\n'),
    );
    expect(run('docker exec formation-worker nsenter -n ip addr')).toEqual(
      err('nsenter: neither filename nor target pid supplied for ns/net\n'),
    );
    expect(run('docker exec formation-worker nsenter -t abc -n ip')).toEqual(
      err("nsenter: failed to parse pid: 'abc'\n"),
    );
    expect(run('docker exec formation-worker nsenter --bogus')).toEqual(
      err("nsenter: unrecognized option '--bogus'\nTry 'nsenter --help' for more information.\n"),
    );
    expect(run('docker exec formation-worker nsenter -x')).toEqual(
      err("nsenter: invalid option -- 'x'\nTry 'nsenter --help' for more information.\n"),
    );
    expect(run('docker exec formation-worker nsenter -t 2388 -n nosuchcmd')).toEqual(
      err('nsenter: failed to execute nosuchcmd: No such file or directory\n', 127),
    );
  });
});

describe('kubectl exec and debug', () => {
  test('exec runs in the pod’s namespace; a failing command reports its exit code', () => {
    expect(run('kubectl exec diag -- ip -br addr show dev eth0')).toEqual(
      out('eth0@if2         UP             10.244.1.5/24 \n'),
    );
    const ping = run('kubectl exec diag -- ping -c 1 -W 1 10.9.9.9');
    expect(ping.exitCode).toBe(1);
    expect(ping.stderr).toBe('command terminated with exit code 1\n');
  });

  test('exec’s errors', () => {
    expect(run('kubectl exec')).toEqual(err('error: pod, type/name or --filename must be specified\n'));
    expect(run('kubectl exec diag')).toEqual(
      err('error: you must specify at least one command for the container\n'),
    );
    expect(run('kubectl exec diag ip a')).toEqual(
      err(
        "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples\n",
      ),
    );
    expect(run('kubectl exec nope -- ip a')).toEqual(
      err('Error from server (NotFound): pods "nope" not found\n'),
    );
    expect(run('kubectl exec diag -c other -- ip a')).toEqual(
      err('error: unable to upgrade connection: container not found ("other")\n'),
    );
    expect(run('kubectl exec diag -c')).toEqual(
      err("Error: flag needs an argument: 'c' in -c\nSee 'kubectl exec --help' for usage.\n"),
    );
  });

  test('debug: an ephemeral container in the pod’s network namespace, named as kubectl names it', () => {
    const result = run(
      'kubectl debug signalements-7d9f-fghij -it --image=nicolaka/netshoot --profile=netadmin -- ip -br addr show dev eth0',
    );
    expect(result.stdout).toBe('eth0@if2         UP             10.244.2.7/24 \n');
    expect(result.stderr).toMatch(
      /^Defaulting debug container name to debugger-[bcdfghjklmnpqrstvwxz2456789]{5}\.\n$/,
    );
    expect(run('kubectl debug diag -it --image=busybox -- ip a').stderr).toMatch(
      /^--profile=legacy is deprecated/,
    );
    expect(run('kubectl debug diag')).toEqual(
      err('error: you must specify --image when not using --copy-to.\n'),
    );
    expect(run('kubectl debug --image=busybox')).toEqual(
      err('error: NAME or filename is required for debug\n'),
    );
    expect(run('kubectl debug diag --image=busybox --profile=bogus')).toEqual(
      err('error: unknown profile: bogus\n'),
    );
    expect(run('kubectl debug diag --image=busybox --target')).toEqual(
      err("Error: flag needs an argument: --target\nSee 'kubectl debug --help' for usage.\n"),
    );
  });
});

describe('long-running: docker exec NODE tcpdump', () => {
  test('captures on the node while traffic runs, and stops with its output', () => {
    const capture = clusterSpawn(f.ctx, "docker exec formation-worker tcpdump -ni any -c 1 'arp'");
    if (!('stop' in capture)) throw new Error(capture.stderr);
    const diag = f.ctx.runtime.podNamespace('default', 'diag')!;
    exec(diag, 'ping -c 1 -W 1 10.244.1.9');
    const result = capture.stop();
    // No bridge in the fixture: diag's ARP for 10.244.1.9 reaches the node on its veth and goes no further.
    expect(capture.done).toBe(true);
    expect(result.stdout.replace(/^\d\d:\d\d:\d\d\.\d{6} /gm, 'T ')).toBe(
      'T veth1a2b3c4d B   ARP, Request who-has 10.244.1.9 tell 10.244.1.5, length 28\n',
    );
  });

  test('through nsenter, in the pod’s namespace from the node', () => {
    const capture = clusterSpawn(
      f.ctx,
      "docker exec formation-worker nsenter -t 2201 -n tcpdump -ni eth0 -c 1 'arp'",
    );
    if (!('stop' in capture)) throw new Error(capture.stderr);
    exec(f.ctx.runtime.podNamespace('default', 'diag')!, 'ping -c 1 -W 1 10.244.1.9');
    expect(capture.done).toBe(true);
    expect(capture.stop().stdout.replace(/^\d\d:\d\d:\d\d\.\d{6} /gm, 'T ')).toBe(
      'T ARP, Request who-has 10.244.1.9 tell 10.244.1.5, length 28\n',
    );
  });

  test('a missing node or program fails at start', () => {
    expect(clusterSpawn(f.ctx, 'docker exec nowhere tcpdump -ni any')).toEqual(
      err('Error response from daemon: No such container: nowhere\n'),
    );
    expect(clusterSpawn(f.ctx, 'docker exec formation-worker nsenter -t 2201 -n tshark -i eth0')).toEqual(
      err('nsenter: failed to execute tshark: No such file or directory\n', 127),
    );
  });
});

test('a pod that finished keeps its phase while it is deleted (printPod checks IsPodPhaseTerminal)', () => {
  const diag = f.store.get('Pod', 'default', 'diag')!;
  f.store.update({
    ...diag,
    metadata: { ...diag.metadata, deletionTimestamp: f.sim.now },
    status: { ...diag.status, phase: 'Succeeded', ready: false, containerStatuses: [] },
  });
  expect(run('kubectl get pod diag').stdout.split('\n')[1]).toBe('diag   0/1     Succeeded   0          90s');
});

describe('more of the real tools’ behaviour', () => {
  test('docker exec -i passes standard input, without -i the command reads none', () => {
    const rules = '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 10250 -j ACCEPT\nCOMMIT\n';
    expect(run('docker exec formation-worker iptables-restore --noflush', rules).exitCode).toBe(0);
    expect(run('docker exec formation-worker iptables -S INPUT').stdout).toBe('-P INPUT ACCEPT\n');
    expect(run('docker exec -i formation-worker iptables-restore --noflush', rules).exitCode).toBe(0);
    expect(run('docker exec formation-worker iptables -S INPUT').stdout).toBe(
      '-P INPUT ACCEPT\n-A INPUT -p tcp -m tcp --dport 10250 -j ACCEPT\n',
    );
  });

  test('crictl ps hides exited containers unless -a; -o json is the ListContainersResponse', () => {
    const worker2 = f.containers.get('formation-worker2')!;
    const running = worker2[0]!;
    worker2.unshift({
      ...running,
      id: `0${running.id.slice(1)}`,
      state: 'CONTAINER_EXITED',
      createdAt: 20 * SECOND,
    });
    expect(run('docker exec formation-worker2 crictl ps -q')).toEqual(out(`${running.id}\n`));
    const all = run('docker exec formation-worker2 crictl ps -a').stdout.split('\n');
    expect(all[2]).toBe(
      `0${running.id.slice(1, 13)}       ${running.imageId!.slice(7, 20)}       About a minute ago   Exited              signalements        0                   ${running.podSandboxId.slice(0, 13)}       signalements-7d9f-fghij`,
    );
    const json = JSON.parse(run('docker exec formation-worker2 crictl ps -o json').stdout);
    expect(json.containers).toHaveLength(1);
    expect(json.containers[0]).toMatchObject({
      id: running.id,
      podSandboxId: running.podSandboxId,
      metadata: { name: 'signalements', attempt: 0 },
      state: 'CONTAINER_RUNNING',
      createdAt: '40000000000',
    });
    expect(run('docker exec -t formation-worker2 crictl ps --state bogus')).toEqual(
      err(
        '\x1b[31mFATA\x1b[0m[0000] listing containers: list containers: --state should be one of created, running, exited or unknown \n',
      ),
    );
  });

  test('kubectl exec into a pod with two containers says which one it took', () => {
    const pod = f.store.get('Pod', 'default', 'signalements-7d9f-abcde')!;
    const sidecar = { name: 'proxy', image: 'envoyproxy/envoy:v1.31', ports: [], readinessProbe: undefined };
    f.store.update({ ...pod, spec: { ...pod.spec, containers: [...pod.spec.containers, sidecar] } });
    expect(run('kubectl exec signalements-7d9f-abcde -- ip -br addr show dev eth0')).toEqual({
      stdout: 'eth0@if3         UP             10.244.1.9/24 \n',
      stderr: 'Defaulted container "signalements" out of: signalements, proxy\n',
      exitCode: 0,
    });
    expect(run('kubectl exec signalements-7d9f-abcde -c proxy -- ip -br addr show dev eth0').stderr).toBe('');
  });
});

test('global flags before the subcommand: kubectl -n and --context, crictl --runtime-endpoint', () => {
  expect(run('kubectl -n kube-system get pods').stderr).toBe(
    'No resources found in kube-system namespace.\n',
  );
  expect(run('kubectl --context kind-formation get svc -o name')).toEqual(out('service/signalements\n'));
  expect(run('kubectl --namespace=default exec diag -- ip -br addr show dev lo')).toEqual(
    out('lo               UNKNOWN        127.0.0.1/8 \n'),
  );
  expect(
    run(
      'docker exec formation-worker crictl --runtime-endpoint unix:///run/containerd/containerd.sock ps -q --name diag',
    ),
  ).toEqual(out(`${f.containers.get('formation-worker')![0]!.id}\n`));
});
