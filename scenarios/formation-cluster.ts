// The lesson's fil rouge as a real cluster: kind's `formation` (control plane and two workers) on either CNI and
// either kube-proxy mode, the pods pinned at the lesson's addresses (diag 10.244.1.5 and signalements 10.244.1.9 on
// formation-worker, signalements 10.244.2.7 on formation-worker2), the Service signalements 10.96.40.12:80 → 8000
// with NodePort 30080, and the shell of the machine running kind: `docker exec`, `kubectl` and the host's own tools,
// each command recorded in a Story. The load balancer in front of the nodes is the cluster's (lesson-entry.ts puts it
// there). Not here: Cilium.

import { type HttpServerOptions, httpServer } from '../src/app/http/server.ts';
import { service } from '../src/k8s/api/builders.ts';
import { type Cluster, type ClusterOptions, cluster } from '../src/k8s/cluster.ts';
import type { ImageRunner } from '../src/k8s/kubelet/kubelet.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import type { Story } from '../src/story/story.ts';
import type { CommandResult } from '../src/tools/result.ts';

export type FormationCni = 'flannel-vxlan' | 'flannel-host-gw' | 'kindnet';
export type FormationProxy = 'iptables' | 'nftables';
export const FORMATION_CNIS: readonly FormationCni[] = ['flannel-vxlan', 'flannel-host-gw', 'kindnet'];
export const FORMATION_PROXIES: readonly FormationProxy[] = ['iptables', 'nftables'];

/** signalements' image: an HTTP server on 8000 answering /sante with the pod's name, /rapport with a 64 kB report. */
export const SIGNALEMENTS_IMAGE = 'registry.lyneko.fr/signalements:1.4';
export const SIGNALEMENTS = { app: 'signalements' } as const;
/** The size of signalements' /rapport body. */
export const RAPPORT_BYTES = 64_000;

/** The lesson's pods: name, node, pinned address, whether it runs signalements. */
export const LESSON_PODS = [
  { name: 'diag', node: 'formation-worker', ip: '10.244.1.5', signalements: false },
  { name: 'signalements-7d9f-b', node: 'formation-worker', ip: '10.244.1.9', signalements: true },
  { name: 'signalements-7d9f-a', node: 'formation-worker2', ip: '10.244.2.7', signalements: true },
] as const;

export interface Formation {
  readonly c: Cluster;
  /** Each signalements pod's access log (Common Log Format), by pod name. */
  readonly accessLogs: Map<string, string[]>;
  /** Images by name: a scenario adds its own before the pods that use them are created. */
  readonly images: Map<string, ImageRunner>;
}

export interface FormationOptions {
  readonly cni: FormationCni;
  readonly kubeProxy: FormationProxy;
  readonly seed: string | number;
  /** The lesson's pods to create (default all three). */
  readonly pods?: readonly (typeof LESSON_PODS)[number]['name'][];
  /** How signalements' server reads its clients: PROXY v2 required, X-Forwarded-For trusted, a rate limit per client. */
  readonly server?: SignalementsServer;
  /**
   * More listeners in each signalements pod, one per port, sharing the pod's access log (as Traefik's entry points:
   * one reading PROXY v2, one trusting X-Forwarded-For), so a Service may switch targetPort without a restart.
   */
  readonly extraServers?: readonly (SignalementsServer & { readonly port: number })[];
  /** An `mtu` set by hand in flannel's CNI configuration (the MTU pitfall); default flannel's own. */
  readonly configuredPodMtu?: number;
  /** More cluster options (a bug replay's conntrackCleanup, nf_conntrack_max...), given to cluster() as they are. */
  readonly extra?: Omit<ClusterOptions, 'name' | 'workers' | 'cni' | 'kubeProxy' | 'seed' | 'images'>;
}

export type SignalementsServer = Pick<HttpServerOptions, 'proxyProtocol' | 'trustForwardedFor' | 'rateLimit'>;

/** The cluster with its pods and the Service, settled (pods Running, every kube-proxy synced). */
export function formation(options: FormationOptions): Formation {
  const accessLogs = new Map<string, string[]>();
  const images = new Map<string, ImageRunner>();
  images.set(SIGNALEMENTS_IMAGE, (ns, pod) => {
    const log: string[] = [];
    accessLogs.set(pod.metadata.name, log);
    const routes = {
      '/sante': { body: `ok ${pod.metadata.name}\n` },
      '/rapport': { bodyBytes: RAPPORT_BYTES },
    };
    const onLog = (line: string) => log.push(line);
    const servers = [
      httpServer(ns, { port: 8000, routes, onLog, ...options.server }),
      ...(options.extraServers ?? []).map((extra) => httpServer(ns, { routes, onLog, ...extra })),
    ];
    return {
      stop: () => {
        for (const server of servers) server.close();
      },
    };
  });
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: options.cni,
    kubeProxy: options.kubeProxy,
    seed: options.seed,
    images,
    ...(options.configuredPodMtu === undefined ? {} : { configuredPodMtu: options.configuredPodMtu }),
    ...options.extra,
  });
  const wanted = new Set<string>(options.pods ?? LESSON_PODS.map((pod) => pod.name));
  for (const pod of LESSON_PODS) {
    if (!wanted.has(pod.name)) continue;
    const created = c.createPod({
      name: pod.name,
      node: pod.node,
      ip: pod.ip,
      ...(pod.signalements
        ? {
            labels: SIGNALEMENTS,
            container: 'signalements',
            image: SIGNALEMENTS_IMAGE,
            ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
          }
        : { labels: { run: pod.name } }),
    });
    if (!created.ok) throw new Error(`pod ${pod.name}: ${created.error.message}`);
  }
  const svc = c.store.create<'Service'>(
    service({
      name: 'signalements',
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30080 }],
      selector: { ...SIGNALEMENTS },
    }),
  );
  if (!svc.ok) throw new Error(`service signalements: ${svc.error.message}`);
  // Kubelets start the pods, the endpoint controller publishes them, kube-proxy's next sync (1 s later) renders them.
  c.sim.run(2e9);
  return { c, accessLogs, images };
}

/** A shell on the machine running kind, recording into a story. */
export interface Shell {
  /** `docker exec NODE ...` or `kubectl ...`, with what `-i` passes on standard input. */
  (line: string, stdin?: string): CommandResult;
  /** A command of the host's own (curl from the Docker host: "from outside the cluster"). */
  host(line: string): CommandResult;
  /**
   * Starts a long-running command (`docker exec NODE tcpdump ...`), saying so; `stop()` records it with what it
   * printed meanwhile (as a second terminal would show it, so after the commands that ran in between).
   */
  background(line: string): { stop(): CommandResult };
}

/** Virtual time between two commands of the shell. */
const TYPING_PAUSE_NS = 100_000_000;

export function shell(c: Cluster, story: Story, outside: Namespace = c.outside): Shell {
  // Between two commands a user takes a moment: what the last one left in flight (a connection's close) completes.
  const pause = () => c.sim.run(TYPING_PAUSE_NS);
  const run = ((line: string, stdin?: string) => {
    const result = c.exec(line, stdin === undefined ? {} : { stdin });
    story.record('$', stdin === undefined ? line : `printf ${JSON.stringify(stdin)} | ${line}`, result);
    pause();
    return result;
  }) as Shell;
  run.host = (line) => {
    const result = story.run('$', outside, line);
    pause();
    return result;
  };
  run.background = (line) => {
    story.say(`in another terminal, until stopped: ${line}`, {
      fr: `dans un autre terminal, jusqu'à l'arrêt : ${line}`,
    });
    const started = c.spawn(line);
    if (!('stop' in started)) {
      story.record('$', line, started);
      return { stop: () => started };
    }
    return {
      stop: () => {
        const result = started.stop();
        // As a terminal shows it: tcpdump's banner (stderr) first, the packets, then its statistics at exit.
        const stderr = result.stderr.trimEnd().split('\n');
        const stats = stderr.findIndex((line) => line.endsWith('packets captured'));
        const head = stats < 0 ? stderr : stderr.slice(0, stats);
        const tail = stats < 0 ? [] : stderr.slice(stats);
        const output = [...head, ...result.stdout.trimEnd().split('\n'), ...tail].filter(
          (line) => line !== '',
        );
        story.record('$', line, result, output.join('\n'));
        return result;
      },
    };
  };
  return run;
}

/** The container ID of a pod's container as `crictl ps --name NAME` prints it on a node (first row). */
export function crictlId(output: string, pod: string): string | undefined {
  return output
    .split('\n')
    .slice(1)
    .find((row) => row.trimEnd().endsWith(` ${pod}`))
    ?.split(/ +/)[0];
}
