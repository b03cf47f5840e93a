// The lesson "Le chemin d'un paquet", its six cases (Cilium aside) on the cluster `formation`, for each CNI
// (flannel-vxlan: a bridge and a VXLAN tunnel; flannel-host-gw: a bridge and direct routes; kindnet: routes to each
// veth and direct routes between nodes) and either kube-proxy mode: each case runs the lesson's own commands (docker
// exec NODE ip route, kubectl exec diag -- ping, crictl ps / inspect / nsenter, tcpdump -ni any, conntrack -L) and
// checks what proves its point. Case 6 comes from outside by the NodePort or through a load balancer
// (lesson-entry.ts). Not here: Cilium's eBPF paths and Hubble.

import { httpServer } from '../src/app/http/server.ts';
import { type Lang, Story, type StoryResult } from '../src/story/story.ts';
import {
  crictlId,
  type Formation,
  type FormationCni,
  type FormationProxy,
  formation,
  type Shell,
  shell,
} from './formation-cluster.ts';
import { entryServer, type LbEntry, throughLoadBalancer } from './lesson-entry.ts';
import { addressOf, type Hop, hopLines, hops, portOf } from './tcpdump-lines.ts';

export const LESSON_CASES = [1, 2, 3, 4, 5, 6] as const;
export type LessonCase = (typeof LESSON_CASES)[number];

/** How case 6 comes in: straight to a NodePort, or through the load balancer (eTP Cluster, Local, PROXY v2). */
export const ENTRIES = ['nodeport', 'cluster', 'local', 'proxy'] as const;
export type Entry = 'nodeport' | LbEntry;

export interface LessonCaseOptions {
  readonly cni?: FormationCni;
  readonly kubeProxy?: FormationProxy;
  readonly seed?: string | number;
  /** The narration's language (checks stay in English). */
  readonly lang?: Lang;
  /** Case 6 only (default `nodeport`). */
  readonly entry?: Entry;
}

/** One case as a story on its own cluster. */
export function lessonCaseStory(which: LessonCase, options: LessonCaseOptions = {}): StoryResult {
  const cni = options.cni ?? 'kindnet';
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'formation';
  const entry = options.entry ?? 'nodeport';
  const f = formation({ cni, kubeProxy, seed, ...(which === 6 ? entryServer(entry) : {}) });
  const story = new Story(
    which === 6 && entry !== 'nodeport' ? `lesson-case 6 ${entry}` : `lesson-case ${which}`,
    seed,
    { lang: options.lang ?? 'en' },
  );
  story.attach(f.c.sim);
  story.say(`kind cluster formation: ${cni}, kube-proxy in ${kubeProxy} mode`, {
    fr: `cluster kind formation : ${cni}, kube-proxy en mode ${kubeProxy}`,
  });
  tellCase(which, { f, story, sh: shell(f.c, story), cni, kubeProxy }, entry);
  return story.result();
}

/**
 * Tells one case on a cluster already built and attached to the story (the tour tells all six on one cluster);
 * case 6 comes in by `entry`.
 */
export function tellCase(which: LessonCase, ctx: CaseContext, entry: Entry = 'nodeport'): void {
  switch (which) {
    case 1:
      samePod(ctx);
      break;
    case 2:
      otherNode(ctx);
      break;
    case 3:
      toService(ctx);
      break;
    case 4:
      theWayBack(ctx);
      break;
    case 5:
      toInternet(ctx);
      break;
    case 6:
      if (entry === 'nodeport') fromOutside(ctx);
      else throughLoadBalancer(ctx, entry);
      break;
    default:
      which satisfies never;
  }
}

export interface CaseContext {
  readonly f: Formation;
  readonly story: Story;
  readonly sh: Shell;
  readonly cni: FormationCni;
  readonly kubeProxy: FormationProxy;
}

/** A bridge on each node (flannel's bridge plugin), or routes to each veth (kindnet's ptp). */
function bridged(cni: FormationCni): boolean {
  return cni !== 'kindnet';
}

/** Nodes joined by a VXLAN tunnel, or by direct routes via each other's address. */
function tunnelled(cni: FormationCni): boolean {
  return cni === 'flannel-vxlan';
}

function answered(story: Story, name: string, output: string): boolean {
  return story.expectThat(
    name,
    '1 packets transmitted, 1 received',
    output.split('\n').find((line) => line.includes('packets transmitted')) ?? output,
    output.includes('1 packets transmitted, 1 received'),
  );
}

/** Every hop of `list` reads `src > dst` (addresses only). */
function sameAddresses(list: readonly Hop[], src: string, dst: string): boolean {
  return list.length > 0 && list.every((hop) => addressOf(hop.src) === src && addressOf(hop.dst) === dst);
}

// ---- Case 1: two pods on the same node -------------------------------------------------------------------------

function samePod({ story, sh, cni }: CaseContext): void {
  story.say('case 1: diag (10.244.1.5) calls 10.244.1.9, both on formation-worker', {
    fr: 'cas 1 : diag (10.244.1.5) appelle 10.244.1.9, tous deux sur formation-worker',
  });
  const routes = sh('docker exec formation-worker ip route').stdout;
  sh('docker exec formation-worker ip -br link');
  if (bridged(cni)) {
    story.say(
      'a Linux bridge: every pod veth on the node is a port of cni0, the pods share one Ethernet segment',
      {
        fr: "un pont Linux : l'extrémité côté nœud de chaque paire veth est branchée sur le pont cni0, les pods du nœud sont sur un même segment Ethernet",
      },
    );
    story.expectThat(
      'the node reaches its pods through cni0',
      '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1',
      routes,
      routes.includes('10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1'),
    );
  } else {
    story.say('no bridge: the node routes each pod address to its veth (kindnet, ptp)', {
      fr: 'pas de pont : le nœud route par adresse IP, vers la veth de chaque pod (kindnet, ptp)',
    });
    const perPod = routes
      .split('\n')
      .filter((line) => /^10\.244\.1\.(5|9) dev veth[0-9a-f]{8} scope host/.test(line));
    story.expectEqual('one host route per local pod, to its veth', 2, perPod.length);
  }
  const capture = sh.background("docker exec formation-worker tcpdump -ni any 'icmp'");
  answered(story, 'diag reaches 10.244.1.9', sh('kubectl exec diag -- ping -c 1 10.244.1.9').stdout);
  const seen = hops(capture.stop().stdout);
  const requests = seen.filter((hop) => hop.rest.startsWith('ICMP echo request'));
  story.expectThat(
    'the request keeps 10.244.1.5 > 10.244.1.9 at every hop',
    'every hop 10.244.1.5 > 10.244.1.9',
    hopLines(requests).join('; '),
    sameAddresses(requests, '10.244.1.5', '10.244.1.9'),
  );
  story.expectThat(
    'it crosses two veths and never leaves the node',
    "diag's veth then 10.244.1.9's veth, no eth0",
    requests.map((hop) => hop.device).join(', '),
    requests.length === 2 &&
      requests.every((hop) => hop.device.startsWith('veth')) &&
      requests[0]!.device !== requests[1]!.device,
  );
  story.expectThat(
    bridged(cni)
      ? 'bridged: the frame goes port to port (P, for the bridge), not through cni0'
      : 'routed: In on one veth, Out on the other',
    bridged(cni) ? 'P then Out' : 'In then Out',
    requests.map((hop) => hop.direction).join(' then '),
    requests.map((hop) => hop.direction).join(' then ') === (bridged(cni) ? 'P then Out' : 'In then Out'),
  );
}

// ---- Case 2: two pods on different nodes -----------------------------------------------------------------------

function otherNode({ story, sh, cni }: CaseContext): void {
  story.say('case 2: diag (10.244.1.5 on formation-worker) calls 10.244.2.7 on formation-worker2', {
    fr: 'cas 2 : diag (10.244.1.5 sur formation-worker) appelle 10.244.2.7 sur formation-worker2',
  });
  const pods = sh('kubectl get pods -o wide').stdout;
  story.expectThat(
    'kubectl places 10.244.2.7 on formation-worker2',
    'signalements-7d9f-a ... 10.244.2.7   formation-worker2',
    pods.split('\n').find((line) => line.includes('10.244.2.7')) ?? '',
    /10\.244\.2\.7 +formation-worker2 /.test(pods),
  );
  const routes = sh('docker exec formation-worker ip route').stdout;
  const viaPeer = tunnelled(cni)
    ? '10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink'
    : '10.244.2.0/24 via 172.18.0.4 dev eth0';
  if (cni === 'flannel-host-gw')
    story.say(
      "flannel's host-gw backend: the same bridge as VXLAN on each node, but no tunnel: one route per peer node, via its address on eth0 (the nodes must share a link)",
    );
  story.expectThat(
    tunnelled(cni)
      ? "a route to formation-worker2's pod subnet through the tunnel device"
      : "a route to formation-worker2's pod subnet via formation-worker2 itself (direct routing)",
    viaPeer,
    routes.split('\n').find((line) => line.startsWith('10.244.2.0/24')) ?? '',
    routes.includes(viaPeer),
  );
  if (!tunnelled(cni)) {
    const links = sh('docker exec formation-worker ip -br link').stdout;
    story.expectThat(
      'no tunnel device on the node',
      'no flannel.1, no vxlan',
      links.split('\n').find((line) => line.startsWith('flannel.1')) ?? 'none',
      !links.includes('flannel.1'),
    );
  }
  if (tunnelled(cni)) {
    const link = sh('docker exec formation-worker ip -d link show flannel.1').stdout;
    story.expectThat(
      'flannel.1 is a VXLAN device to UDP 8472',
      'vxlan id 1 ... dstport 8472',
      link,
      /vxlan id 1 .*dstport 8472/.test(link),
    );
  }
  const filter = "'icmp or udp port 8472'";
  const atW1 = sh.background(`docker exec formation-worker tcpdump -ni any ${filter}`);
  const atW2 = sh.background(`docker exec formation-worker2 tcpdump -ni any ${filter}`);
  answered(story, 'diag reaches 10.244.2.7', sh('kubectl exec diag -- ping -c 1 10.244.2.7').stdout);
  const w1 = hops(atW1.stop().stdout);
  const w2 = hops(atW2.stop().stdout);
  for (const [node, seen] of [
    ['formation-worker', w1],
    ['formation-worker2', w2],
  ] as const) {
    const requests = seen.filter((hop) => hop.rest.startsWith('ICMP echo request'));
    story.expectThat(
      `on ${node} the request reads 10.244.1.5 > 10.244.2.7 at every hop (no NAT)`,
      'every hop 10.244.1.5 > 10.244.2.7',
      hopLines(requests).join('; '),
      sameAddresses(requests, '10.244.1.5', '10.244.2.7'),
    );
    const onWire = seen.find(
      (hop) =>
        hop.device === 'eth0' &&
        (hop.rest.startsWith('ICMP echo request') || hop.inner?.includes('10.244.1.5 > 10.244.2.7')),
    );
    if (tunnelled(cni)) {
      story.expectThat(
        `on ${node}'s eth0 it travels inside UDP from 172.18.0.3 to 172.18.0.4:8472`,
        '172.18.0.3 > 172.18.0.4.8472 [10.244.1.5 > 10.244.2.7]',
        onWire === undefined ? 'nothing on eth0' : hopLines([onWire])[0]!,
        onWire !== undefined &&
          addressOf(onWire.src) === '172.18.0.3' &&
          onWire.dst === '172.18.0.4.8472' &&
          onWire.inner === '10.244.1.5 > 10.244.2.7',
      );
    } else {
      story.expectThat(
        `on ${node}'s eth0 it travels as it is (direct routing)`,
        'eth0 10.244.1.5 > 10.244.2.7',
        onWire === undefined ? 'nothing on eth0' : hopLines([onWire])[0]!,
        onWire !== undefined && onWire.src === '10.244.1.5' && onWire.inner === undefined,
      );
    }
  }
  const reply = w1.filter((hop) => hop.rest.startsWith('ICMP echo reply') && hop.device.startsWith('veth'));
  story.expectThat(
    "the reply reaches diag's veth from 10.244.2.7 (the source stays the pod's)",
    '10.244.2.7 > 10.244.1.5',
    hopLines(reply).join('; '),
    sameAddresses(reply, '10.244.2.7', '10.244.1.5'),
  );
}

// ---- Cases 3 and 4: a Service, and the way back ------------------------------------------------------------------

interface ServiceCall {
  /** diag's source port of the connection that landed on 10.244.2.7. */
  readonly port: string | undefined;
  /** Every hop of that connection seen on formation-worker. */
  readonly seen: readonly Hop[];
  readonly bodies: readonly string[];
  /** What the lesson's own capture (`-c 20 'host 10.244.1.5 and tcp port 8000'`) printed, when asked for. */
  readonly lessonFilter: readonly Hop[];
}

/** The capture command of the lesson's "Capturer sur le nœud". */
const LESSON_TCPDUMP =
  "docker exec formation-worker tcpdump -ni any -c 20 'host 10.244.1.5 and tcp port 8000'";

/**
 * diag calls signalements:80 until an answer comes from the pod on formation-worker2 (the lesson's exercise 1),
 * with tcpdump on formation-worker the whole time.
 */
function callService({ sh, story }: CaseContext, withLessonFilter = false): ServiceCall {
  sh('kubectl get svc signalements');
  sh('kubectl get endpointslices');
  const lessonCapture = withLessonFilter ? sh.background(LESSON_TCPDUMP) : undefined;
  const capture = sh.background("docker exec formation-worker tcpdump -ni any 'host 10.244.1.5 and tcp'");
  const bodies: string[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    const body = sh('kubectl exec diag -- curl -s http://10.96.40.12/sante').stdout.trim();
    bodies.push(body);
    if (body === 'ok signalements-7d9f-a') break;
  }
  story.expectThat(
    'signalements:80 answers, once from the pod on formation-worker2',
    'ok signalements-7d9f-a among the answers',
    bodies.join(', '),
    bodies.includes('ok signalements-7d9f-a'),
  );
  const lessonFilter = lessonCapture === undefined ? [] : hops(lessonCapture.stop().stdout);
  const all = hops(capture.stop().stdout);
  const syn = all.find((hop) => hop.dst === '10.244.2.7.8000' && hop.rest.startsWith('Flags [S]'));
  const port = syn === undefined ? undefined : portOf(syn.src);
  const seen = all.filter((hop) => hop.src === `10.244.1.5.${port}` || hop.dst === `10.244.1.5.${port}`);
  return { port, seen, bodies, lessonFilter };
}

function isSyn(hop: Hop): boolean {
  return hop.rest.startsWith('Flags [S],');
}

function isSynAck(hop: Hop): boolean {
  return hop.rest.startsWith('Flags [S.],');
}

/** The wire's device on formation-worker toward formation-worker2: the tunnel or eth0. */
function towardW2(cni: FormationCni): string {
  return tunnelled(cni) ? 'flannel.1' : 'eth0';
}

function toService(ctx: CaseContext): void {
  const { story, sh, cni } = ctx;
  story.say('case 3: diag calls signalements:80, the virtual address 10.96.40.12 that no interface holds', {
    fr: "cas 3 : diag appelle signalements:80, l'adresse virtuelle 10.96.40.12, qui n'existe sur aucune interface",
  });
  const call = callService(ctx, true);
  story.expectThat(
    "the lesson's own filter (tcp port 8000) sees the packets after the DNAT only, never the Service address",
    'every hop to or from port 8000, none with 10.96.40.12',
    hopLines(call.lessonFilter.slice(0, 3)).join('; '),
    call.lessonFilter.length > 0 &&
      call.lessonFilter.every(
        (hop) =>
          (portOf(hop.src) === '8000' || portOf(hop.dst) === '8000') &&
          addressOf(hop.src) !== '10.96.40.12' &&
          addressOf(hop.dst) !== '10.96.40.12',
      ),
  );
  story.say("widened to 'host 10.244.1.5 and tcp', the capture shows the veth hop too:", {
    fr: "élargie à 'host 10.244.1.5 and tcp', la capture montre aussi le passage sur la veth :",
  });
  const syns = call.seen.filter(isSyn);
  const first = syns[0];
  story.expectThat(
    "on diag's veth the SYN still goes to the Service address",
    `veth 10.244.1.5.${call.port} > 10.96.40.12.80`,
    first === undefined ? 'no SYN' : hopLines([first])[0]!,
    first?.device.startsWith('veth') === true && first.dst === '10.96.40.12.80',
  );
  const out = syns.find((hop) => hop.device === towardW2(cni));
  story.expectThat(
    `after PREROUTING's DNAT it leaves on ${towardW2(cni)} for the pod: 10.244.2.7:8000`,
    `${towardW2(cni)} 10.244.1.5.${call.port} > 10.244.2.7.8000`,
    hopLines(syns).join('; '),
    out !== undefined && out.src === `10.244.1.5.${call.port}` && out.dst === '10.244.2.7.8000',
  );
  const table = sh('docker exec formation-worker conntrack -L -p tcp --dport 80').stdout;
  const entry = table.split('\n').find((line) => line.includes(`sport=${call.port} `)) ?? '';
  story.expectThat(
    'conntrack keeps the translation: original to 10.96.40.12:80, reply from 10.244.2.7:8000',
    `src=10.244.1.5 dst=10.96.40.12 sport=${call.port} dport=80 src=10.244.2.7 dst=10.244.1.5 sport=8000`,
    entry,
    entry.includes(
      `src=10.244.1.5 dst=10.96.40.12 sport=${call.port} dport=80 src=10.244.2.7 dst=10.244.1.5 sport=8000`,
    ),
  );
  story.say('kube-proxy wrote the rule that did it:', {
    fr: 'la règle qui a fait le DNAT, écrite par kube-proxy :',
  });
  if (ctx.kubeProxy === 'iptables') {
    const nat = sh('docker exec formation-worker iptables -t nat -S KUBE-SERVICES').stdout;
    story.expectThat(
      'KUBE-SERVICES matches 10.96.40.12/32 tcp dport 80',
      '-A KUBE-SERVICES -d 10.96.40.12/32 -p tcp ... --dport 80 -j KUBE-SVC-...',
      nat.split('\n').find((line) => line.includes('10.96.40.12')) ?? '',
      /-A KUBE-SERVICES -d 10\.96\.40\.12\/32 -p tcp .*--dport 80 -j KUBE-SVC-/.test(nat),
    );
  } else {
    const map = sh('docker exec formation-worker nft list map ip kube-proxy service-ips').stdout;
    story.expectThat(
      'the service-ips map sends 10.96.40.12 . tcp . 80 to its chain',
      '10.96.40.12 . tcp . 80 : goto service-...',
      map.split('\n').find((line) => line.includes('10.96.40.12')) ?? '',
      /10\.96\.40\.12 \. tcp \. 80 : goto service-/.test(map),
    );
  }
}

function theWayBack(ctx: CaseContext): void {
  const { story, cni } = ctx;
  story.say('case 4: the answer from 10.244.2.7:8000 must look, to diag, as if it came from 10.96.40.12:80', {
    fr: 'cas 4 : pour diag, la réponse de 10.244.2.7:8000 doit paraître venir de 10.96.40.12:80',
  });
  const call = callService(ctx);
  const synAcks = call.seen.filter(isSynAck);
  const atWire = synAcks.find((hop) => hop.device === towardW2(cni));
  const atDiag = synAcks.find((hop) => hop.device.startsWith('veth'));
  story.expectThat(
    `the SYN-ACK comes in on ${towardW2(cni)} from the pod`,
    `10.244.2.7.8000 > 10.244.1.5.${call.port}`,
    hopLines(synAcks).join('; '),
    atWire !== undefined && atWire.src === '10.244.2.7.8000' && atWire.dst === `10.244.1.5.${call.port}`,
  );
  story.expectThat(
    "conntrack undoes the DNAT: on diag's veth it comes from the Service",
    `10.96.40.12.80 > 10.244.1.5.${call.port}`,
    atDiag === undefined ? 'no SYN-ACK on a veth' : hopLines([atDiag])[0]!,
    atDiag !== undefined && atDiag.src === '10.96.40.12.80',
  );
  const replies = call.seen.filter((hop) => hop.device.startsWith('veth') && portOf(hop.dst) === call.port);
  story.expectThat(
    "every packet diag receives comes from 10.96.40.12:80, none from the pod's address",
    'all from 10.96.40.12.80',
    [...new Set(replies.map((hop) => hop.src))].join(', '),
    replies.length > 0 && replies.every((hop) => hop.src === '10.96.40.12.80'),
  );
  hairpin(ctx);
}

/** signalements-7d9f-b calls until the Service picks itself; returns every answer, the last one its own. */
function callSelf(sh: Shell, curl: string, attempts = 8): string[] {
  const bodies: string[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const result = sh(`kubectl exec signalements-7d9f-b -- ${curl}`);
    bodies.push(result.exitCode === 0 ? result.stdout.trim() : `exit ${result.exitCode}`);
    if (bodies.at(-1) === 'ok signalements-7d9f-b' || result.exitCode !== 0) break;
  }
  return bodies;
}

/**
 * Hairpin: a pod calls the Service it backs and the rule picks itself. kube-proxy marks the call (0x4000) in the
 * endpoint's chain when the source is the endpoint itself, and POSTROUTING masquerades what carries the mark: the pod
 * sees the call come from the node's address on its link (10.244.1.1), so its answer goes back through the node's
 * conntrack. Through flannel's bridge the DNATed frame goes back out the port it came in by: hairpin mode on that port.
 */
function hairpin({ story, sh, f, cni, kubeProxy }: CaseContext): void {
  story.say(
    'hairpin: signalements-7d9f-b (10.244.1.9) calls signalements:80, the Service it backs, until the rule picks itself',
    {
      fr: "le retour en épingle à cheveux (hairpin) : signalements-7d9f-b (10.244.1.9) appelle signalements:80, le Service dont il est lui-même un point d'accès, jusqu'à ce que la règle tire son propre pod",
    },
  );
  const capture = sh.background(
    "docker exec formation-worker tcpdump -ni any 'host 10.244.1.9 and tcp[tcpflags] & tcp-syn != 0'",
  );
  const bodies = callSelf(sh, 'curl -s http://10.96.40.12/sante');
  const seen = hops(capture.stop().stdout);
  story.expectThat(
    'it lands on itself',
    'ok signalements-7d9f-b, last',
    bodies.join(', '),
    bodies.at(-1) === 'ok signalements-7d9f-b',
  );
  // The connection to itself: the SYN that came back to 10.244.1.9:8000, and by its sequence number (NAT keeps it)
  // the SYN the pod sent to the Service; the SYN-ACKs by the acknowledgement.
  const selfSyn = seen
    .filter((hop) => isSyn(hop) && hop.dst === '10.244.1.9.8000' && hop.device.startsWith('veth'))
    .at(-1);
  const seq = selfSyn === undefined ? undefined : /seq (\d+)/.exec(selfSyn.rest)?.[1];
  const masqPort = selfSyn === undefined ? undefined : portOf(selfSyn.src);
  const out = seen.find(
    (hop) => isSyn(hop) && hop.dst === '10.96.40.12.80' && /seq (\d+)/.exec(hop.rest)?.[1] === seq,
  );
  const selfPort = out === undefined ? undefined : portOf(out.src);
  const ofSelf = seen.filter(
    (hop) =>
      hop.src === `10.244.1.9.${selfPort}` ||
      hop.dst === `10.244.1.9.${selfPort}` ||
      hop.src === `10.244.1.1.${masqPort}` ||
      hop.dst === `10.244.1.1.${masqPort}`,
  );
  story.show(`that connection's SYN and SYN-ACK on formation-worker:\n${hopLines(ofSelf).join('\n')}`);
  const veth = out?.device ?? 'none';
  story.expectThat(
    "the SYN leaves the pod's veth for the Service address, and comes back on the same veth from the node's 10.244.1.1",
    `${veth} 10.244.1.9.${selfPort} > 10.96.40.12.80, then ${veth} Out 10.244.1.1.PORT > 10.244.1.9.8000`,
    hopLines(ofSelf.filter(isSyn)).join('; '),
    out !== undefined &&
      selfSyn !== undefined &&
      selfSyn.device === out.device &&
      selfSyn.direction === 'Out' &&
      addressOf(selfSyn.src) === '10.244.1.1',
  );
  const synAcks = ofSelf.filter(isSynAck);
  story.expectThat(
    'the SYN-ACK leaves the pod for 10.244.1.1 and reaches it from 10.96.40.12:80: both rewrites undone',
    `10.244.1.9.8000 > 10.244.1.1.${masqPort}, then 10.96.40.12.80 > 10.244.1.9.${selfPort}`,
    hopLines(synAcks).join('; '),
    synAcks.some((hop) => hop.src === '10.244.1.9.8000' && hop.dst === `10.244.1.1.${masqPort}`) &&
      synAcks.some((hop) => hop.src === '10.96.40.12.80' && hop.dst === `10.244.1.9.${selfPort}`),
  );
  const table = sh('docker exec formation-worker conntrack -L -p tcp --dport 80').stdout;
  const entry = table.split('\n').find((line) => line.includes(`sport=${selfPort} `)) ?? '';
  story.expectThat(
    'conntrack holds both translations in one entry: DNAT to the pod itself, SNAT to 10.244.1.1',
    `src=10.244.1.9 dst=10.96.40.12 sport=${selfPort} dport=80 src=10.244.1.9 dst=10.244.1.1 sport=8000 dport=${masqPort}`,
    entry,
    entry.includes(
      `src=10.244.1.9 dst=10.96.40.12 sport=${selfPort} dport=80 src=10.244.1.9 dst=10.244.1.1 sport=8000 dport=${masqPort} `,
    ),
  );
  const log = f.accessLogs.get('signalements-7d9f-b') ?? [];
  const logTitle = story.tell("signalements-7d9f-b's access log:", {
    fr: "le journal d'accès de signalements-7d9f-b :",
  });
  story.show(`${logTitle}\n${log.join('\n')}`);
  story.expectThat(
    'its access log shows the call from the node (10.244.1.1), not from 10.244.1.9',
    '10.244.1.1 - - ...',
    log.at(-1) ?? '',
    log.at(-1)?.startsWith('10.244.1.1 ') === true,
  );
  story.say(
    'the rules that did it: the endpoint chain marks a call from the endpoint itself, POSTROUTING masquerades the mark',
    {
      fr: "les règles en cause : la chaîne du point d'accès marque un appel venu de lui-même, POSTROUTING applique le masquerade à ce qui porte la marque",
    },
  );
  if (kubeProxy === 'iptables') hairpinRulesIptables(story, sh);
  else hairpinRulesNft(story, sh);
  if (!bridged(cni)) {
    story.say(
      'kindnet has no bridge: the node routes the DNATed packet back out the veth it came in by, nothing more to allow',
      {
        fr: "kindnet n'a pas de pont : le nœud route le paquet traduit vers la paire veth par laquelle il est arrivé, rien d'autre à autoriser",
      },
    );
    return;
  }
  story.say(
    `through cni0 the DNATed frame is bridged back out the port it came in by (${veth}): the port needs hairpin mode`,
    {
      fr: `par cni0, la trame traduite repart par le port du pont par lequel elle est arrivée (${veth}) : ce port doit être en mode hairpin`,
    },
  );
  const port = sh(`docker exec formation-worker bridge -d link show dev ${veth}`).stdout;
  story.expectThat(
    "flannel's bridge plugin (hairpinMode: true) set hairpin on the pod's port",
    'hairpin on',
    /hairpin (on|off)/.exec(port)?.[0] ?? port,
    /hairpin on /.test(port),
  );
  sh(`docker exec formation-worker bridge link set dev ${veth} hairpin off`);
  const without = callSelf(sh, 'curl -s -m 2 http://10.96.40.12/sante', 16);
  story.expectThat(
    'hairpin off: a call that picks itself is dropped by the bridge (curl times out, exit 28), the others still answer',
    'exit 28',
    without.join(', '),
    without.at(-1) === 'exit 28',
  );
  sh(`docker exec formation-worker bridge link set dev ${veth} hairpin on`);
}

function hairpinRulesIptables(story: Story, sh: Shell): void {
  const services = sh('docker exec formation-worker iptables -t nat -S KUBE-SERVICES').stdout;
  const svcChain = /-d 10\.96\.40\.12\/32 .* -j (KUBE-SVC-\w+)/.exec(services)?.[1] ?? 'KUBE-SVC-missing';
  const svc = sh(`docker exec formation-worker iptables -t nat -S ${svcChain}`).stdout;
  const sepChain = /10\.244\.1\.9:8000".* -j (KUBE-SEP-\w+)/.exec(svc)?.[1] ?? 'KUBE-SEP-missing';
  const sep = sh(`docker exec formation-worker iptables -t nat -S ${sepChain}`).stdout;
  story.expectThat(
    `${sepChain} (10.244.1.9:8000) marks what comes from 10.244.1.9 itself before its DNAT`,
    `-A ${sepChain} -s 10.244.1.9/32 ... -j KUBE-MARK-MASQ`,
    sep.split('\n').find((line) => line.includes('KUBE-MARK-MASQ')) ?? '',
    new RegExp(`-A ${sepChain} -s 10\\.244\\.1\\.9/32 .*-j KUBE-MARK-MASQ`).test(sep),
  );
  const mark = sh('docker exec formation-worker iptables -t nat -S KUBE-MARK-MASQ').stdout;
  story.expectThat(
    'KUBE-MARK-MASQ sets bit 0x4000 of the packet mark',
    '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000',
    mark.trim().split('\n').at(-1) ?? '',
    mark.includes('-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000'),
  );
  const post = sh('docker exec formation-worker iptables -t nat -S KUBE-POSTROUTING').stdout;
  story.expectThat(
    'KUBE-POSTROUTING masquerades only what carries the bit',
    '! --mark 0x4000/0x4000 -j RETURN ... -j MASQUERADE --random-fully',
    post.trim().split('\n').slice(1).join('; '),
    post.includes('-m mark ! --mark 0x4000/0x4000 -j RETURN') &&
      post.includes('-j MASQUERADE --random-fully'),
  );
}

function hairpinRulesNft(story: Story, sh: Shell): void {
  const map = sh('docker exec formation-worker nft list map ip kube-proxy service-ips').stdout;
  const svcChain = /10\.96\.40\.12 \. tcp \. 80 : goto (service-[^\s,]+)/.exec(map)?.[1] ?? 'service-missing';
  const svc = sh(`docker exec formation-worker nft list chain ip kube-proxy ${svcChain}`).stdout;
  const epChain = /goto (endpoint-[^\s,]+__10\.244\.1\.9\/8000)/.exec(svc)?.[1] ?? 'endpoint-missing';
  const ep = sh(`docker exec formation-worker nft list chain ip kube-proxy ${epChain}`).stdout;
  story.expectThat(
    `${epChain} marks what comes from 10.244.1.9 itself before its DNAT`,
    'ip saddr 10.244.1.9 jump mark-for-masquerade',
    ep
      .split('\n')
      .find((line) => line.includes('mark-for-masquerade'))
      ?.trim() ?? '',
    ep.includes('ip saddr 10.244.1.9 jump mark-for-masquerade'),
  );
  const mark = sh('docker exec formation-worker nft list chain ip kube-proxy mark-for-masquerade').stdout;
  story.expectThat(
    'mark-for-masquerade sets bit 0x4000 of the packet mark',
    'meta mark set meta mark | 0x00004000',
    mark
      .split('\n')
      .find((line) => line.includes('meta mark set'))
      ?.trim() ?? '',
    mark.includes('meta mark set meta mark | 0x00004000'),
  );
  const masq = sh('docker exec formation-worker nft list chain ip kube-proxy masquerading').stdout;
  story.expectThat(
    'masquerading masquerades only what carries the bit',
    'meta mark & 0x00004000 == 0x00000000 return ... masquerade fully-random',
    masq
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('meta') || line.startsWith('masquerade'))
      .join('; '),
    masq.includes('meta mark & 0x00004000 == 0x00000000 return') && masq.includes('masquerade fully-random'),
  );
}

// ---- Case 5: a pod calls the Internet ----------------------------------------------------------------------------

function toInternet({ story, sh, f }: CaseContext): void {
  story.say('case 5: diag calls a server on the Internet (203.0.113.10), through the Docker host', {
    fr: "cas 5 : diag appelle un serveur sur Internet (203.0.113.10), à travers l'hôte Docker",
  });
  const log: string[] = [];
  const server = httpServer(f.c.internet, {
    port: 80,
    routes: { '/': { body: 'hello\n' } },
    onLog: (line) => log.push(line),
  });
  const capture = sh.background("docker exec formation-worker tcpdump -ni any 'host 203.0.113.10'");
  const body = sh('kubectl exec diag -- curl -s http://203.0.113.10/').stdout;
  story.expectEqual('the server answers diag', 'hello', body.trim());
  const seen = hops(capture.stop().stdout);
  const syns = seen.filter(isSyn);
  const atVeth = syns.find((hop) => hop.device.startsWith('veth'));
  const atEth0 = syns.find((hop) => hop.device === 'eth0');
  story.expectThat(
    "on diag's veth the SYN is from the pod",
    '10.244.1.5.PORT > 203.0.113.10.80',
    atVeth === undefined ? 'none' : hopLines([atVeth])[0]!,
    atVeth !== undefined && addressOf(atVeth.src) === '10.244.1.5',
  );
  story.expectThat(
    "on eth0 it leaves masqueraded to the node's address",
    '172.18.0.3.PORT > 203.0.113.10.80',
    atEth0 === undefined ? 'none' : hopLines([atEth0])[0]!,
    atEth0 !== undefined && addressOf(atEth0.src) === '172.18.0.3' && atEth0.dst === '203.0.113.10.80',
  );
  const table = sh('docker exec formation-worker conntrack -L -p tcp --dport 80').stdout;
  const entry = table.split('\n').find((line) => line.includes('dst=203.0.113.10')) ?? '';
  story.expectThat(
    'conntrack will translate the answer back: reply to 172.18.0.3',
    'src=10.244.1.5 dst=203.0.113.10 ... src=203.0.113.10 dst=172.18.0.3',
    entry,
    /src=10\.244\.1\.5 dst=203\.0\.113\.10 .* src=203\.0\.113\.10 dst=172\.18\.0\.3 /.test(entry),
  );
  const logTitle = story.tell("the Internet server's access log:", {
    fr: "le journal d'accès du serveur Internet :",
  });
  story.show(`${logTitle}\n${log.join('\n')}`);
  story.expectThat(
    'the server never sees a pod address (here the Docker host masquerades once more)',
    'not 10.244.x.x',
    log.join('\n'),
    log.length === 1 && !log[0]!.startsWith('10.244.'),
  );
  story.say('two pods of formation-worker leave from the same source port: the node must tell them apart', {
    fr: 'deux pods de formation-worker sortent avec le même port source : le nœud doit les distinguer',
  });
  const request = 'GET / HTTP/1.0\r\n\r\n';
  const answers = ['diag', 'signalements-7d9f-b'].map(
    (pod) => sh(`kubectl exec -i ${pod} -- nc -N -p 40000 203.0.113.10 80`, request).stdout,
  );
  story.expectThat(
    'both are answered',
    'HTTP/1.0 200 OK ... hello, twice',
    answers.map((answer) => answer.split('\r\n')[0]).join(', '),
    answers.every((answer) => answer.startsWith('HTTP/1.0 200 OK') && answer.endsWith('hello\n')),
  );
  const both = sh('docker exec formation-worker conntrack -L -p tcp --sport 40000').stdout;
  const ports = [
    ...both.matchAll(
      /src=10\.244\.1\.(?:5|9) dst=203\.0\.113\.10 sport=40000 .* dst=172\.18\.0\.3 sport=80 dport=(\d+) /g,
    ),
  ].map((match) => match[1]);
  story.expectThat(
    'conntrack: both masqueraded to 172.18.0.3, each on its own port of the node',
    'two entries, two different node ports',
    ports.join(', '),
    ports.length === 2 && ports[0] !== ports[1],
  );
  server.close();
}

// ---- Case 6: from outside ----------------------------------------------------------------------------------------

function fromOutside({ story, sh, f, cni }: CaseContext): void {
  story.say(
    'case 6: a client outside the cluster (the Docker host, 172.18.0.1) calls NodePort 30080 on formation-worker',
    {
      fr: "cas 6 : un client hors du cluster (l'hôte Docker, 172.18.0.1) appelle le NodePort 30080 de formation-worker",
    },
  );
  sh('kubectl get svc signalements');
  const ps = sh('docker exec formation-worker2 crictl ps --name signalements').stdout;
  const id = crictlId(ps, 'signalements-7d9f-a');
  const pid = sh(
    `docker exec formation-worker2 crictl inspect --output go-template --template '{{.info.pid}}' ${id ?? 'missing'}`,
  ).stdout.trim();
  const addr = sh(`docker exec formation-worker2 nsenter -t ${pid} -n ip addr`).stdout;
  story.expectThat(
    "nsenter into signalements-7d9f-a's process shows the pod's eth0",
    'inet 10.244.2.7/24',
    addr.split('\n').find((line) => line.includes('inet 10.')) ?? '',
    /inet 10\.244\.2\.7\/(24|32) /.test(addr),
  );
  const atPod = sh.background(
    `docker exec formation-worker2 nsenter -t ${pid} -n tcpdump -ni eth0 'tcp port 8000'`,
  );
  const bodies: string[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    const body = sh.host('curl -s http://172.18.0.3:30080/sante').stdout.trim();
    bodies.push(body);
    if (body === 'ok signalements-7d9f-a') break;
  }
  story.expectThat(
    'the NodePort answers, here from the pod on the other node',
    'ok signalements-7d9f-a',
    bodies.join(', '),
    bodies.at(-1) === 'ok signalements-7d9f-a',
  );
  const seen = hops(atPod.stop().stdout).filter(isSyn);
  const snat = tunnelled(cni) ? '10.244.1.0' : '172.18.0.3';
  story.expectThat(
    "externalTrafficPolicy Cluster: the pod sees formation-worker's address, not the client's (SNAT)",
    `${snat}.PORT > 10.244.2.7.8000`,
    hopLines(seen).join('; '),
    seen.length === 1 && addressOf(seen[0]!.src) === snat,
  );
  const table = sh('docker exec formation-worker conntrack -L -p tcp --dport 30080').stdout;
  const entry = table.split('\n').find((line) => line.includes('src=10.244.2.7')) ?? '';
  story.expectThat(
    'conntrack on formation-worker: DNAT to the pod and SNAT to the node, both undone for the reply',
    `src=172.18.0.1 dst=172.18.0.3 ... dport=30080 src=10.244.2.7 dst=${snat} sport=8000`,
    entry,
    new RegExp(
      `src=172\\.18\\.0\\.1 dst=172\\.18\\.0\\.3 sport=\\d+ dport=30080 src=10\\.244\\.2\\.7 dst=${snat.replaceAll('.', '\\.')} sport=8000 `,
    ).test(entry),
  );
  story.say(
    'externalTrafficPolicy: Local (as `kubectl patch svc signalements -p \'{"spec":{"externalTrafficPolicy":"Local"}}\'` sets it)',
    {
      fr: 'externalTrafficPolicy: Local (comme le pose `kubectl patch svc signalements -p \'{"spec":{"externalTrafficPolicy":"Local"}}\'`)',
    },
  );
  const svc = f.c.store.get('Service', 'default', 'signalements');
  if (svc === undefined) throw new Error('no Service signalements');
  const updated = f.c.store.update<'Service'>({
    ...svc,
    spec: { ...svc.spec, externalTrafficPolicy: 'Local' },
  });
  story.expectThat(
    'the API server takes the change',
    'ok',
    updated.ok ? 'ok' : updated.error.message,
    updated.ok,
  );
  f.c.sim.run(2e9);
  const before = f.accessLogs.get('signalements-7d9f-a')?.length ?? 0;
  const local = sh.host('curl -s http://172.18.0.4:30080/sante').stdout.trim();
  const log = f.accessLogs.get('signalements-7d9f-a') ?? [];
  const logTitle = story.tell("signalements-7d9f-a's access log:", {
    fr: "le journal d'accès de signalements-7d9f-a :",
  });
  story.show(`${logTitle}\n${log.join('\n')}`);
  story.expectThat(
    'on formation-worker2, which runs a pod, the pod now sees the client itself (172.18.0.1)',
    'ok signalements-7d9f-a, logged from 172.18.0.1',
    `${local}, logged from ${log.at(-1)?.split(' ')[0] ?? 'nobody'}`,
    local === 'ok signalements-7d9f-a' && log.length === before + 1 && log.at(-1)!.startsWith('172.18.0.1 '),
  );
  const none = sh.host('curl -s -m 2 http://172.18.0.2:30080/sante');
  story.expectEqual(
    'formation-control-plane runs no signalements pod: its NodePort drops the call (curl times out, exit 28)',
    28,
    none.exitCode,
  );
}
