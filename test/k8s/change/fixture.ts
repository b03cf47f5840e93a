// The change-while-running fixture: the lesson's `formation` cluster (flannel or kindnet, kube-proxy in iptables or
// nftables mode), a Deployment `signalements` behind the ClusterIP 10.96.40.12:80 -> 8000, diag on formation-worker,
// and a timeline that runs a load generator's counts in steps of virtual time.

import { type HttpServer, httpServer } from '../../../src/app/http/server.ts';
import type { LoadGenerator } from '../../../src/app/load/generator.ts';
import { deployment, service } from '../../../src/k8s/api/builders.ts';
import { type Cluster, type CniName, cluster } from '../../../src/k8s/cluster.ts';
import type { ImageRunner } from '../../../src/k8s/kubelet/kubelet.ts';
import type { Pod } from '../../../src/k8s/objects.ts';

export const APP = { app: 'signalements' };
export const CLUSTER_IP = '10.96.40.12';
/** Where diag's load goes: the Service's ClusterIP and port. */
export const TARGET = `${CLUSTER_IP}:80`;

/**
 * signalements: Go's net/http answering GET /sante with the pod's name, each server kept in `servers` by pod name.
 * stop() is SIGKILL: the listener closes and so does every connection the process holds (the kernel closes a dead
 * process's sockets: FIN, as tcp_close sends with nothing unread).
 */
function signalements(servers: Map<string, HttpServer>): ImageRunner {
  return (ns, pod) => {
    const server = httpServer(ns, { port: 8000, routes: { '/sante': { body: `${pod.metadata.name}\n` } } });
    servers.set(pod.metadata.name, server);
    return {
      stop: () => {
        server.close();
        for (const socket of [...ns.tcp.sockets()]) if (socket.localPort === 8000) socket.destroy();
      },
    };
  };
}

export interface FormationOptions {
  readonly kubeProxy: 'iptables' | 'nftables';
  readonly cni?: CniName;
  readonly replicas?: number;
  readonly seed?: string;
  readonly graceSeconds?: number;
  /** kube-proxy's minSyncPeriod (default 1000 ms). */
  readonly minSyncPeriodMs?: number;
}

export interface Formation {
  readonly c: Cluster;
  /** signalements' HTTP servers by pod name (a restarted name gets its new server). */
  readonly servers: Map<string, HttpServer>;
}

/** The cluster, settled 2 s of virtual time after the objects were created. */
export function formation(options: FormationOptions): Formation {
  const servers = new Map<string, HttpServer>();
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: options.cni ?? 'flannel-vxlan',
    kubeProxy: options.kubeProxy,
    seed: options.seed ?? 'change',
    ...(options.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: options.minSyncPeriodMs } : {}),
    images: new Map([['signalements:1.0', signalements(servers)]]),
  });
  must(c.createPod({ name: 'diag', node: 'formation-worker', ip: '10.244.1.5' }));
  must(
    c.store.create<'Deployment'>(
      deployment({
        name: 'signalements',
        labels: APP,
        replicas: options.replicas ?? 2,
        image: 'signalements:1.0',
        ports: [{ name: 'http', containerPort: 8000 }],
        terminationGracePeriodSeconds: options.graceSeconds ?? 5,
      }),
    ),
  );
  must(
    c.store.create<'Service'>(
      service({
        name: 'signalements',
        clusterIP: CLUSTER_IP,
        ports: [{ name: 'http', port: 80, targetPort: 8000 }],
        selector: APP,
      }),
    ),
  );
  c.sim.run(2e9);
  return { c, servers };
}

/**
 * kube-proxy syncs now on every node because another Service appears: the next sync then waits for minSyncPeriod
 * (1 s), the gap in which a node's rules still name endpoints the API has already changed.
 */
export function syncNow(c: Cluster): void {
  must(
    c.store.create<'Service'>(
      service({ name: 'other', ports: [{ port: 81, targetPort: 8000 }], selector: APP }),
    ),
  );
  c.sim.run(0);
}

/** The pod endpoints signalements' rules on a node DNAT to (`10.244.1.6:8000`), sorted: iptables-save or nft list. */
export function ruleEndpoints(c: Cluster, node: string, mode: 'iptables' | 'nftables'): string[] {
  const found = new Set<string>();
  if (mode === 'iptables') {
    const text = c.exec(`docker exec ${node} iptables-save -t nat`).stdout;
    for (const m of text.matchAll(/"default\/signalements:http" -m tcp -j DNAT --to-destination (\S+)/g))
      found.add(m[1]!);
  } else {
    // The Service chain's numgen vmap names the endpoint chains it balances over (flushed chains of removed
    // endpoints linger until the next sync deletes them, unreferenced).
    const text = c.exec(`docker exec ${node} nft list table ip kube-proxy`).stdout;
    for (const line of text.split('\n')) {
      if (!line.includes('numgen') || !line.includes('default/signalements/tcp/http__')) continue;
      for (const m of line.matchAll(/default\/signalements\/tcp\/http__([\d.]+)\/(\d+)/g))
        found.add(`${m[1]}:${m[2]}`);
    }
  }
  return [...found].sort();
}

/** `ip -br link` on a node: the interface names (without `@ifN`). */
export function links(c: Cluster, node: string): string[] {
  return c
    .exec(`docker exec ${node} ip -br link`)
    .stdout.trimEnd()
    .split('\n')
    .map((line) => line.split(/\s+/)[0]!.split('@')[0]!);
}

/** A pod's host-side veth, while its sandbox exists. */
export function hostVeth(c: Cluster, pod: Pod): string {
  const sandbox = c.node(pod.spec.nodeName)?.kubelet.sandboxOf(pod.metadata.namespace, pod.metadata.name);
  if (sandbox === undefined) throw new Error(`no sandbox for ${pod.metadata.name}`);
  return sandbox.hostVeth;
}

export function must<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** The Deployment's pods by name, oldest first. */
export function appPods(c: Cluster): Pod[] {
  return c.store
    .list('Pod', 'default')
    .filter((pod) => pod.metadata.labels.app === 'signalements')
    .sort((a, b) => a.metadata.creationTimestamp - b.metadata.creationTimestamp);
}

/** The Service's endpoints as `ADDRESS NODE ready/serving/terminating`, sorted. */
export function endpoints(c: Cluster): string[] {
  return c.store
    .list('EndpointSlice', 'default')
    .filter((slice) => slice.metadata.name.startsWith('signalements-'))
    .flatMap((slice) => slice.endpoints)
    .map(
      (e) =>
        `${e.addresses[0]} ${e.nodeName} ${e.conditions.ready}/${e.conditions.serving}/${e.conditions.terminating}`,
    )
    .sort();
}

/** One step of a timeline: the virtual second it ended at, and what completed during it. */
export interface Step {
  readonly at: number;
  readonly ok: number;
  readonly failures: Readonly<Record<string, number>>;
}

/** The failures summed over steps, by key. */
export function failuresOf(steps: readonly Step[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const step of steps)
    for (const [key, n] of Object.entries(step.failures)) sum[key] = (sum[key] ?? 0) + n;
  return sum;
}

/** Runs the simulation `steps` times `stepMs` and records what the load generator counted in each step. */
export function timeline(c: Cluster, load: LoadGenerator, stepMs: number, steps: number): Step[] {
  const out: Step[] = [];
  let last = load.report();
  for (let i = 0; i < steps; i++) {
    c.sim.run(stepMs * 1e6);
    const now = load.report();
    const failures: Record<string, number> = {};
    for (const [key, n] of Object.entries(now.failures)) {
      const delta = n - (last.failures[key] ?? 0);
      if (delta > 0) failures[key] = delta;
    }
    out.push({ at: c.sim.now / 1e9, ok: now.succeeded - last.succeeded, failures });
    last = now;
  }
  return out;
}
