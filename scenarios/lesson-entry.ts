// The lesson's case 6 through a load balancer in front of the nodes (the cloud LB before Traefik): the Service
// signalements turned LoadBalancer, the cluster's LB in the Docker host (172.18.255.200), a client on the Internet
// (203.0.113.10). Three ways in: externalTrafficPolicy Cluster (the pod's log sees a node: SNAT), Local with the
// health check (the client kept; healthCheckNodePort 200 on a node with a pod, 503 on one without, which leaves the
// rotation), and a proxy LB sending PROXY protocol v2 to a server that reads it. Also the building blocks the
// pitfalls reuse. Not here: TLS, the LB's own access logs, several LB addresses.

import type { LoadBalancerHealthCheck, LoadBalancerMode } from '../src/k8s/lb/controller.ts';
import type { Story } from '../src/story/story.ts';
import type { Formation, FormationCni, FormationOptions, Shell } from './formation-cluster.ts';
import { shell } from './formation-cluster.ts';

/** The lesson's three ways in through the load balancer. */
export type LbEntry = 'cluster' | 'local' | 'proxy';

export interface EntryContext {
  readonly f: Formation;
  readonly story: Story;
  readonly sh: Shell;
  readonly cni: FormationCni;
}

export const LB_ADDRESS = '172.18.255.200';
export const CLIENT = '203.0.113.10';

/** What signalements' server must read for an entry: PROXY v2 behind the proxy LB. */
export function entryServer(entry: LbEntry | 'nodeport'): Pick<FormationOptions, 'server'> {
  return entry === 'proxy' ? { server: { proxyProtocol: true } } : {};
}

export interface ExposeOptions {
  readonly policy: 'Cluster' | 'Local';
  readonly mode: LoadBalancerMode;
  readonly proxyProtocol?: boolean;
  readonly healthCheck?: LoadBalancerHealthCheck;
}

/**
 * Turns signalements into a LoadBalancer Service with `policy` and puts the cluster's LB in front, then waits for
 * kube-proxy's sync and the LB's first health checks. Says what a user would type.
 */
export function exposeThroughLb(
  { f, story }: Pick<EntryContext, 'f' | 'story'>,
  options: ExposeOptions,
): void {
  const patch =
    options.policy === 'Local'
      ? '{"spec":{"type":"LoadBalancer","externalTrafficPolicy":"Local"}}'
      : '{"spec":{"type":"LoadBalancer"}}';
  story.say(
    `the Service becomes a LoadBalancer (as \`kubectl patch svc signalements -p '${patch}'\` sets it)`,
  );
  setPolicy(f, options.policy, 'LoadBalancer');
  const lb = [
    `mode ${options.mode}`,
    options.proxyProtocol ? 'PROXY protocol v2 toward the nodes' : '',
    options.healthCheck?.port !== undefined
      ? `health check on every node's port ${options.healthCheck.port}`
      : 'health check on the Service (healthCheckNodePort for Local, kube-proxy 10256 for Cluster)',
    `every ${options.healthCheck?.intervalSeconds ?? 5} s`,
  ].filter((part) => part !== '');
  story.say(`the cloud load balancer in front of the nodes: ${lb.join(', ')}`);
  f.c.addLoadBalancer({
    mode: options.mode,
    ...(options.proxyProtocol ? { proxyProtocol: true } : {}),
    ...(options.healthCheck === undefined ? {} : { healthCheck: options.healthCheck }),
  });
  // A new target is probed at once: kube-proxy's sync (1 s) and the first round of checks are done well within 3 s.
  f.c.sim.run(3e9);
}

/** Changes the Service's type and externalTrafficPolicy through the Store (what `kubectl patch` would do). */
export function setPolicy(f: Formation, policy: 'Cluster' | 'Local', type?: 'LoadBalancer'): void {
  const svc = f.c.store.get('Service', 'default', 'signalements');
  if (svc === undefined) throw new Error('no Service signalements');
  const updated = f.c.store.update<'Service'>({
    ...svc,
    spec: { ...svc.spec, ...(type === undefined ? {} : { type }), externalTrafficPolicy: policy },
  });
  if (!updated.ok) throw new Error(`service signalements: ${updated.error.message}`);
  f.c.sim.run(2e9);
}

/** The Internet host's shell: `curl` from 203.0.113.10. */
export function internetShell({ f, story }: Pick<EntryContext, 'f' | 'story'>): Shell {
  return shell(f.c, story, f.c.internet);
}

/** The access-log lines of every signalements pod written since `marks` (from `logMarks`), in pod-name order. */
export function newLogLines(f: Formation, marks: ReadonlyMap<string, number>): string[] {
  return [...f.accessLogs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([pod, log]) => log.slice(marks.get(pod) ?? 0).map((line) => `${pod}: ${line}`));
}

export function logMarks(f: Formation): Map<string, number> {
  return new Map([...f.accessLogs.entries()].map(([pod, log]) => [pod, log.length]));
}

/** The client address a `pod: line` access-log line shows. */
export function clientOfLine(line: string): string {
  return line.split(': ')[1]?.split(' ')[0] ?? '';
}

/** Case 6 through the LB. */
export function throughLoadBalancer(ctx: EntryContext, entry: LbEntry): void {
  const { story, sh, f } = ctx;
  story.say(
    `case 6: a client on the Internet (${CLIENT}) calls signalements through the load balancer in front of the nodes`,
  );
  if (entry === 'local') {
    story.say('formation-worker3 joins the cluster; no signalements pod runs there');
    f.c.addNode();
    f.c.sim.run(2e9);
  }
  exposeThroughLb(ctx, {
    policy: entry === 'local' ? 'Local' : 'Cluster',
    mode: entry === 'proxy' ? 'proxy' : 'passthrough',
    ...(entry === 'proxy' ? { proxyProtocol: true } : {}),
    ...(entry === 'local' ? { healthCheck: { intervalSeconds: 2 } } : {}),
  });
  const svc = sh('kubectl get svc signalements').stdout;
  story.expectThat(
    `the load balancer gave the Service ${LB_ADDRESS}`,
    `signalements   LoadBalancer   10.96.40.12   ${LB_ADDRESS}   80:30080/TCP`,
    svc.split('\n')[1] ?? '',
    new RegExp(`LoadBalancer +10\\.96\\.40\\.12 +${LB_ADDRESS.replaceAll('.', '\\.')} +80:30080/TCP`).test(
      svc,
    ),
  );
  switch (entry) {
    case 'cluster':
      clusterPolicy(ctx);
      break;
    case 'local':
      localPolicy(ctx);
      break;
    case 'proxy':
      proxyProtocol(ctx);
      break;
    default:
      entry satisfies never;
  }
}

/** `conntrack -L` of the NodePort's connections on both workers, the entries of both. */
function workerConntrack(sh: Shell): string[] {
  return ['formation-worker', 'formation-worker2'].flatMap((node) =>
    sh(`docker exec ${node} conntrack -L -p tcp --dport 30080`)
      .stdout.split('\n')
      .filter((line) => line.startsWith('tcp ')),
  );
}

/** Six calls from the Internet host; returns the bodies. */
function sixCalls(net: Shell, url = `http://${LB_ADDRESS}/sante`): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < 6; i++) {
    const result = net.host(`curl -s -m 2 ${url}`);
    bodies.push(result.exitCode === 0 ? result.stdout.trim() : `exit ${result.exitCode}`);
  }
  return bodies;
}

function clusterPolicy(ctx: EntryContext): void {
  const { story, sh, f } = ctx;
  const rules = sh.host('nft list table ip packetlab-lb').stdout;
  story.expectThat(
    'the LB DNATs to the NodePort of both workers, one chosen at random per connection (no SNAT: passthrough)',
    'numgen random mod 2 ... dnat to 172.18.0.3:30080 ... dnat to 172.18.0.4:30080',
    rules
      .split('\n')
      .filter((line) => line.includes('numgen') || line.includes('dnat'))
      .map((line) => line.trim())
      .join('; '),
    rules.includes('numgen random mod 2') &&
      rules.includes('dnat to 172.18.0.3:30080') &&
      rules.includes('dnat to 172.18.0.4:30080'),
  );
  const net = internetShell(ctx);
  const marks = logMarks(f);
  const bodies = sixCalls(net);
  story.expectThat(
    'every call is answered, by either pod',
    'six answers',
    bodies.join(', '),
    bodies.every((body) => body.startsWith('ok signalements-')),
  );
  const lines = newLogLines(f, marks);
  story.show(`the pods' access logs:\n${lines.join('\n')}`);
  const clients = [...new Set(lines.map(clientOfLine))];
  story.expectThat(
    `externalTrafficPolicy Cluster: the pods log a node's address, never the client ${CLIENT} (SNAT on the entry node)`,
    'node addresses only (10.244.x.x, 172.18.0.x)',
    clients.join(', '),
    lines.length === 6 && clients.every((client) => /^(10\.244\.|172\.18\.0\.)/.test(client)),
  );
  const entries = workerConntrack(sh).filter((line) => line.includes(`src=${CLIENT} `));
  story.expectThat(
    "conntrack on the workers: the client's call DNATed to a pod, and its reply addressed to the node, not the client",
    `src=${CLIENT} dst=172.18.0.x ... dport=30080 src=10.244.x.x dst=<a node address>`,
    entries[0] ?? 'no entry',
    entries.length > 0 &&
      entries.every((line) => /dport=30080 src=10\.244\.\d+\.\d+ dst=(10\.244\.|172\.18\.0\.)/.test(line)),
  );
}

function localPolicy(ctx: EntryContext): void {
  const { story, sh, f } = ctx;
  const port = f.c.store.get('Service', 'default', 'signalements')?.spec.healthCheckNodePort ?? 0;
  story.say(
    `the API server gave the Service healthCheckNodePort ${port}: kube-proxy answers on it, on every node, how many ready pods of the Service the node runs`,
  );
  const checks = [
    ['formation-worker', '172.18.0.3', 200],
    ['formation-worker2', '172.18.0.4', 200],
    ['formation-worker3', '172.18.0.5', 503],
  ] as const;
  for (const [node, addr, status] of checks) {
    const result = sh.host(`curl -s -w ' %{http_code}\\n' http://${addr}:${port}/`).stdout;
    const local = /"localEndpoints": (\d+)/.exec(result)?.[1];
    story.expectThat(
      `${node} answers ${status} with localEndpoints ${status === 200 ? 1 : 0}`,
      `localEndpoints ${status === 200 ? 1 : 0} ... ${status}`,
      `localEndpoints ${local ?? '?'} ... ${result.trim().split(' ').at(-1)}`,
      local === (status === 200 ? '1' : '0') && result.trim().endsWith(` ${status}`),
    );
  }
  const rules = sh.host('nft list table ip packetlab-lb').stdout;
  story.expectThat(
    'the LB keeps only the two nodes that answered 200: formation-worker3 is out of rotation',
    'dnat to 172.18.0.3:30080 and 172.18.0.4:30080, not 172.18.0.5',
    rules
      .split('\n')
      .filter((line) => line.includes('dnat'))
      .map((line) => line.trim())
      .join('; '),
    rules.includes('dnat to 172.18.0.3:30080') &&
      rules.includes('dnat to 172.18.0.4:30080') &&
      !rules.includes('172.18.0.5'),
  );
  const net = internetShell(ctx);
  const marks = logMarks(f);
  const bodies = sixCalls(net);
  story.expectThat(
    'every call is answered',
    'six answers',
    bodies.join(', '),
    bodies.every((body) => body.startsWith('ok signalements-')),
  );
  const lines = newLogLines(f, marks);
  story.show(`the pods' access logs:\n${lines.join('\n')}`);
  story.expectThat(
    `externalTrafficPolicy Local: no SNAT, the pods log the client itself (${CLIENT})`,
    `${CLIENT} in every line`,
    [...new Set(lines.map(clientOfLine))].join(', '),
    lines.length === 6 && lines.every((line) => clientOfLine(line) === CLIENT),
  );
  const entries = workerConntrack(sh).filter((line) => line.includes(`src=${CLIENT} `));
  story.expectThat(
    "conntrack on the workers: only the DNAT, each node to its own pod; the reply goes to the client's address",
    `src=${CLIENT} dst=172.18.0.3 ... dport=30080 src=10.244.1.9 dst=${CLIENT} sport=8000 (or .4 to 10.244.2.7)`,
    entries[0] ?? 'no entry',
    entries.length === 6 &&
      entries.every((line) =>
        /dst=172\.18\.0\.(3 .* src=10\.244\.1\.9|4 .* src=10\.244\.2\.7) dst=203\.0\.113\.10 sport=8000 /.test(
          line,
        ),
      ),
  );
  const direct = net.host('curl -s -m 2 http://172.18.0.5:30080/sante');
  story.expectEqual(
    "why formation-worker3 must stay out: its own NodePort drops what it gets (no local pod), curl's timeout",
    28,
    direct.exitCode,
  );
}

function proxyProtocol(ctx: EntryContext): void {
  const { story, sh, f } = ctx;
  story.say(
    "the LB terminates the client's connection and opens its own to a NodePort, starting it with a PROXY v2 header that names the client; signalements reads it (its server requires the header)",
  );
  const net = internetShell(ctx);
  const marks = logMarks(f);
  const bodies = sixCalls(net);
  story.expectThat(
    'every call is answered, by either pod',
    'six answers',
    bodies.join(', '),
    bodies.every((body) => body.startsWith('ok signalements-')),
  );
  const lines = newLogLines(f, marks);
  story.show(`the pods' access logs:\n${lines.join('\n')}`);
  story.expectThat(
    `the pods log the real client (${CLIENT}) from the PROXY header, though externalTrafficPolicy is Cluster`,
    `${CLIENT} in every line`,
    [...new Set(lines.map(clientOfLine))].join(', '),
    lines.length === 6 && lines.every((line) => clientOfLine(line) === CLIENT),
  );
  const entries = workerConntrack(sh);
  story.expectThat(
    'conntrack on the workers: the TCP client of the NodePort is the LB (172.18.0.1), SNATed as Cluster does',
    'src=172.18.0.1 dst=172.18.0.x ... dport=30080 src=10.244.x.x dst=<a node address>',
    entries[0] ?? 'no entry',
    entries.length === 6 &&
      entries.every((line) =>
        /^tcp .* src=172\.18\.0\.1 dst=172\.18\.0\.[34] sport=\d+ dport=30080 src=10\.244\.\d+\.\d+ dst=(10\.244\.|172\.18\.0\.)/.test(
          line,
        ),
      ),
  );
  const plain = net.host('curl -s http://172.18.0.3:30080/sante');
  story.expectEqual(
    'a plain HTTP call straight to the NodePort now fails: the server wants the header first and closes (curl 52, empty reply)',
    52,
    plain.exitCode,
  );
}
