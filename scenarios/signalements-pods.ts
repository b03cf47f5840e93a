// signalements' pods as the exercises and security stories need them on the cluster formation: the lesson's pods
// (names, nodes, pinned addresses, labels) running an HTTP server with the story's own routes and options (a large
// /rapport, a PROXY v2 listener, a per-client quota), each keeping its access log. The cluster is built with
// `formation({ pods: ['diag'] })` (or none) first; these pods replace formation's default image for signalements.

import {
  type HttpRoute,
  type HttpServer,
  type HttpServerOptions,
  httpServer,
} from '../src/app/http/server.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { type Formation, LESSON_PODS, SIGNALEMENTS, SIGNALEMENTS_IMAGE } from './formation-cluster.ts';

export type SignalementsPod = Exclude<(typeof LESSON_PODS)[number]['name'], 'diag'>;

export interface SignalementsServer {
  /** Routes besides /sante (`ok POD`). */
  readonly routes?: Readonly<Record<string, HttpRoute>>;
  /** Server options beyond port and routes (PROXY v2, X-Forwarded-For). */
  readonly options?: Omit<HttpServerOptions, 'port' | 'routes' | 'onLog'>;
}

/**
 * Creates the given signalements pods with `server`'s routes (the image is looked up at container start, so the
 * pods run this server) and lets them start; returns each pod's server, by pod name, once running.
 */
export function startSignalements(
  f: Formation,
  pods: readonly SignalementsPod[],
  server: SignalementsServer = {},
): Map<string, HttpServer> {
  const servers = new Map<string, HttpServer>();
  f.images.set(SIGNALEMENTS_IMAGE, (ns, pod) => {
    const log: string[] = [];
    f.accessLogs.set(pod.metadata.name, log);
    const running = serve(ns, pod.metadata.name, log, server);
    servers.set(pod.metadata.name, running);
    return { stop: () => servers.get(pod.metadata.name)?.close() };
  });
  for (const pod of LESSON_PODS) {
    if (!(pods as readonly string[]).includes(pod.name)) continue;
    const created = f.c.createPod({
      name: pod.name,
      node: pod.node,
      ip: pod.ip,
      labels: SIGNALEMENTS,
      container: 'signalements',
      image: SIGNALEMENTS_IMAGE,
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
    });
    if (!created.ok) throw new Error(`pod ${pod.name}: ${created.error.message}`);
  }
  // The kubelets start the pods, the EndpointSlice follows, kube-proxy's next sync renders it.
  f.c.sim.run(2e9);
  return servers;
}

/**
 * The server of a running pod started again with other settings (a new configuration rolled out, as a restart of
 * its process would): the old listener closes, the new one keeps the pod's access log. Returns the new server.
 */
export function reconfigure(
  f: Formation,
  servers: Map<string, HttpServer>,
  pod: SignalementsPod,
  server: SignalementsServer,
): HttpServer {
  const ns = f.c.podNamespace('default', pod);
  const log = f.accessLogs.get(pod);
  if (ns === undefined || log === undefined) throw new Error(`pod ${pod} is not running`);
  servers.get(pod)?.close();
  const running = serve(ns, pod, log, server);
  servers.set(pod, running);
  return running;
}

function serve(ns: Namespace, pod: string, log: string[], server: SignalementsServer): HttpServer {
  return httpServer(ns, {
    ...server.options,
    port: 8000,
    routes: { '/sante': { body: `ok ${pod}\n` }, ...server.routes },
    onLog: (line) => log.push(line),
  });
}
