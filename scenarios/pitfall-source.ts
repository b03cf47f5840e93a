// The lesson's pitfall "the pod sees a node address instead of the client": signalements (one replica, on
// formation-worker2) limits each client to 2 requests a second (Traefik's RateLimit, 429 beyond), three clients on
// the Internet call it through the load balancer — a scraper at 10 requests a second and two people at 1 — and under
// externalTrafficPolicy Cluster the limit counts node addresses, so the people are refused along with the scraper. Then the lesson's three remedies,
// each shown working: Local, PROXY protocol v2 (a proxy LB and an entry point that reads it), X-Forwarded-For (an
// HTTP LB that sets it and an entry point that trusts it). Not here: a limit keyed on anything but the address.

import { type LoadGenerator, loadGenerator } from '../src/app/load/generator.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import {
  type Formation,
  type FormationCni,
  type FormationProxy,
  formation,
  shell,
} from './formation-cluster.ts';
import { exposeThroughLb, LB_ADDRESS, setPolicy } from './lesson-entry.ts';

export interface PitfallSourceOptions {
  readonly cni?: FormationCni;
  readonly kubeProxy?: FormationProxy;
  readonly seed?: string | number;
}

/** The limit: 2 a second per client, a burst of 2. */
const LIMIT = { average: 2, burst: 2 } as const;

/** The Internet's clients: who, from where, how many requests a second. */
const CLIENTS = [
  { name: 'scraper', addr: '203.0.113.10', rate: 10 },
  { name: 'alice', addr: '198.51.100.21', rate: 1, gateway: '198.51.100.1', device: 'eth2' },
  { name: 'bob', addr: '192.0.2.31', rate: 1, gateway: '192.0.2.1', device: 'eth3' },
] as const;

/** signalements' entry points: plain (8000), PROXY v2 (8001), X-Forwarded-For trusted (8002). */
const PORT_PROXY_V2 = 8001;
const PORT_FORWARDED = 8002;

export function pitfallSourceStory(options: PitfallSourceOptions = {}): StoryResult {
  const cni = options.cni ?? 'kindnet';
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'pitfall-source';
  const f = formation({
    cni,
    kubeProxy,
    seed,
    pods: ['signalements-7d9f-a'],
    server: { rateLimit: LIMIT },
    extraServers: [
      { port: PORT_PROXY_V2, proxyProtocol: true, rateLimit: LIMIT },
      { port: PORT_FORWARDED, trustForwardedFor: true, rateLimit: LIMIT },
    ],
  });
  const story = new Story('pitfall-source', seed);
  story.attach(f.c.sim);
  story.say(`kind cluster formation: ${cni}, kube-proxy in ${kubeProxy} mode`);
  story.say(
    'one signalements replica, signalements-7d9f-a on formation-worker2, behind the Service signalements',
  );
  story.say(
    `signalements limits each client address to ${LIMIT.average} requests a second (burst ${LIMIT.burst}), as Traefik's RateLimit middleware does: beyond, 429 Too Many Requests`,
  );
  const clients = internetClients(f);
  story.say(
    `three clients on the Internet: ${CLIENTS.map((client) => `${client.name} ${client.addr} (${client.rate}/s)`).join(', ')}`,
  );
  const sh = shell(f.c, story);
  exposeThroughLb({ f, story }, { policy: 'Cluster', mode: 'passthrough' });
  sh('kubectl get svc signalements');

  story.say('externalTrafficPolicy Cluster: the entry node masquerades the client to its own address');
  const cluster = phase(f, story, clients);
  story.expectThat(
    'the pods never see a client address, only nodes',
    'node addresses only (10.244.x.x, 172.18.0.x)',
    cluster.seen.join(', '),
    cluster.seen.length > 0 && cluster.seen.every((addr) => /^(10\.244\.|172\.18\.0\.)/.test(addr)),
  );
  story.expectThat(
    'the limit is defeated: alice and bob, at half of it, are refused along with the scraper (they share its buckets)',
    'alice and bob get 429s',
    `alice ${cluster.limited.alice}, bob ${cluster.limited.bob}, scraper ${cluster.limited.scraper} refused`,
    cluster.limited.alice + cluster.limited.bob > 0 && cluster.limited.scraper > 0,
  );

  story.say(
    'remedy 1, externalTrafficPolicy Local (as `kubectl patch svc signalements -p \'{"spec":{"externalTrafficPolicy":"Local"}}\'` sets it): no SNAT, the LB checks healthCheckNodePort',
  );
  setPolicy(f, 'Local');
  f.c.sim.run(3e9);
  sh('kubectl get svc signalements');
  remedy(story, 'Local', phase(f, story, clients));

  story.say(
    `remedy 2, PROXY protocol v2: the LB turns proxy with proxy-protocol-v2 toward the nodes, externalTrafficPolicy back to Cluster, the Service's targetPort to signalements' entry point that reads the header (${PORT_PROXY_V2})`,
  );
  setPolicy(f, 'Cluster');
  setTargetPort(f, PORT_PROXY_V2);
  f.c.removeLoadBalancer();
  f.c.addLoadBalancer({ mode: 'proxy', proxyProtocol: true });
  f.c.sim.run(3e9);
  remedy(story, 'PROXY protocol v2', phase(f, story, clients));

  story.say(
    `remedy 3, X-Forwarded-For: the LB turns HTTP (it sets X-Forwarded-For with the client's address), the Service's targetPort to the entry point that trusts the field (${PORT_FORWARDED})`,
  );
  setTargetPort(f, PORT_FORWARDED);
  f.c.removeLoadBalancer();
  f.c.addLoadBalancer({ mode: 'http' });
  f.c.sim.run(3e9);
  remedy(story, 'X-Forwarded-For', phase(f, story, clients));
  return story.result();
}

interface Client {
  readonly name: (typeof CLIENTS)[number]['name'];
  readonly addr: string;
  readonly rate: number;
  readonly ns: Namespace;
}

/** The scraper is the cluster's Internet host; alice and bob get a namespace each behind the Docker host. */
function internetClients(f: Formation): Client[] {
  return CLIENTS.map((client) => {
    if (!('gateway' in client)) return { ...client, ns: f.c.internet };
    const ns = f.c.sim.addNamespace(client.name);
    const run = (where: Namespace, line: string) => {
      const result = exec(where, line);
      if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
    };
    run(f.c.outside, `ip link add ${client.device} type veth peer name eth0 netns ${client.name}`);
    run(f.c.outside, `ip addr add ${client.gateway}/24 dev ${client.device}`);
    run(f.c.outside, `ip link set ${client.device} up`);
    run(ns, 'ip link set lo up');
    run(ns, `ip addr add ${client.addr}/24 dev eth0`);
    run(ns, 'ip link set eth0 up');
    run(ns, `ip route add default via ${client.gateway}`);
    return { ...client, ns };
  });
}

interface PhaseResult {
  /** Refused (429) requests by client. */
  readonly limited: Readonly<Record<Client['name'], number>>;
  /** The client addresses the pods logged, most frequent first. */
  readonly seen: readonly string[];
}

/** Two seconds of every client's load at once; shows each report and the addresses the pods logged. */
function phase(f: Formation, story: Story, clients: readonly Client[]): PhaseResult {
  const marks = new Map([...f.accessLogs.entries()].map(([pod, log]) => [pod, log.length]));
  const loads: [Client, LoadGenerator][] = clients.map((client) => [
    client,
    loadGenerator(client.ns, {
      target: `${LB_ADDRESS}:80`,
      path: '/sante',
      rate: client.rate,
      arrivals: 'uniform',
      durationMs: 2000,
      timeoutMs: 2000,
    }),
  ]);
  f.c.sim.run(4e9);
  const limited = { scraper: 0, alice: 0, bob: 0 };
  for (const [client, load] of loads) {
    story.show(
      `${client.name} (${client.addr}), ${client.rate} request${client.rate === 1 ? '' : 's'} a second for 2 s:\n${load.table().trimEnd()}`,
    );
    limited[client.name] = load.report().statuses['429'] ?? 0;
  }
  const counts = new Map<string, number>();
  for (const [pod, log] of f.accessLogs)
    for (const line of log.slice(marks.get(pod) ?? 0)) {
      const addr = line.split(' ')[0] ?? '';
      counts.set(addr, (counts.get(addr) ?? 0) + 1);
    }
  const seen = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  story.show(
    `the client addresses in the pods' access logs: ${seen.map(([addr, n]) => `${addr} ×${n}`).join(', ')}`,
  );
  return { limited, seen: seen.map(([addr]) => addr) };
}

function remedy(story: Story, name: string, result: PhaseResult): void {
  const clients = CLIENTS.map((client) => client.addr);
  story.expectThat(
    `${name}: the pods log the three clients' own addresses`,
    clients.join(', '),
    result.seen.join(', '),
    result.seen.length === 3 && clients.every((addr) => result.seen.includes(addr)),
  );
  story.expectThat(
    `${name}: the limit works again: only the scraper is refused`,
    'alice 0, bob 0, scraper > 0 refused',
    `alice ${result.limited.alice}, bob ${result.limited.bob}, scraper ${result.limited.scraper} refused`,
    result.limited.alice === 0 && result.limited.bob === 0 && result.limited.scraper > 0,
  );
}

/** The Service's targetPort (what `kubectl patch svc signalements` would change). */
function setTargetPort(f: Formation, targetPort: number): void {
  const svc = f.c.store.get('Service', 'default', 'signalements');
  if (svc === undefined) throw new Error('no Service signalements');
  const updated = f.c.store.update<'Service'>({
    ...svc,
    spec: { ...svc.spec, ports: svc.spec.ports.map((port) => ({ ...port, targetPort })) },
  });
  if (!updated.ok) throw new Error(`service signalements: ${updated.error.message}`);
  f.c.sim.run(2e9);
}
