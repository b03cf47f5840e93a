// The lesson's four exercises ("Exercices"), each answered by running it on the cluster formation: 1, every hop of
// GET /sante from diag to the Service signalements served on formation-worker2 (flannel VXLAN, kube-proxy iptables),
// as a table built from tcpdump on both nodes and conntrack; 2, the client address lost behind a LoadBalancer with
// externalTrafficPolicy Cluster, and two remedies with their evidence and risks; 3, where two captures confirm a
// tunnel MTU black hole; 4, the checks, in order, when Local sends one request in three to a node without a pod.
// Not here: Cilium, a cloud provider's own console (the load balancer's settings are shown as packetlab holds them).

import type { HttpRequestInfo } from '../src/app/http/server.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import { formatIpv4 } from '../src/wire/address.ts';
import { type Formation, formation, shell } from './formation-cluster.ts';
import {
  behindLoadBalancer,
  fromInternet,
  LB_ADDRESS,
  patchSignalements,
  settle,
  statusLine,
} from './load-balanced.ts';
import { reconfigure, startSignalements } from './signalements-pods.ts';
import { addressOf, type Hop, hops, portOf } from './tcpdump-lines.ts';

export const EXERCISES = [1, 2, 3, 4] as const;
export type Exercise = (typeof EXERCISES)[number];

/** One exercise as a story on its own cluster(s). */
export function exerciseStory(which: Exercise, seed: string | number = 'exercises'): StoryResult {
  const story = new Story(`exercise ${which}`, seed);
  switch (which) {
    case 1:
      drawThePath(story, seed);
      break;
    case 2:
      sourceLost(story, seed);
      break;
    case 3:
      whereToCapture(story, seed);
      break;
    case 4:
      nodeWithoutPod(story, seed);
      break;
    default:
      which satisfies never;
  }
  return story.result();
}

// ---- Exercise 1: draw the path -----------------------------------------------------------------------------------

/** A hop of the capture, with the node it was seen on. */
interface NodeHop extends Hop {
  readonly node: string;
}

/** Where on its node a hop was captured, in the lesson's terms (device kind and direction decide). */
function whereOf(hop: NodeHop, leg: 'request' | 'reply', first: boolean): string {
  const device = hop.device.startsWith('veth') ? 'veth' : hop.device;
  switch (device) {
    case 'veth':
      if (hop.direction === 'P')
        return `pod's veth, bridge port of cni0: as the pod sent it${first && leg === 'request' ? ' (before PREROUTING)' : ''}`;
      return "pod's veth: delivered to the pod";
    case 'cni0':
      if (hop.direction === 'In') return 'cni0 up to the node: after PREROUTING (br_netfilter), routing next';
      return leg === 'reply' && hop.node === 'formation-worker'
        ? 'cni0 down to the pod: after POSTROUTING, conntrack undid the DNAT'
        : `cni0 down to the pod: routed to ${hop.node === 'formation-worker' ? '10.244.1.0/24' : '10.244.2.0/24'} dev cni0`;
    case 'flannel.1':
      return hop.direction === 'Out'
        ? 'flannel.1: routed via the peer subnet, FORWARD, POSTROUTING (no SNAT)'
        : 'flannel.1: decapsulated';
    case 'eth0':
      return hop.direction === 'Out' ? 'eth0 out: VXLAN (UDP 8472, VNI 1)' : 'eth0 in: VXLAN from the peer';
    default:
      return hop.device;
  }
}

/** The table of exercise 1: one row per hop, addresses as tcpdump printed them. */
function pathTable(rows: readonly { hop: NodeHop; leg: 'request' | 'reply'; where: string }[]): string {
  const header = ['step', 'node', 'device', 'dir', 'where', 'source', 'destination', 'outer (VXLAN)'];
  const cells = rows.map(({ hop, leg, where }, i) => [
    String(i + 1),
    hop.node,
    hop.device,
    hop.direction,
    `${leg}: ${where}`,
    flow(hop).src,
    flow(hop).dst,
    hop.inner === undefined ? '' : `${hop.src} > ${hop.dst}`,
  ]);
  const widths = header.map((title, col) => Math.max(title.length, ...cells.map((row) => row[col]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, col) => cell.padEnd(widths[col]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}

/** The inner `src > dst` of a hop, or its own. */
function flow(hop: Hop): { src: string; dst: string } {
  if (hop.inner === undefined) return { src: hop.src, dst: hop.dst };
  const [src = '', dst = ''] = hop.inner.split(' > ');
  return { src, dst };
}

function drawThePath(story: Story, seed: string | number): void {
  const { c } = formation({
    cni: 'flannel-vxlan',
    kubeProxy: 'iptables',
    seed,
    pods: ['diag', 'signalements-7d9f-a'],
  });
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    'exercise 1: GET /sante from diag (10.244.1.5, formation-worker) to the Service signalements, served by the pod on formation-worker2; flannel VXLAN, kube-proxy iptables',
  );
  story.say(
    'so that the endpoint chosen is on formation-worker2 every time, signalements runs here with one replica, signalements-7d9f-a (10.244.2.7): KUBE-SVC has one KUBE-SEP to pick (with two, it draws 10.244.1.9 with probability 0.5)',
  );
  sh('kubectl get pods -o wide');
  const slices = sh('kubectl get endpointslices').stdout;
  story.expectThat(
    "the Service's only endpoint is 10.244.2.7",
    'signalements-xxxxx ... 8000 10.244.2.7',
    slices.split('\n').find((line) => line.startsWith('signalements-')) ?? '',
    /^signalements-\S+ +IPv4 +8000 +10\.244\.2\.7 /m.test(slices),
  );
  const services = sh('docker exec formation-worker iptables -t nat -S KUBE-SERVICES').stdout;
  const svcChain = /-d 10\.96\.40\.12\/32 .* -j (KUBE-SVC-\w+)/.exec(services)?.[1] ?? 'KUBE-SVC-missing';
  const svc = sh(`docker exec formation-worker iptables -t nat -S ${svcChain}`).stdout;
  const sepChain = /-j (KUBE-SEP-\w+)/.exec(svc)?.[1] ?? 'KUBE-SEP-missing';
  const sep = sh(`docker exec formation-worker iptables -t nat -S ${sepChain}`).stdout;
  story.expectThat(
    `${svcChain} jumps to one endpoint chain, which DNATs to 10.244.2.7:8000`,
    '-j DNAT --to-destination 10.244.2.7:8000',
    sep.split('\n').find((line) => line.includes('DNAT')) ?? '',
    (svc.match(/-j KUBE-SEP-/g) ?? []).length === 1 &&
      sep.includes('-j DNAT --to-destination 10.244.2.7:8000'),
  );
  const filter = (peer: string) => `'(tcp and host 10.244.1.5) or (udp port 8472 and host ${peer})'`;
  const atW1 = sh.background(`docker exec formation-worker tcpdump -ni any ${filter('172.18.0.4')}`);
  const atW2 = sh.background(`docker exec formation-worker2 tcpdump -ni any ${filter('172.18.0.3')}`);
  const body = sh('kubectl exec diag -- curl -s http://signalements/sante').stdout.trim();
  story.expectEqual('diag gets its answer from the pod on formation-worker2', 'ok signalements-7d9f-a', body);
  const w1 = hops(atW1.stop().stdout).map((hop) => ({ ...hop, node: 'formation-worker' }));
  const w2 = hops(atW2.stop().stdout).map((hop) => ({ ...hop, node: 'formation-worker2' }));
  const w1Table = sh('docker exec formation-worker conntrack -L -p tcp').stdout;
  const w2Table = sh('docker exec formation-worker2 conntrack -L -p tcp').stdout;

  // The segment carrying GET /sante (the client's first data, seq 1:...) and the one carrying the answer.
  const firstData = (hop: NodeHop) =>
    /^Flags \[P\.\], seq 1:/.test(hop.inner === undefined ? hop.rest : (hop.innerRest ?? ''));
  const request = (hop: NodeHop) => firstData(hop) && addressOf(flow(hop).src) === '10.244.1.5';
  const reply = (hop: NodeHop) => firstData(hop) && addressOf(flow(hop).dst) === '10.244.1.5';
  const requestHops = [...w1.filter(request), ...w2.filter(request)];
  const replyHops = [...w2.filter(reply), ...w1.filter(reply)];
  const rows = [
    ...requestHops.map((hop, i) => ({
      hop,
      leg: 'request' as const,
      where: whereOf(hop, 'request', i === 0),
    })),
    ...replyHops.map((hop, i) => ({ hop, leg: 'reply' as const, where: whereOf(hop, 'reply', i === 0) })),
  ];
  story.say(
    'the answer, hop by hop, from the two captures (the segment carrying GET /sante, then its answer):',
  );
  story.show(pathTable(rows));
  const port = requestHops[0] === undefined ? 'none' : (portOf(flow(requestHops[0]).src) ?? 'none');
  const client = `10.244.1.5.${port}`;
  const route = (list: readonly NodeHop[]) =>
    list
      .map((hop) => `${hop.node === 'formation-worker' ? 'W1' : 'W2'} ${hop.device} ${hop.direction}`)
      .join(', ');
  story.expectEqual(
    'the request crosses 8 hops: veth, cni0, flannel.1, eth0 on W1, then eth0, flannel.1, cni0, veth on W2',
    'W1 veth P, W1 cni0 In, W1 flannel.1 Out, W1 eth0 Out, W2 eth0 In, W2 flannel.1 In, W2 cni0 Out, W2 veth Out',
    route(requestHops).replace(/veth[0-9a-f]{8}/g, 'veth'),
  );
  const first = requestHops[0];
  story.expectThat(
    "on diag's veth (before PREROUTING) it still goes to the Service: 10.96.40.12:80",
    `${client} > 10.96.40.12.80`,
    first === undefined ? 'none' : `${flow(first).src} > ${flow(first).dst}`,
    first !== undefined && flow(first).dst === '10.96.40.12.80',
  );
  const afterDnat = requestHops.slice(1);
  story.expectThat(
    'from cni0 on (after the DNAT in PREROUTING) to the pod, every hop reads 10.244.1.5 > 10.244.2.7:8000',
    `every hop ${client} > 10.244.2.7.8000`,
    [...new Set(afterDnat.map((hop) => `${flow(hop).src} > ${flow(hop).dst}`))].join('; '),
    afterDnat.length === 7 &&
      afterDnat.every((hop) => flow(hop).src === client && flow(hop).dst === '10.244.2.7.8000'),
  );
  const outer = requestHops.filter((hop) => hop.device === 'eth0');
  story.expectThat(
    'on both eth0: outer UDP 172.18.0.3 > 172.18.0.4:8472, the pod packet inside unchanged',
    `172.18.0.3.PORT > 172.18.0.4.8472 [${client} > 10.244.2.7.8000]`,
    outer.map((hop) => `${hop.node} ${hop.src} > ${hop.dst} [${hop.inner}]`).join('; '),
    outer.length === 2 &&
      outer.every(
        (hop) =>
          addressOf(hop.src) === '172.18.0.3' &&
          hop.dst === '172.18.0.4.8472' &&
          flow(hop).dst === '10.244.2.7.8000',
      ),
  );
  const outerBack = replyHops.filter((hop) => hop.device === 'eth0');
  story.expectThat(
    'and back: outer UDP 172.18.0.4 > 172.18.0.3:8472 around 10.244.2.7:8000 > diag',
    `172.18.0.4.PORT > 172.18.0.3.8472 [10.244.2.7.8000 > ${client}]`,
    outerBack.map((hop) => `${hop.node} ${hop.src} > ${hop.dst} [${hop.inner}]`).join('; '),
    outerBack.length === 2 &&
      outerBack.every(
        (hop) =>
          addressOf(hop.src) === '172.18.0.4' &&
          hop.dst === '172.18.0.3.8472' &&
          flow(hop).src === '10.244.2.7.8000' &&
          flow(hop).dst === client,
      ),
  );
  story.expectEqual(
    'the reply goes back the same 8 hops the other way',
    'W2 veth P, W2 cni0 In, W2 flannel.1 Out, W2 eth0 Out, W1 eth0 In, W1 flannel.1 In, W1 cni0 Out, W1 veth Out',
    route(replyHops).replace(/veth[0-9a-f]{8}/g, 'veth'),
  );
  const untranslated = replyHops.filter(
    (hop) => !(hop.node === 'formation-worker' && hop.device !== 'eth0' && hop.device !== 'flannel.1'),
  );
  story.expectThat(
    'the reply leaves the pod and crosses the tunnel from 10.244.2.7:8000',
    `every hop 10.244.2.7.8000 > ${client}`,
    [...new Set(untranslated.map((hop) => `${flow(hop).src} > ${flow(hop).dst}`))].join('; '),
    untranslated.length === 6 &&
      untranslated.every((hop) => flow(hop).src === '10.244.2.7.8000' && flow(hop).dst === client),
  );
  const back = replyHops.filter(
    (hop) => hop.node === 'formation-worker' && (hop.device === 'cni0' || hop.device.startsWith('veth')),
  );
  story.expectThat(
    "on formation-worker, after POSTROUTING, conntrack's un-DNAT makes it come from 10.96.40.12:80",
    `cni0 and diag's veth: 10.96.40.12.80 > ${client}`,
    back.map((hop) => `${hop.device} ${flow(hop).src} > ${flow(hop).dst}`).join('; '),
    back.length === 2 && back.every((hop) => flow(hop).src === '10.96.40.12.80' && flow(hop).dst === client),
  );
  const w1Entry = w1Table.split('\n').find((line) => line.includes(`sport=${port} `)) ?? '';
  story.expectThat(
    "formation-worker's conntrack holds the translation: to 10.96.40.12:80, answered by 10.244.2.7:8000",
    `src=10.244.1.5 dst=10.96.40.12 sport=${port} dport=80 src=10.244.2.7 dst=10.244.1.5 sport=8000 dport=${port}`,
    w1Entry,
    w1Entry.includes(
      `src=10.244.1.5 dst=10.96.40.12 sport=${port} dport=80 src=10.244.2.7 dst=10.244.1.5 sport=8000 dport=${port}`,
    ),
  );
  const w2Entry = w2Table.split('\n').find((line) => line.includes(`sport=${port} `)) ?? '';
  story.expectThat(
    "formation-worker2's entry has no translation: it sees diag's own address",
    `src=10.244.1.5 dst=10.244.2.7 sport=${port} dport=8000 src=10.244.2.7 dst=10.244.1.5 sport=8000 dport=${port}`,
    w2Entry,
    w2Entry.includes(
      `src=10.244.1.5 dst=10.244.2.7 sport=${port} dport=8000 src=10.244.2.7 dst=10.244.1.5 sport=8000 dport=${port}`,
    ),
  );
  story.say(
    'answer: one DNAT (PREROUTING on formation-worker, 10.96.40.12:80 → 10.244.2.7:8000), VXLAN between 172.18.0.3 and 172.18.0.4:8472 around an unchanged pod packet, no SNAT; on the way back conntrack on formation-worker restores 10.96.40.12:80 as the source',
  );
}

// ---- Exercise 2: the source lost ------------------------------------------------------------------------------

/** The API's rule: this many calls per client address per minute; beyond, 429. */
const QUOTA = 4;
/** Three Internet clients, three calls each: each under the quota, together over it for any address they share. */
const CLIENTS = ['203.0.113.10', '203.0.113.11', '203.0.113.12'] as const;
const CALLS_EACH = 3;

/** signalements' rate limiter, keyed on the client the server sees (its access log's first field). */
function rateLimiter(now: () => number) {
  const calls = new Map<string, number[]>();
  const respond = (request: HttpRequestInfo) => {
    const recent = (calls.get(request.client) ?? []).filter((at) => now() - at < 60e9);
    recent.push(now());
    calls.set(request.client, recent);
    if (recent.length > QUOTA)
      return { status: 429, body: `quota exceeded for ${request.client}\n`, headers: {} };
    return {
      status: 200,
      body: `${recent.length}/${QUOTA} this minute for ${request.client}\n`,
      headers: {},
    };
  };
  return { routes: { '/api/signalements': { respond } } };
}

/** Every client calls CALLS_EACH times, in turns; the status lines by client. */
function callsFromClients(f: Formation, story: Story): Map<string, string[]> {
  const answers = new Map<string, string[]>(CLIENTS.map((client) => [client, []]));
  for (let round = 0; round < CALLS_EACH; round++)
    for (const client of CLIENTS)
      answers.get(client)!.push(statusLine(fromInternet(f, story, client, '/api/signalements').stdout));
  return answers;
}

function summary(answers: Map<string, string[]>): string {
  return [...answers]
    .map(([client, lines]) => `${client}: ${lines.map((l) => l.split(' ')[1]).join(' ')}`)
    .join('; ');
}

/** The distinct first fields (clients) of access-log lines. */
function loggedClients(lines: readonly string[]): string[] {
  return [...new Set(lines.map((line) => line.split(' ')[0] ?? ''))];
}

/** An address of a node: on the node network, or a node's own end of the pod network (10.244.N.0 or .1). */
function isNodeAddress(addr: string): boolean {
  return /^172\.18\.0\.\d+$/.test(addr) || /^10\.244\.\d+\.[01]$/.test(addr);
}

function sourceLost(story: Story, seed: string | number): void {
  story.say(
    `exercise 2: the signalements API allows ${QUOTA} calls per client address per minute, but every outside call seems to come from a node; the Service is a LoadBalancer with externalTrafficPolicy Cluster`,
  );
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed, pods: ['diag'] });
  story.attach(f.c.sim);
  const limiter = rateLimiter(() => f.c.sim.now);
  startSignalements(f, ['signalements-7d9f-a'], { routes: limiter.routes });
  const lb = behindLoadBalancer(f, { mode: 'passthrough' }, 'Cluster');
  const sh = shell(f.c, story);
  story.say(
    `signalements runs one replica, on formation-worker2; a passthrough load balancer (${LB_ADDRESS}) DNATs to the NodePort of both workers, keeping the client's address`,
  );
  sh('kubectl get svc signalements');
  const log = () => f.accessLogs.get('signalements-7d9f-a') ?? [];
  story.say(
    `three outside clients (${CLIENTS.join(', ')}) call ${CALLS_EACH} times each, under their quota of ${QUOTA}`,
  );
  const cluster = callsFromClients(f, story);
  story.show(`signalements-7d9f-a's access log:\n${log().join('\n')}`);
  const seen = loggedClients(log());
  story.expectThat(
    'the pod logs node addresses only, never a client: externalTrafficPolicy Cluster SNATs on the node',
    'every logged client a node address, none 203.0.113.x',
    seen.join(', '),
    seen.length > 0 && seen.every(isNodeAddress),
  );
  story.expectThat(
    `so ${CLIENTS.length} clients are counted as at most 2 (one per node), and the quota runs out for all of them`,
    'some calls answered 429 Too Many Requests',
    summary(cluster),
    seen.length <= 2 && [...cluster.values()].flat().some((line) => line.includes(' 429 ')),
  );
  const nodePorts = sh('docker exec formation-worker iptables -t nat -S KUBE-NODEPORTS').stdout;
  const ext = /-j (KUBE-EXT-\w+)/.exec(nodePorts)?.[1] ?? 'KUBE-EXT-missing';
  const extRules = sh(`docker exec formation-worker iptables -t nat -S ${ext}`).stdout;
  story.expectThat(
    `the rule that does it: ${ext} marks every NodePort packet for masquerade`,
    '-A KUBE-EXT-... "masquerade traffic for default/signalements:http external destinations" -j KUBE-MARK-MASQ',
    extRules.split('\n').find((line) => line.includes('KUBE-MARK-MASQ')) ?? '',
    /masquerade traffic for default\/signalements:http external destinations" -j KUBE-MARK-MASQ/.test(
      extRules,
    ),
  );

  story.say(
    'solution 1: externalTrafficPolicy: Local (kubectl patch svc signalements -p \'{"spec":{"externalTrafficPolicy":"Local"}}\')',
  );
  const local = patchSignalements(f, { externalTrafficPolicy: 'Local' });
  settle(f);
  f.c.sim.run(60e9); // a new minute for the quota
  const before = log().length;
  const kept = callsFromClients(f, story);
  const keptLog = log().slice(before);
  story.show(`signalements-7d9f-a's access log since:\n${keptLog.join('\n')}`);
  story.expectEqual(
    'evidence: the pod logs each client by its own address, and nobody is over quota',
    `${CLIENTS.join(', ')}; no 429`,
    `${loggedClients(keptLog).join(', ')}; ${[...kept.values()].flat().some((line) => line.includes(' 429 ')) ? 'some 429' : 'no 429'}`,
  );
  const port = local.spec.healthCheckNodePort;
  const healthW1 = sh.host(`curl -s -w ' %{http_code}\\n' http://172.18.0.3:${port}/healthz`).stdout;
  story.expectThat(
    `risk: formation-worker has no pod; its healthCheckNodePort (${port}) answers 503 with localEndpoints 0`,
    '"localEndpoints": 0 ... 503',
    healthW1.replace(/\s+/g, ' ').trim(),
    healthW1.includes('"localEndpoints": 0') && healthW1.trimEnd().endsWith(' 503'),
  );
  story.expectEqual(
    'so the load balancer keeps formation-worker2 only: one node takes all the traffic (equal weight per node, whatever its pods)',
    'formation-worker2',
    lb.views()[0]?.inRotation.join(', ') ?? '',
  );
  const atNode = shell(f.c, story, f.c.internet).host(
    'curl -sS -m 2 http://172.18.0.3:30080/api/signalements',
  );
  story.expectEqual(
    "and a call that reaches formation-worker's NodePort anyway (a stale health check, a client on the node's address) is dropped: curl times out",
    28,
    atNode.exitCode,
  );

  solutionProxyProtocol(story, seed);
  story.say(
    'answer: Local keeps the client but needs a pod on every node the balancer uses (and its health check); PROXY v2 keeps the client with any policy but everything that reaches the server must speak it. X-Forwarded-For is the HTTP-only third way',
  );
}

/** Solution 2 of exercise 2, on a cluster of its own: the balancer as a TCP proxy sending PROXY v2. */
function solutionProxyProtocol(story: Story, seed: string | number): void {
  story.say(
    "solution 2: the PROXY protocol v2 (Scaleway's proxy-protocol-v2 option): the balancer, a TCP proxy, starts every connection with a header naming the client. Another cluster, the same objects",
  );
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed, pods: ['diag'] });
  const limiter = rateLimiter(() => f.c.sim.now);
  const servers = startSignalements(f, ['signalements-7d9f-a'], { routes: limiter.routes });
  behindLoadBalancer(f, { mode: 'proxy', proxyProtocol: true }, 'Cluster');
  const sh = shell(f.c, story);
  const log = () => f.accessLogs.get('signalements-7d9f-a') ?? [];
  story.say('the balancer is switched on first, before the server reads the header:');
  const first = statusLine(fromInternet(f, story, CLIENTS[0], '/api/signalements').stdout);
  story.expectEqual(
    'risk: a server that does not speak PROXY reads the binary header as a request line and answers 400',
    'HTTP/1.1 400 Bad Request',
    first,
  );
  story.say(
    "signalements is reconfigured to require the header (as nginx's `listen 8000 proxy_protocol` does) and restarted",
  );
  const server = reconfigure(f, servers, 'signalements-7d9f-a', {
    routes: limiter.routes,
    options: { proxyProtocol: true },
  });
  const before = log().length;
  const answers = callsFromClients(f, story);
  const proxiedLog = log().slice(before);
  story.show(`signalements-7d9f-a's access log since:\n${proxiedLog.join('\n')}`);
  story.expectEqual(
    'evidence: the pod logs every client from the header, with externalTrafficPolicy Cluster; nobody is over quota',
    `${CLIENTS.join(', ')}; no 429`,
    `${loggedClients(proxiedLog).join(', ')}; ${[...answers.values()].flat().some((line) => line.includes(' 429 ')) ? 'some 429' : 'no 429'}`,
  );
  const peers = [...new Set(server.records.map((record) => formatIpv4(record.peerAddr)))];
  story.expectThat(
    'while the TCP peer is still a node (the proxy connects to a NodePort, the node SNATs)',
    'node addresses only',
    peers.join(', '),
    peers.length > 0 && peers.every(isNodeAddress),
  );
  const inside = sh('kubectl exec diag -- curl -sS -m 2 http://signalements/api/signalements');
  story.expectThat(
    'risk: everything that reaches the server must send the header: diag, inside the cluster, is cut off',
    'curl fails (no HTTP answer); the server counts a rejected connection',
    `exit ${inside.exitCode}, ${server.stats.proxyRejected} rejected`,
    inside.exitCode !== 0 && server.stats.proxyRejected > 0,
  );
}

// ---- Exercise 3: where to put the captures -------------------------------------------------------------------

/** One frame of `tcpdump -e -ni eth0`: its length on the wire and the outer `src > dst`. */
interface WireFrame {
  readonly length: number;
  readonly src: string;
  readonly dst: string;
  readonly rest: string;
}

const WIRE_FRAME =
  /^\d\d:\d\d:\d\d\.\d{6} \S+ > \S+, ethertype IPv4 \(0x0800\), length (\d+): (\S+) > (\S+): (.*)$/;

function wireFrames(output: string): WireFrame[] {
  const frames: WireFrame[] = [];
  for (const line of output.split('\n')) {
    const match = WIRE_FRAME.exec(line);
    if (match === null) continue;
    const [, length = '0', src = '', dst = '', rest = ''] = match;
    frames.push({ length: Number(length), src, dst, rest });
  }
  return frames;
}

/** The MTU of the path between the nodes in exercise 3: 50 bytes short of what VXLAN needs for 1450-byte pods. */
const UNDERLAY_PATH_MTU = 1450;

function whereToCapture(story: Story, seed: string | number): void {
  const f = formation({ cni: 'flannel-vxlan', kubeProxy: 'iptables', seed, pods: ['diag'] });
  startSignalements(f, ['signalements-7d9f-a'], { routes: { '/rapport': { bodyBytes: 20_000 } } });
  const { c } = f;
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    'exercise 3: big packets between pods of different nodes are lost. Where do two captures confirm a tunnel MTU problem, and what do they show?',
  );
  // The black hole: the network between the nodes carries 1450-byte packets (a provider underlay with its own
  // encapsulation), while the nodes' eth0 say 1500. The switch ports drop what does not fit (is_skb_forwardable),
  // silently: a layer-2 hop has no address to send ICMP from.
  const segment = c.runner.segmentOf('kind');
  for (const port of segment.switchNs.all())
    if (port.kind === 'veth') exec(segment.switchNs, `ip link set dev ${port.name} mtu ${UNDERLAY_PATH_MTU}`);
  story.say(
    `set-up: the network between the nodes carries ${UNDERLAY_PATH_MTU}-byte packets at most (an underlay with its own encapsulation), but the nodes' eth0 say 1500: flannel.1 and the pods get 1450, so a full pod packet is 1500 bytes once in VXLAN, and the switch drops it without a word (no router on the way, so no ICMP)`,
  );
  const eth0 = sh('docker exec formation-worker2 ip link show eth0').stdout;
  const tunnel = sh('docker exec formation-worker2 ip link show flannel.1').stdout;
  story.expectThat(
    'the sender trusts its own eth0 (mtu 1500) and flannel.1 takes 50 less (mtu 1450)',
    'eth0 mtu 1500, flannel.1 mtu 1450',
    `eth0 mtu ${/mtu (\d+)/.exec(eth0)?.[1]}, flannel.1 mtu ${/mtu (\d+)/.exec(tunnel)?.[1]}`,
    / mtu 1500 /.test(eth0) && / mtu 1450 /.test(tunnel),
  );
  const small = sh('kubectl exec diag -- curl -s -m 5 http://10.244.2.7:8000/sante').stdout.trim();
  story.expectEqual('the small answer (/sante) passes', 'ok signalements-7d9f-a', small);
  story.say(
    "capture 1 on the sending node (formation-worker2, the server's side) inside the tunnel (flannel.1); captures 2 and 3 on eth0 of both nodes, with -e for the frame sizes",
  );
  const inside = sh.background("docker exec formation-worker2 tcpdump -ni flannel.1 'tcp port 8000'");
  const leaving = sh.background("docker exec formation-worker2 tcpdump -e -ni eth0 'udp port 8472 or icmp'");
  const arriving = sh.background("docker exec formation-worker tcpdump -e -ni eth0 'udp port 8472 or icmp'");
  const big = sh('kubectl exec diag -- curl -sS -m 5 -o /dev/null http://10.244.2.7:8000/rapport');
  story.expectEqual(
    'the big answer (/rapport, 20 kB) stalls: curl gives up after 5 s (exit 28)',
    28,
    big.exitCode,
  );
  const tunnelHops = hops(inside.stop().stdout);
  const sent = wireFrames(leaving.stop().stdout);
  const received = wireFrames(arriving.stop().stdout);
  const segments = tunnelHops.filter(
    (hop) => hop.src === '10.244.2.7.8000' && / length 1398$/.test(hop.rest),
  );
  const firstSeq = /seq (\d+:\d+)/.exec(segments[0]?.rest ?? '')?.[1];
  const resent = segments.filter((hop) => hop.rest.includes(`seq ${firstSeq},`)).length;
  story.expectThat(
    'capture 1: full-size segments (1398 bytes of data) leave the server, and the first one again and again (retransmissions)',
    'seq 1:1399 sent 3 times or more',
    `${segments.length} segments of 1398 bytes, seq ${firstSeq} sent ${resent} times`,
    firstSeq === '1:1399' && resent >= 3,
  );
  const bigSent = sent.filter((frame) => frame.length === 1514 && addressOf(frame.src) === '172.18.0.4');
  story.expectThat(
    "capture 2: on formation-worker2's eth0 they leave as 1514-byte frames (a 1500-byte outer packet: 1450 + 50 of VXLAN)",
    '1514-byte frames 172.18.0.4 > 172.18.0.3.8472',
    `${bigSent.length} frames of 1514 bytes`,
    bigSent.length === segments.length && bigSent.every((frame) => frame.dst === '172.18.0.3.8472'),
  );
  const bigReceived = received.filter((frame) => frame.length > UNDERLAY_PATH_MTU + 14);
  const smallReceived = received.filter((frame) => addressOf(frame.src) === '172.18.0.4');
  story.expectThat(
    "capture 3: none of them reaches formation-worker's eth0, while the smaller frames of the same connection do",
    'no frame above 1464 bytes; the small ones arrive',
    `${bigReceived.length} big, ${smallReceived.length} small frames from 172.18.0.4 (${smallReceived.map((frame) => frame.length).join(', ')})`,
    bigReceived.length === 0 && smallReceived.length > 0,
  );
  const icmp = [...sent, ...received].filter((frame) => frame.rest.startsWith('ICMP'));
  story.expectEqual(
    'no ICMP "fragmentation needed" comes back on either node: nothing tells the sender to shrink',
    0,
    icmp.length,
  );
  story.say(
    'the same from a pod with ping, DF set: 1422 + 28 = 1450 inside, 1500 outside, lost without an error; 1372 passes',
  );
  const lost = sh('kubectl exec diag -- ping -c 1 -W 2 -M do -s 1422 10.244.2.7');
  story.expectThat(
    'ping -M do -s 1422 is lost, and no "Frag needed" line',
    '100% packet loss, no From ... line',
    lost.stdout.split('\n').find((line) => line.includes('packet loss')) ?? '',
    lost.stdout.includes(' 100% packet loss') && !lost.stdout.includes('From '),
  );
  const fits = sh('kubectl exec diag -- ping -c 1 -W 2 -M do -s 1372 10.244.2.7');
  story.expectThat(
    'ping -M do -s 1372 (1450 bytes once encapsulated) passes',
    '1 received',
    fits.stdout.split('\n').find((line) => line.includes('packet loss')) ?? '',
    fits.stdout.includes('1 packets transmitted, 1 received'),
  );
  story.say(
    "answer: capture on the sending node inside the tunnel (flannel.1 or the pod side) and on eth0 of both nodes; look for big segments that leave (1514-byte frames on the sender's eth0) and never arrive on the receiver's eth0, small ones that do, retransmissions of the same sequence, and no ICMP frag-needed: a tunnel MTU black hole",
  );
}

// ---- Exercise 4: the node without a pod ----------------------------------------------------------------------

function nodeWithoutPod(story: Story, seed: string | number): void {
  story.say(
    'exercise 4: externalTrafficPolicy Local; the balancer sends 1 request in 3 to a node without a signalements pod, and 1 in 3 fails. What to check, in order?',
  );
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed, pods: ['diag'] });
  const { c } = f;
  story.attach(c.sim);
  c.addNode();
  startSignalements(f, ['signalements-7d9f-b', 'signalements-7d9f-a']);
  // The fault: a health check set by hand on kube-proxy's 10256, which answers 200 whatever the Service.
  const lb = behindLoadBalancer(f, { mode: 'proxy', healthCheck: { port: 10256 } }, 'Local');
  const sh = shell(c, story);
  const client = shell(c, story, c.internet);
  story.say(
    `three workers behind a round-robin TCP balancer (${LB_ADDRESS}, like Scaleway's); two signalements pods, on formation-worker and formation-worker2`,
  );
  const symptom = Array.from({ length: 6 }, () => client.host(`curl -sS -m 2 http://${LB_ADDRESS}/sante`));
  story.expectEqual(
    'the symptom: every third request times out (curl exit 28)',
    '0 0 28 0 0 28',
    symptom.map((result) => result.exitCode).join(' '),
  );

  story.say('check 1: where do the pods run? kubectl get pods -o wide');
  const pods = sh('kubectl get pods -o wide -l app=signalements').stdout;
  const podNodes = [...pods.matchAll(/ (formation-worker\d*) /g)].map((match) => match[1]).sort();
  story.expectEqual(
    'signalements runs on formation-worker and formation-worker2, nothing on formation-worker3',
    'formation-worker, formation-worker2',
    podNodes.join(', '),
  );
  story.say(
    'check 2: which endpoints does the Service have, on which node? (the EndpointSlice, nodeName per endpoint)',
  );
  const slices = sh('kubectl get endpointslices -l kubernetes.io/service-name=signalements -o yaml').stdout;
  const sliceNodes = [...slices.matchAll(/nodeName: (\S+)/g)].map((match) => match[1]).sort();
  story.expectEqual(
    'two ready endpoints, on formation-worker and formation-worker2',
    'formation-worker, formation-worker2',
    sliceNodes.join(', '),
  );
  story.say('check 3: the Service: policy Local, and the port the balancer must probe (healthCheckNodePort)');
  const yaml = sh('kubectl get svc signalements -o yaml').stdout;
  const port = Number(/healthCheckNodePort: (\d+)/.exec(yaml)?.[1] ?? 0);
  story.expectThat(
    'externalTrafficPolicy: Local with a healthCheckNodePort',
    'externalTrafficPolicy: Local, healthCheckNodePort: 3xxxx',
    `externalTrafficPolicy: ${/externalTrafficPolicy: (\S+)/.exec(yaml)?.[1]}, healthCheckNodePort: ${port}`,
    yaml.includes('externalTrafficPolicy: Local') && port >= 30000 && port <= 32767,
  );
  story.say(`check 4: what each node answers on it: curl http://NODE:${port}/healthz`);
  const nodes = [
    ['formation-worker', '172.18.0.3'],
    ['formation-worker2', '172.18.0.4'],
    ['formation-worker3', '172.18.0.5'],
  ] as const;
  const health = nodes.map(([, addr]) => {
    const out = sh.host(`curl -s -w ' %{http_code}\\n' http://${addr}:${port}/healthz`).stdout;
    return `${/"localEndpoints": (\d+)/.exec(out)?.[1] ?? '?'} ${out.trimEnd().split(' ').at(-1)}`;
  });
  story.expectEqual(
    'kube-proxy says it: localEndpoints 1 and 200 on the two, localEndpoints 0 and 503 on formation-worker3',
    'formation-worker 1 200, formation-worker2 1 200, formation-worker3 0 503',
    nodes.map(([name], i) => `${name} ${health[i]}`).join(', '),
  );
  story.say("check 5: the balancer's health check: what does it probe?");
  story.show(
    `load balancer ${LB_ADDRESS}: TCP proxy, round robin; health check HTTP GET /healthz on port ${lb.healthCheckPort ?? port} every 5 s, timeout 2 s\nin rotation: ${lb.views()[0]?.inRotation.join(', ')}`,
  );
  const kubeProxy = sh.host("curl -s -w ' %{http_code}\\n' http://172.18.0.5:10256/healthz").stdout;
  story.expectThat(
    "the fault: it probes kube-proxy's 10256, which answers 200 on every node whatever the Service, so formation-worker3 stays in rotation",
    'port 10256, 200 from formation-worker3, three nodes in rotation',
    `port ${lb.healthCheckPort}, ${kubeProxy.trimEnd().split(' ').at(-1)} from formation-worker3, ${lb.views()[0]?.inRotation.length} nodes in rotation`,
    lb.healthCheckPort === 10256 &&
      kubeProxy.trimEnd().endsWith(' 200') &&
      lb.views()[0]?.inRotation.includes('formation-worker3') === true,
  );
  story.say(
    `the fix: the health check on healthCheckNodePort ${port} (what the cloud controller sets when it manages the balancer)`,
  );
  lb.setHealthCheckPort(undefined);
  c.sim.run(6e9);
  story.expectEqual(
    'after one probe, formation-worker3 is out of rotation',
    'formation-worker, formation-worker2',
    lb.views()[0]?.inRotation.join(', ') ?? '',
  );
  const fixed = Array.from({ length: 6 }, () => client.host(`curl -sS -m 2 http://${LB_ADDRESS}/sante`));
  story.expectEqual(
    'no request fails any more',
    '0 0 0 0 0 0',
    fixed.map((result) => result.exitCode).join(' '),
  );
  story.say(
    "answer, in order: the pods and their nodes, the endpoints per node, the Service (Local, healthCheckNodePort), each node's /healthz on that port, then the balancer's health check (port, interval, thresholds). Lasting fix: a pod on every node the balancer uses (a DaemonSet, topologySpreadConstraints) or Cluster",
  );
}
