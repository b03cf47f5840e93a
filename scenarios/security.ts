// The lesson's security section ("Sécurité") shown on the cluster formation: 1, pod payloads readable by whoever
// captures the node network (tcpdump -A / -X on eth0 shows the HTTP body inside VXLAN); 2, a NodePort open on every
// node, the load balancer's or not, until a rule limits it to the load balancer's address; 3, every pod of a node
// sharing one egress address (an outside server's log and firewall cannot tell them apart), and a dedicated egress
// address as the remedy; 4, a filter rule before or after Service translation (FORWARD sees the pod address, never the
// ClusterIP). Not here: WireGuard or IPsec encryption, NetworkPolicies and their plugins (Cilium, Calico), Hubble.

import { httpServer } from '../src/app/http/server.ts';
import { clusterEgressGateway } from '../src/k8s/egress-gateway.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { formation, shell } from './formation-cluster.ts';
import { behindLoadBalancer, LB_ADDRESS } from './load-balanced.ts';
import { startSignalements } from './signalements-pods.ts';

export const SECURITY_POINTS = [1, 2, 3, 4] as const;
export type SecurityPoint = (typeof SECURITY_POINTS)[number];

/** One security point as a story on its own cluster. */
export function securityStory(
  which: SecurityPoint,
  seed: string | number = 'security',
  tool: FilterTool = 'iptables',
): StoryResult {
  const story = new Story(`security ${which}`, seed);
  switch (which) {
    case 1:
      readableOnTheWire(story, seed);
      break;
    case 2:
      nodePortEverywhere(story, seed, tool);
      break;
    case 3:
      sharedEgress(story, seed);
      break;
    case 4:
      beforeOrAfterTranslation(story, seed);
      break;
    default:
      which satisfies never;
  }
  return story.result();
}

// ---- 1: pod traffic is not protected in transit -----------------------------------------------------------------

/** A citizen's report with personal data, as the signalements API receives it. */
const REPORT = '{"nom":"Martin","telephone":"0612345678","adresse":"12 rue des Lilas"}';

function readableOnTheWire(story: Story, seed: string | number): void {
  const f = formation({ cni: 'flannel-vxlan', kubeProxy: 'iptables', seed, pods: ['diag'] });
  startSignalements(f, ['signalements-7d9f-a'], {
    routes: { '/signalements': { status: 201, body: 'signalement enregistre\n' } },
  });
  const { c } = f;
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    "security 1: traffic between pods is not protected in transit: VXLAN wraps the pod's packet, it does not encrypt it",
  );
  story.say(
    'diag posts a report with personal data to signalements (one replica, on formation-worker2); whoever can capture on the node network reads it',
  );
  const ascii = sh.background(
    "docker exec formation-worker tcpdump -ni eth0 -A 'udp port 8472 and host 172.18.0.4'",
  );
  const hex = sh.background(
    "docker exec formation-worker tcpdump -ni eth0 -X -c 4 'udp port 8472 and host 172.18.0.4'",
  );
  const posted = sh(`kubectl exec diag -- curl -s -d '${REPORT}' http://signalements/signalements`).stdout;
  story.expectEqual('the API takes the report', 'signalement enregistre', posted.trim());
  const text = ascii.stop().stdout;
  const dump = hex.stop().stdout;
  const outer = text.split('\n').find((line) => line.includes('> 172.18.0.4.8472: OTV')) ?? '';
  story.expectThat(
    'what eth0 carries is VXLAN: UDP from 172.18.0.3 to 172.18.0.4:8472',
    'IP 172.18.0.3.PORT > 172.18.0.4.8472: OTV, ... instance 1',
    outer.replace(/^\S+ /, ''),
    /IP 172\.18\.0\.3\.\d+ > 172\.18\.0\.4\.8472: OTV, flags \[I\] \(0x08\), overlay 0, instance 1$/.test(
      outer,
    ),
  );
  story.expectThat(
    'tcpdump -A on eth0 prints the request and its body in clear text',
    `POST /signalements HTTP/1.1 ... ${REPORT}`,
    text
      .split('\n')
      .filter((line) => line.includes('POST /signalements') || line === REPORT)
      .map((line) => line.replace(/^.*POST/, 'POST'))
      .join(' ... '),
    /POST \/signalements HTTP\/1\.1$/m.test(text) && text.split('\n').includes(REPORT),
  );
  story.expectThat(
    "and the answer on the way back (the pod's reply, just as readable)",
    'HTTP/1.1 201 Created ... signalement enregistre',
    text.includes('HTTP/1.1 201 Created') && text.split('\n').includes('signalement enregistre')
      ? 'HTTP/1.1 201 Created ... signalement enregistre'
      : 'not in the capture',
    text.includes('HTTP/1.1 201 Created') && text.split('\n').includes('signalement enregistre'),
  );
  const hexLines = dump.split('\n').filter((line) => /^\t0x[0-9a-f]{4}: /.test(line));
  const asciiColumn = hexLines.map((line) => line.slice(51)).join('');
  story.expectThat(
    'tcpdump -X shows the same bytes in hex: the outer headers (45 00 ... 11 = UDP), then the inner packet, then "POST /sign..."',
    'the 4th frame dumps the outer IPv4/UDP header and the request line',
    hexLines.find((line) => line.includes('504f 5354')) ?? 'no POST in the dump',
    hexLines.some((line) => line.startsWith('\t0x0000:  4500 ')) &&
      hexLines.some((line) => line.includes('504f 5354')) &&
      asciiColumn.includes('POST./signalements'),
  );
  story.say(
    "remedies: the CNI's encryption (WireGuard, IPsec) or TLS in the application for personal data; packetlab does not model either",
  );
}

// ---- 2: a NodePort on every node ----------------------------------------------------------------------------------

/** The tool the NodePort filter of point 2 is written with. */
export type FilterTool = 'iptables' | 'nft';
export const FILTER_TOOLS: readonly FilterTool[] = ['iptables', 'nft'];

/** The nodes, with the address their NodePort answers on. */
const NODES = [
  ['formation-control-plane', '172.18.0.2'],
  ['formation-worker', '172.18.0.3'],
  ['formation-worker2', '172.18.0.4'],
] as const;

/** The load balancer's own address on the node network: where its connections to the NodePorts come from. */
const LB_SOURCE = '172.18.0.1';

/**
 * The filter, per tool: before the DNAT (a NodePort forwarded to a pod never reaches INPUT), every NodePort's new
 * connections. SYNs only: the raw table runs before conntrack, so a rule on the port alone would also drop the
 * answers to the node's own SNATed connections whenever their source port was drawn inside 30000-32767.
 */
function nodePortFilter(tool: FilterTool): { commands: readonly string[]; listing: string } {
  if (tool === 'iptables')
    return {
      commands: [`iptables -t raw -A PREROUTING -p tcp --syn --dport 30000:32767 ! -s ${LB_SOURCE} -j DROP`],
      listing: 'iptables -t raw -L PREROUTING -v -n -x',
    };
  return {
    commands: [
      'nft add table inet nodeport-guard',
      "nft add chain inet nodeport-guard prerouting '{ type filter hook prerouting priority raw; policy accept; }'",
      `nft add rule inet nodeport-guard prerouting tcp flags syn / fin,syn,rst,ack tcp dport 30000-32767 ip saddr != ${LB_SOURCE} counter drop`,
    ],
    listing: 'nft list chain inet nodeport-guard prerouting',
  };
}

/** The dropped packets a listing counts (iptables -v -x or nft's counter). */
function droppedPackets(tool: FilterTool, listing: string): number {
  if (tool === 'iptables') {
    const rule = listing.split('\n').find((line) => line.includes('DROP'));
    return Number(rule?.trim().split(/\s+/)[0] ?? 0);
  }
  return Number(/counter packets (\d+)/.exec(listing)?.[1] ?? 0);
}

function nodePortEverywhere(story: Story, seed: string | number, tool: FilterTool): void {
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed });
  const { c } = f;
  story.attach(c.sim);
  const lb = behindLoadBalancer(f, { mode: 'proxy' }, 'Cluster');
  const sh = shell(c, story);
  const outside = shell(c, story, c.internet);
  story.say(
    `security 2: a LoadBalancer Service is also a NodePort (30080), open on every node, the balancer's or not. The balancer (${LB_ADDRESS}, a TCP proxy) connects to the nodes from ${LB_SOURCE}`,
  );
  sh('kubectl get svc signalements');
  story.expectEqual(
    "the balancer uses the two workers only (kind's control plane is excluded from load balancers)",
    'formation-worker, formation-worker2',
    lb.views()[0]?.inRotation.join(', ') ?? '',
  );
  const viaLb = outside.host(`curl -sS -m 2 http://${LB_ADDRESS}/sante`);
  story.expectThat(
    'through the balancer, from the Internet host (203.0.113.10)',
    'ok signalements-...',
    viaLb.stdout.trim(),
    viaLb.stdout.startsWith('ok signalements-'),
  );
  story.say("the same Internet host calls every node's NodePort directly:");
  const direct = NODES.map(([, addr]) => outside.host(`curl -sS -m 2 http://${addr}:30080/sante`));
  story.expectThat(
    'every node answers, the control plane too, which the balancer never uses',
    'three answers',
    NODES.map(([name], i) => `${name}: ${direct[i]!.stdout.trim() || `exit ${direct[i]!.exitCode}`}`).join(
      '; ',
    ),
    direct.every((result) => result.exitCode === 0 && result.stdout.startsWith('ok signalements-')),
  );
  const table = sh('docker exec formation-worker conntrack -L -p tcp --dport 30080').stdout;
  const sources = [
    ...new Set([...table.matchAll(/^tcp .*? src=(\S+) dst=172\.18\.0\.3 /gm)].map((m) => m[1])),
  ].sort();
  story.expectEqual(
    "formation-worker's conntrack: NodePort connections from the balancer and from the Internet host itself",
    `172.18.0.1, 203.0.113.10`,
    sources.join(', '),
  );
  story.say(
    `the filter: on every node, NodePorts only from the balancer (${LB_SOURCE}), before PREROUTING's DNAT (in INPUT a NodePort forwarded to a pod is never seen, as security 4 shows), with ${tool}`,
  );
  const filter = nodePortFilter(tool);
  for (const [name] of NODES) for (const command of filter.commands) sh(`docker exec ${name} ${command}`);
  const refused = NODES.map(([, addr]) => outside.host(`curl -sS -m 2 http://${addr}:30080/sante`));
  story.expectEqual(
    'now the direct calls time out on every node (curl exit 28)',
    '28 28 28',
    refused.map((result) => result.exitCode).join(' '),
  );
  const still = outside.host(`curl -sS -m 2 http://${LB_ADDRESS}/sante`);
  story.expectThat(
    'while the balancer still answers: its connections come from the allowed address',
    'ok signalements-...',
    still.stdout.trim() || `exit ${still.exitCode}`,
    still.stdout.startsWith('ok signalements-'),
  );
  const listing = sh(`docker exec formation-worker ${filter.listing}`).stdout;
  story.expectThat(
    "formation-worker's rule counted the refused SYN and its retransmissions",
    'more than 0 packets dropped',
    `${droppedPackets(tool, listing)} packets`,
    droppedPackets(tool, listing) > 0,
  );
  story.say(
    "with a passthrough balancer the nodes see the clients' own addresses: the filter must then allow the clients (loadBalancerSourceRanges), not the balancer; in a cloud, a security group does this job in front of the nodes",
  );
}

// ---- 3: one egress address for every pod of a node ------------------------------------------------------------

function sharedEgress(story: Story, seed: string | number): void {
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed });
  const { c } = f;
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    "security 3: masquerade hides the pod from an outside server: it sees the node's address, the same for every pod of that node",
  );
  const partnerLog: string[] = [];
  const partner = httpServer(c.internet, {
    port: 443,
    routes: { '/api': { body: 'partner data\n' } },
    onLog: (line) => partnerLog.push(line),
  });
  const atPartner = shell(c, story, c.internet);
  story.say(
    "a partner's API on the Internet (203.0.113.10:443, plain HTTP here) logs who calls; the Docker host routes the nodes' network to it without masquerading, as nodes with public addresses would be seen",
  );
  sh.host('iptables -t nat -I POSTROUTING 1 -s 172.18.0.0/16 -d 203.0.113.0/24 -j RETURN');
  const callers = ['diag', 'signalements-7d9f-b', 'signalements-7d9f-a'] as const;
  for (const pod of callers) sh(`kubectl exec ${pod} -- curl -s http://203.0.113.10:443/api`);
  story.show(`the partner's access log:\n${partnerLog.join('\n')}`);
  const seenAs = partnerLog.map((line) => line.split(' ')[0] ?? '');
  story.expectThat(
    'diag and signalements-7d9f-b (both on formation-worker) both appear as 172.18.0.3; the pod on formation-worker2 as 172.18.0.4',
    '172.18.0.3, 172.18.0.3, 172.18.0.4',
    seenAs.join(', '),
    seenAs.join(', ') === '172.18.0.3, 172.18.0.3, 172.18.0.4',
  );
  story.say("the partner allows diag only, the one way it can: by diag's node address, in its firewall");
  atPartner.host('iptables -A INPUT -p tcp --dport 443 ! -s 172.18.0.3 -j DROP');
  const answered = callers.map(
    (pod) => sh(`kubectl exec ${pod} -- curl -s -m 2 http://203.0.113.10:443/api`).exitCode,
  );
  story.expectThat(
    'every pod of formation-worker gets through, not only diag; the other node is refused (curl exit 28)',
    'diag 0, signalements-7d9f-b 0, signalements-7d9f-a 28',
    callers.map((pod, i) => `${pod} ${answered[i]}`).join(', '),
    answered.join(',') === '0,0,28',
  );
  story.say(
    'the remedy the lesson names: an egress address dedicated to the application (here an egress gateway on formation-worker2 giving diag 172.18.0.100), and the partner allows that one',
  );
  const gateway = clusterEgressGateway(c, {
    name: 'default/diag-egress',
    podSelector: { run: 'diag' },
    destinationCidrs: ['203.0.113.10/32'],
    gatewayNode: 'formation-worker2',
    egressIps: ['172.18.0.100'],
  });
  c.sim.run(1e9);
  story.expectEqual(
    'the gateway wrote its rules on every node',
    'no errors',
    gateway.syncs.flatMap((sync) => sync.errors).join('; ') || 'no errors',
  );
  atPartner.host('iptables -R INPUT 1 -p tcp --dport 443 ! -s 172.18.0.100 -j DROP');
  const before = partnerLog.length;
  const dedicated = callers.map(
    (pod) => sh(`kubectl exec ${pod} -- curl -s -m 2 http://203.0.113.10:443/api`).exitCode,
  );
  const lastSeen = partnerLog.slice(before).map((line) => line.split(' ')[0] ?? '');
  story.show(`the partner's access log since:\n${partnerLog.slice(before).join('\n')}`);
  story.expectThat(
    'now only diag gets through, seen as 172.18.0.100; its neighbour on formation-worker is refused',
    'diag 0 (from 172.18.0.100), signalements-7d9f-b 28, signalements-7d9f-a 28',
    `${callers.map((pod, i) => `${pod} ${dedicated[i]}`).join(', ')}; logged ${lastSeen.join(', ')}`,
    dedicated.join(',') === '0,28,28' && lastSeen.join(',') === '172.18.0.100',
  );
  partner.close();
}

// ---- 4: a rule before or after the Service translation -------------------------------------------------------

function beforeOrAfterTranslation(story: Story, seed: string | number): void {
  const { c } = formation({
    cni: 'kindnet',
    kubeProxy: 'iptables',
    seed,
    pods: ['diag', 'signalements-7d9f-a'],
  });
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    "security 4: a policy acts at one place of the path. In FORWARD, after PREROUTING's DNAT, a packet to the Service already carries the pod's address",
  );
  story.say(
    'the aim: forbid diag (10.244.1.5) to call signalements (10.96.40.12:80, one replica 10.244.2.7:8000)',
  );
  const call = () => sh('kubectl exec diag -- curl -s -m 2 http://10.96.40.12/sante');
  story.expectEqual('before any rule, diag is answered', 'ok signalements-7d9f-a', call().stdout.trim());
  const counters = (): string => sh('docker exec formation-worker iptables -L FORWARD 1 -v -n -x').stdout;
  const packetsOf = (line: string) => Number(line.trim().split(/\s+/)[0]);

  story.say("rule 1, written against the Service address, in FORWARD on diag's node:");
  sh(
    'docker exec formation-worker iptables -I FORWARD -s 10.244.1.5 -d 10.96.40.12 -p tcp --dport 80 -j DROP',
  );
  const through = call();
  const ruleOne = counters();
  story.expectEqual(
    'diag is still answered: the rule did not stop it',
    'ok signalements-7d9f-a',
    through.stdout.trim(),
  );
  story.expectThat(
    'its counters stay at 0: in FORWARD no packet is addressed to 10.96.40.12 any more',
    '0 packets',
    ruleOne.trim(),
    packetsOf(ruleOne) === 0 && ruleOne.includes('10.96.40.12'),
  );
  sh('docker exec formation-worker iptables -D FORWARD 1');

  story.say('rule 2, against the address after translation (the pod, port 8000):');
  sh(
    'docker exec formation-worker iptables -I FORWARD -s 10.244.1.5 -d 10.244.2.7 -p tcp --dport 8000 -j DROP',
  );
  const blocked = call();
  const ruleTwo = counters();
  story.expectEqual('diag is refused now: curl times out (exit 28)', 28, blocked.exitCode);
  story.expectThat(
    'the rule counted the SYN and its retransmissions',
    'more than 0 packets',
    ruleTwo.trim(),
    packetsOf(ruleTwo) > 0 && ruleTwo.includes('10.244.2.7'),
  );
  sh('docker exec formation-worker iptables -D FORWARD 1');

  story.say(
    "rule 3 names the Service again, but through conntrack's original destination (what the DNAT left behind): it matches after the translation",
  );
  sh(
    'docker exec formation-worker iptables -I FORWARD -s 10.244.1.5 -p tcp -m conntrack --ctorigdst 10.96.40.12 --ctorigdstport 80 -j DROP',
  );
  const byOrigin = call();
  const ruleThree = counters();
  story.expectEqual('diag is refused (exit 28)', 28, byOrigin.exitCode);
  story.expectThat(
    'and rule 3 counted it',
    'more than 0 packets',
    ruleThree.trim(),
    packetsOf(ruleThree) > 0 && ruleThree.includes('ctorigdst 10.96.40.12'),
  );
  story.say(
    'the same holds for plugins: some apply policy before the Service translation, others after (Cilium and Calico differ); test with real flows',
  );
}
