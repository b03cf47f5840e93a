// Three of the lesson's "Pièges courants" on the cluster `formation`, each as a story with its checks: a ping to the
// Service address that nothing answers (only the declared port is translated), a VXLAN tunnel that swallows big
// segments (the pod MTU ignores the 50-byte overhead and the nodes drop the ICMP that would say so), and egress port
// exhaustion (every connection of a busy pod masqueraded to one node address) with its three remedies. Not here: the
// pitfalls of the client address and of `externalTrafficPolicy: Local` (another file), Cilium, TCPMSS clamping.

import { httpServer } from '../src/app/http/server.ts';
import { loadGenerator } from '../src/app/load/generator.ts';
import type { LoadReport } from '../src/app/load/report.ts';
import { clusterEgressGateway } from '../src/k8s/egress-gateway.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import {
  crictlId,
  type FormationProxy,
  formation,
  RAPPORT_BYTES,
  type Shell,
  shell,
} from './formation-cluster.ts';
import { type Hop, hopLines, hops } from './tcpdump-lines.ts';

// ---- pitfall-ping -------------------------------------------------------------------------------------------------

/** `ping 10.96.40.12` gets nothing back, `curl http://10.96.40.12/sante` answers: kube-proxy translates tcp/80 only. */
export function pitfallPingStory(
  kubeProxy: FormationProxy = 'iptables',
  seed: string | number = 'pitfall-ping',
): StoryResult {
  const f = formation({ cni: 'kindnet', kubeProxy, seed });
  const story = new Story('pitfall-ping', seed);
  story.attach(f.c.sim);
  const sh = shell(f.c, story);
  story.say(`kind cluster formation: kindnet, kube-proxy in ${kubeProxy} mode`);
  story.say('the pitfall: testing the Service signalements (10.96.40.12) with ping');
  const capture = sh.background("docker exec formation-worker tcpdump -ni any 'icmp or host 10.96.40.12'");
  const ping = sh('kubectl exec diag -- ping -c 2 -W 1 10.96.40.12');
  story.expectThat(
    'no echo reply comes back from 10.96.40.12',
    '2 packets transmitted, 0 received',
    ping.stdout.split('\n').find((line) => line.includes('packets transmitted')) ?? ping.stdout,
    ping.stdout.includes('2 packets transmitted, 0 received') && ping.exitCode === 1,
  );
  story.say('the same address on the port the Service declares:');
  const curl = sh('kubectl exec diag -- curl -s http://10.96.40.12/sante');
  story.expectThat(
    'curl http://10.96.40.12/sante answers',
    'ok signalements-7d9f-...',
    curl.stdout.trim(),
    /^ok signalements-7d9f-[ab]$/.test(curl.stdout.trim()) && curl.exitCode === 0,
  );
  const seen = hops(capture.stop().stdout);
  const requests = seen.filter((hop) => hop.rest.startsWith('ICMP echo request'));
  const syn = seen.find((hop) => hop.rest.startsWith('Flags [S],'));
  story.expectThat(
    "the SYN to 10.96.40.12.80 enters diag's veth (then DNAT sends it to a pod)",
    'veth... 10.244.1.5.PORT > 10.96.40.12.80',
    syn === undefined ? 'no SYN' : hopLines([syn])[0]!,
    syn?.device.startsWith('veth') === true && syn.dst === '10.96.40.12.80',
  );
  if (kubeProxy === 'iptables') pingIptables(story, sh, requests, seen);
  else pingNftables(story, sh, requests, ping.stdout);
  story.say(
    'a ClusterIP is a rule, not a host: test a Service with its protocol and port (curl, nc -zv), never with ping',
  );
  return story.result();
}

function pingIptables(story: Story, sh: Shell, requests: readonly Hop[], seen: readonly Hop[]): void {
  story.say(
    'iptables mode: no rule matches ICMP to 10.96.40.12, so the echo request is routed as it is, by the default route',
  );
  const out = requests.find((hop) => hop.device === 'eth0');
  story.expectThat(
    'the echo request leaves eth0 untranslated (no DNAT), masqueraded like any egress',
    'eth0 172.18.0.3 > 10.96.40.12',
    hopLines(requests).join('; '),
    out !== undefined && out.src === '172.18.0.3' && out.dst === '10.96.40.12',
  );
  const unreachable = seen.find((hop) => hop.device === 'eth0' && hop.rest.includes('unreachable'));
  story.expectThat(
    'the Docker host, which has no route to 10.96.0.0/12, answers net unreachable',
    '172.18.0.1 > 172.18.0.3: ICMP net 10.96.40.12 unreachable',
    unreachable === undefined
      ? 'no ICMP error'
      : `${unreachable.src} > ${unreachable.dst}: ${unreachable.rest}`,
    unreachable?.src === '172.18.0.1' && unreachable.rest.startsWith('ICMP net 10.96.40.12 unreachable'),
  );
  const nat = sh('docker exec formation-worker iptables-save -c -t nat').stdout;
  const rules = nat.split('\n').filter((line) => line.includes('-d 10.96.40.12/32'));
  const portal = rules.find((line) => line.includes('-A KUBE-SERVICES ')) ?? '';
  story.expectThat(
    'every rule for 10.96.40.12 in the nat table matches -p tcp --dport 80, none ICMP',
    '[P:B] -A KUBE-SERVICES -d 10.96.40.12/32 -p tcp ... --dport 80 -j KUBE-SVC-...',
    portal,
    rules.length > 0 &&
      rules.every((line) => / -p tcp .*--dport 80 /.test(line)) &&
      /-A KUBE-SERVICES -d 10\.96\.40\.12\/32 -p tcp .*--dport 80 -j KUBE-SVC-/.test(portal),
  );
  const counted = /^\[(\d+):\d+\]/.exec(portal);
  story.expectEqual("its counter saw curl's SYN only, not the two echo requests", 1, counted?.[1] ?? 'none');
  const table = sh('docker exec formation-worker conntrack -L -p icmp').stdout;
  const entry = table.split('\n').find((line) => line.includes('dst=10.96.40.12')) ?? '';
  story.expectThat(
    "conntrack's reply tuple still comes from 10.96.40.12: nothing translated the destination",
    'src=10.244.1.5 dst=10.96.40.12 type=8 ... [UNREPLIED] src=10.96.40.12 dst=172.18.0.3',
    entry,
    entry.includes('[UNREPLIED] src=10.96.40.12 dst=172.18.0.3 type=0'),
  );
}

function pingNftables(story: Story, sh: Shell, requests: readonly Hop[], pingOutput: string): void {
  story.say(
    'nftables mode: kube-proxy rejects new traffic to a ClusterIP on a port no Service declares (cluster-ips-check)',
  );
  story.expectThat(
    'the node answers port unreachable in place of the Service',
    'From 10.244.1.1 icmp_seq=1 Destination Port Unreachable',
    pingOutput.split('\n').find((line) => line.startsWith('From ')) ?? 'no From line',
    pingOutput.includes('From 10.244.1.1 icmp_seq=1 Destination Port Unreachable'),
  );
  story.expectThat(
    "the echo request never leaves the node: seen on diag's veth only",
    'veth... 10.244.1.5 > 10.96.40.12, nothing on eth0',
    hopLines(requests).join('; '),
    requests.length === 2 && requests.every((hop) => hop.device.startsWith('veth')),
  );
  const map = sh('docker exec formation-worker nft list map ip kube-proxy service-ips').stdout;
  story.expectThat(
    'service-ips has 10.96.40.12 . tcp . 80 and nothing for icmp',
    '10.96.40.12 . tcp . 80 : goto service-...',
    map.split('\n').find((line) => line.includes('10.96.40.12')) ?? '',
    /10\.96\.40\.12 \. tcp \. 80 : goto service-/.test(map) && !map.includes('10.96.40.12 . icmp'),
  );
  sh('docker exec formation-worker nft list set ip kube-proxy cluster-ips');
  const check = sh('docker exec formation-worker nft list chain ip kube-proxy cluster-ips-check').stdout;
  story.expectThat(
    'what is left for 10.96.40.12 meets the reject of cluster-ips-check',
    'ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"',
    check.split('\n').find((line) => line.includes('reject')) ?? '',
    check.includes('ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"'),
  );
  const listed = sh('docker exec formation-worker conntrack -L -p icmp');
  const table = `${listed.stdout}${listed.stderr}`;
  story.expectThat(
    'no conntrack entry survives: the rejected echo request was never confirmed',
    '0 flow entries',
    table.trim().split('\n').at(-1) ?? '',
    table.includes('0 flow entries have been shown.'),
  );
}

// ---- pitfall-mtu --------------------------------------------------------------------------------------------------

/** The hardening rule that makes the tunnel a black hole: the node drops the frag-needed it would send. */
const DROP_FRAG_NEEDED = 'iptables -A OUTPUT -p icmp --icmp-type fragmentation-needed -j DROP';
const RAPPORT_CURL =
  "kubectl exec diag -- curl -s -o /dev/null -w '%{http_code} %{size_download}\\n' --max-time 5 http://10.244.2.7:8000/rapport";

/** The data segments from signalements-7d9f-a's port 8000 in a capture, with their payload length. */
function dataSegments(list: readonly Hop[]): { readonly seq: string; readonly length: number }[] {
  return list.flatMap((hop) => {
    const match = /^Flags \[[^\]]*\], seq (\d+:\d+),.* length (\d+)/.exec(hop.rest);
    if (hop.src !== '10.244.2.7.8000' || match === null || Number(match[2]) === 0) return [];
    return [{ seq: match[1]!, length: Number(match[2]) }];
  });
}

/**
 * `/sante` crosses the tunnel, `/rapport` stalls: the pods were given MTU 1500 by hand, flannel.1 carries 1450, and
 * the frag-needed that would tell signalements-7d9f-a is dropped by the nodes. The search with `ping -M do` finds
 * 1422; pods at 1450 (what flannel itself gives) fix it.
 */
export function pitfallMtuStory(seed: string | number = 'pitfall-mtu'): StoryResult {
  const f = formation({ cni: 'flannel-vxlan', kubeProxy: 'iptables', seed, configuredPodMtu: 1500 });
  const story = new Story('pitfall-mtu', seed);
  story.attach(f.c.sim);
  const sh = shell(f.c, story);
  story.say('kind cluster formation: flannel-vxlan, kube-proxy in iptables mode');
  story.say(
    'flannel.1 wraps each pod packet in 50 bytes (outer IP 20, UDP 8, VXLAN 8, Ethernet 14): over a 1500-byte eth0 it carries 1450',
  );
  const tunnel = sh('docker exec formation-worker2 ip -d link show flannel.1').stdout;
  story.expectThat(
    'flannel.1 has MTU 1450',
    'mtu 1450',
    tunnel.split('\n')[0] ?? '',
    / mtu 1450 /.test(tunnel),
  );
  story.say(
    'but the CNI configuration was written by hand with "mtu": 1500 (flannel then keeps it instead of its FLANNEL_MTU=1450): the pod MTU ignores the overhead',
  );
  const podLink = sh('kubectl exec diag -- ip link show eth0').stdout;
  story.expectThat(
    "diag's eth0 has MTU 1500",
    'mtu 1500',
    podLink.split('\n')[0] ?? '',
    / mtu 1500 /.test(podLink),
  );
  story.say(
    'and a hardening baseline on the nodes drops the ICMP errors they emit, among them "fragmentation needed", the only word a node could say',
  );
  sh(`docker exec formation-worker ${DROP_FRAG_NEEDED}`);
  sh(`docker exec formation-worker2 ${DROP_FRAG_NEEDED}`);

  story.say('the small request and its small answer cross the tunnel:');
  const sante = sh('kubectl exec diag -- curl -s --max-time 5 http://10.244.2.7:8000/sante');
  story.expectEqual('/sante answers', 'ok signalements-7d9f-a', sante.stdout.trim());

  story.say(
    "exercise 3's two captures: where signalements-7d9f-a's segments enter the node (cni0 on formation-worker2) and where they should come out of the tunnel (flannel.1 on formation-worker)",
  );
  const atSender = sh.background("docker exec formation-worker2 tcpdump -ni cni0 'tcp port 8000 or icmp'");
  const atReceiver = sh.background(
    "docker exec formation-worker tcpdump -ni flannel.1 'tcp port 8000 or icmp'",
  );
  const rapport = sh(RAPPORT_CURL);
  story.expectThat(
    `/rapport (${RAPPORT_BYTES} bytes) stalls: curl gives up after --max-time 5`,
    'exit 28, 000 0',
    `exit ${rapport.exitCode}, ${rapport.stdout.trim()}`,
    rapport.exitCode === 28 && rapport.stdout.trim() === '000 0',
  );
  const sent = hops(atSender.stop().stdout);
  const arrived = hops(atReceiver.stop().stdout);
  const big = dataSegments(sent).filter((segment) => segment.length === 1448);
  const retransmitted = big.length - new Set(big.map((segment) => segment.seq)).size;
  story.expectThat(
    'on formation-worker2 cni0: 1448-byte segments (1500-byte packets) from 10.244.2.7, the same ones sent again',
    'length 1448, retransmitted',
    `${big.length} segments of 1448 bytes, ${retransmitted} of them retransmissions`,
    big.length > 0 && retransmitted > 0,
  );
  story.expectThat(
    'and no ICMP on cni0: the frag-needed the node made for 10.244.2.7 died in its OUTPUT chain',
    'no ICMP',
    `${sent.filter((hop) => hop.rest.startsWith('ICMP')).length} ICMP packets`,
    sent.length > 0 && sent.every((hop) => !hop.rest.startsWith('ICMP')),
  );
  const through = dataSegments(arrived);
  story.expectThat(
    'on formation-worker flannel.1: only the segments that fit 1450 came out of the tunnel, never a 1448',
    'no segment of 1448 bytes',
    `lengths ${[...new Set(through.map((segment) => segment.length))].join(', ') || 'none'}`,
    arrived.length > 0 && through.every((segment) => segment.length + 52 <= 1450),
  );
  const output = sh('docker exec formation-worker2 iptables -L OUTPUT -v -n').stdout;
  const dropRow = output.split('\n').find((line) => line.includes('DROP')) ?? '';
  const dropped = Number(dropRow.trim().split(/\s+/)[0] ?? 0);
  story.expectThat(
    "the drop rule's counter: the node did want to say fragmentation needed (mtu 1450)",
    'pkts > 0 on DROP icmp type 3 code 4',
    dropRow.trim(),
    dropped > 0 && dropRow.includes('icmptype 3 code 4'),
  );
  story.say(
    'so signalements-7d9f-a never learned the path MTU: its route to diag, seen from the node with nsenter',
  );
  const serverPid = podPid(sh, 'formation-worker2', 'signalements', 'signalements-7d9f-a');
  const routeGet = sh(
    `docker exec formation-worker2 nsenter -t ${serverPid} -n ip route get 10.244.1.5`,
  ).stdout;
  story.expectThat(
    'no mtu in its route cache: no frag-needed ever reached it',
    '10.244.1.5 via 10.244.2.1 dev eth0 src 10.244.2.7 ..., no mtu',
    routeGet.trim().replace(/\s+/g, ' '),
    routeGet.startsWith('10.244.1.5 via 10.244.2.1 dev eth0 src 10.244.2.7 ') && !routeGet.includes('mtu'),
  );

  story.say(
    "the lesson's test: ping -M do -s SIZE (DF set, no fragmenting) from diag to the pod on the other node, a binary search for the largest size that passes",
  );
  const search = pingSearch(sh);
  story.show(
    `sizes tried: ${search.tried.map(({ size, passed }) => `${size} ${passed ? 'passes' : 'lost'}`).join(', ')}\nlargest that passes: ${search.largest} (${search.largest} + 8 ICMP + 20 IP = ${search.largest + 28} bytes, flannel.1's MTU)`,
  );
  story.expectEqual('the search finds 1422', 1422, search.largest);
  const lost = search.tried.find(({ size }) => size === search.largest + 1);
  story.expectThat(
    'one byte more is lost without a word: no "Frag needed", no local error (a black hole)',
    '1423: 0 received, no From line',
    lost === undefined ? '1423 not tried' : `1423: ${lost.summary}`,
    lost !== undefined &&
      !lost.passed &&
      !lost.output.includes('From ') &&
      !lost.output.includes('local error'),
  );

  story.say(
    'the remedy: the pod MTU that counts the overhead, 1450 (remove the "mtu" line and flannel gives new pods FLANNEL_MTU=1450); here set in the running pods the way the plugin does, from the node with nsenter',
  );
  const diagPid = podPid(sh, 'formation-worker', 'diag', 'diag');
  sh(`docker exec formation-worker nsenter -t ${diagPid} -n ip link set dev eth0 mtu 1450`);
  sh(`docker exec formation-worker2 nsenter -t ${serverPid} -n ip link set dev eth0 mtu 1450`);
  const fixedLink = sh('kubectl exec diag -- ip link show eth0').stdout;
  story.expectThat(
    "diag's eth0 now has MTU 1450",
    'mtu 1450',
    fixedLink.split('\n')[0] ?? '',
    / mtu 1450 /.test(fixedLink),
  );
  const again = sh.background("docker exec formation-worker tcpdump -ni flannel.1 'tcp port 8000'");
  const fixed = sh(RAPPORT_CURL);
  story.expectEqual(
    '/rapport now arrives whole (the ICMP rule is still there)',
    `200 ${RAPPORT_BYTES}`,
    fixed.stdout.trim(),
  );
  const fixedHops = hops(again.stop().stdout);
  const synMss = /mss (\d+)/.exec(
    fixedHops.find((hop) => hop.rest.startsWith('Flags [S],'))?.rest ?? '',
  )?.[1];
  story.expectEqual("diag's SYN now announces mss 1410 (1450 - 20 - 20)", 1410, synMss ?? 'no SYN');
  const lengths = dataSegments(fixedHops).map((segment) => segment.length);
  story.expectEqual(
    'the largest segment is 1398 bytes: 1398 + 32 TCP + 20 IP = 1450, it fits flannel.1',
    1398,
    lengths.length === 0 ? 'none' : Math.max(...lengths),
  );
  const local = sh('kubectl exec diag -- ping -M do -s 1423 -c 1 -W 1 10.244.2.7');
  story.expectThat(
    'and 1423 now fails at once in diag, which knows its MTU',
    'ping: local error: message too long, mtu=1450',
    local.stderr.trim(),
    local.stderr.includes('ping: local error: message too long, mtu=1450'),
  );
  return story.result();
}

/** The PID of a pod's container on its node, the lesson's way: `crictl ps --name`, then `crictl inspect`. */
function podPid(sh: Shell, node: string, container: string, pod: string): string {
  const id = crictlId(sh(`docker exec ${node} crictl ps --name ${container}`).stdout, pod) ?? 'missing';
  return sh(
    `docker exec ${node} crictl inspect --output go-template --template '{{.info.pid}}' ${id}`,
  ).stdout.trim();
}

interface PingTry {
  readonly size: number;
  readonly passed: boolean;
  readonly summary: string;
  readonly output: string;
}

/** Binary search between 0 (passes) and 1473 (more than a 1500-byte pod sends): every ping the search ran. */
function pingSearch(sh: Shell): { readonly tried: readonly PingTry[]; readonly largest: number } {
  let passes = 0;
  let fails = 1473;
  const tried: PingTry[] = [];
  while (fails - passes > 1) {
    const size = Math.floor((passes + fails) / 2);
    const result = sh(`kubectl exec diag -- ping -M do -s ${size} -c 1 -W 1 10.244.2.7`);
    const output = `${result.stdout}${result.stderr}`;
    const passed = result.exitCode === 0;
    const summary = output.split('\n').find((line) => line.includes('packets transmitted')) ?? '';
    tried.push({ size, passed, summary: summary.replace(/, time .*/, ''), output });
    if (passed) passes = size;
    else fails = size;
  }
  return { tried, largest: passes };
}

// ---- pitfall-ports ------------------------------------------------------------------------------------------------

/** The external API the busy pod calls. */
const API = '203.0.113.10';
/** Four more addresses for formation-worker, and the egress gateway's three, on the Docker network. */
const NODE_EXTRA = ['172.18.0.30', '172.18.0.31', '172.18.0.32', '172.18.0.33'] as const;
const GATEWAY_IPS = ['172.18.0.100', '172.18.0.101', '172.18.0.102'] as const;
/** The narrowed NAT port range: 32 ports per address instead of 1024-65535. */
const NAT_PORTS = '40000-40031';
const LOAD = { rate: 60, durationMs: 1500, timeoutMs: 2000, idleCloseMs: 1000 } as const;

/**
 * A busy pod (diag) calls one external API sixty times a second with a new HTTP client each time, so about sixty
 * connections are open at once, all masqueraded to 172.18.0.3: past the ports NAT has, new connections fail
 * now and then. Then: a keep-alive pool, more egress addresses (nth split, since a --to-source range does not spread
 * one pod), an egress gateway.
 */
export function pitfallPortsStory(seed: string | number = 'pitfall-ports'): StoryResult {
  const f = formation({ cni: 'kindnet', kubeProxy: 'iptables', seed, pods: ['diag'] });
  const c = f.c;
  const story = new Story('pitfall-ports', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  httpServer(c.internet, { port: 80, routes: { '/api': { body: 'ok\n' } } });
  const diag = c.podNamespace('default', 'diag');
  if (diag === undefined) throw new Error('pitfall-ports: diag has no namespace');
  story.say(
    'kind cluster formation: kindnet, kube-proxy in iptables mode; an external API at 203.0.113.10:80',
  );
  story.say(
    'diag calls the API 60 times a second, each call with a new HTTP client that leaves its connection open, idle, before closing it: about sixty connections open at once, all masqueraded to 172.18.0.3',
  );
  story.say(
    `to keep the replay short, the idle time is 1 s (Go's http.Transport keeps 90 s) and the node's masquerade toward the API is narrowed to 32 ports (--to-ports ${NAT_PORTS}) instead of NAT's 64 512 (1024-65535): the same arithmetic, two thousand times smaller`,
  );
  sh(
    `docker exec formation-worker iptables -t nat -I KIND-MASQ-AGENT 2 -d ${API}/32 -p tcp -j MASQUERADE --to-ports ${NAT_PORTS}`,
  );
  sh('docker exec formation-worker iptables -t nat -S KIND-MASQ-AGENT');
  const stats = () => insertFailed(sh('docker exec formation-worker conntrack -S').stdout);

  // The storm.
  const before = stats();
  const storm = loadGenerator(diag, { target: `${API}:80`, path: '/api', ...LOAD });
  c.sim.run(1e9);
  story.say('1 s into the storm, what conntrack holds toward the API:');
  const established = sh(
    `docker exec formation-worker conntrack -L -d ${API} -p tcp --state ESTABLISHED`,
  ).stdout;
  const entries = established.split('\n').filter((line) => line.startsWith('tcp '));
  const natPorts = entries.map((line) =>
    Number(/dst=172\.18\.0\.3 sport=80 dport=(\d+)/.exec(line)?.[1] ?? 0),
  );
  story.expectThat(
    'every connection is masqueraded to 172.18.0.3, on a port of the 32',
    `${entries.length} entries, all dst=172.18.0.3 dport in ${NAT_PORTS}`,
    `${entries.length} entries, ports ${Math.min(...natPorts)}-${Math.max(...natPorts)}`,
    entries.length > 16 && natPorts.every((port) => port >= 40000 && port <= 40031),
  );
  story.say(
    'four calls made by hand meanwhile: a SYN that finds no free port is dropped, and curl waits for its retransmission (1 s later) or gives up (--max-time 2, exit 28)',
  );
  const codes: number[] = [];
  for (let i = 0; i < 4; i++)
    codes.push(
      sh(
        `kubectl exec diag -- curl -s -o /dev/null -w '%{http_code} %{time_total}\\n' --max-time 2 http://${API}/api`,
      ).exitCode,
    );
  story.show(`curl exit codes: ${codes.join(' ')}`);
  c.sim.run(4e9);
  const report = storm.report();
  story.show(
    `load generator, ${LOAD.rate} new clients/s for ${LOAD.durationMs / 1000} s:\n${storm.table().trimEnd()}`,
  );
  story.expectThat(
    'new connections fail intermittently: some succeed, some time out (curl 28)',
    'succeeded > 0 and curl 28 > 0',
    `succeeded ${report.succeeded}, failures ${JSON.stringify(report.failures)}`,
    report.succeeded > 0 && (report.failures['curl 28'] ?? 0) > 0,
  );
  story.expectThat(
    'and some that succeed waited for their SYN to be sent again (1 s)',
    'max latency >= 1000 ms',
    `max ${report.latencyMs.max} ms`,
    report.latencyMs.max >= 1000,
  );
  const after = stats();
  story.expectThat(
    'conntrack -S: every SYN that found no free port died at confirm, counted in insert_failed and drop',
    'insert_failed and drop grew by the same amount, > 0',
    `insert_failed +${after.insertFailed - before.insertFailed}, drop +${after.drop - before.drop}`,
    after.insertFailed > before.insertFailed &&
      after.insertFailed - before.insertFailed === after.drop - before.drop,
  );

  // Remedy 1: reuse connections.
  story.say('remedy 1: reuse connections. The same calls through one keep-alive pool:');
  const pooled = runLoad(c.sim, diag, { keepAlive: true });
  const pooledAfter = stats();
  story.show(`load generator, keep-alive pool:\n${pooled.table}`);
  story.expectThat(
    'every call succeeds over a handful of connections',
    'failed 0, connections <= 5',
    `failed ${pooled.report.failed}, connections ${pooled.report.connections}`,
    pooled.report.failed === 0 && pooled.report.succeeded > 0 && pooled.report.connections <= 5,
  );
  story.expectEqual('insert_failed does not move', after.insertFailed, pooledAfter.insertFailed);

  // Remedy 2: more egress addresses.
  story.say('remedy 2: more egress addresses. formation-worker gets four more on eth0:');
  for (const address of NODE_EXTRA) sh(`docker exec formation-worker ip addr add ${address}/16 dev eth0`);
  sh(
    `docker exec formation-worker iptables -t nat -R KIND-MASQ-AGENT 2 -d ${API}/32 -p tcp -j SNAT --to-source ${NODE_EXTRA[0]}-${NODE_EXTRA[3]}:${NAT_PORTS}`,
  );
  story.say('first as one SNAT range; 1 s into the run, the open connections by reply address:');
  let perAddress: number[] = [];
  const ranged = runLoad(c.sim, diag, {}, () => {
    perAddress = NODE_EXTRA.map((address) => {
      const listed = sh(`docker exec formation-worker conntrack -L -p tcp --state ESTABLISHED -q ${address}`);
      return listed.stdout.split('\n').filter((line) => line.startsWith('tcp ')).length;
    });
  });
  story.show(`load generator, SNAT --to-source ${NODE_EXTRA[0]}-${NODE_EXTRA[3]}:\n${ranged.table}`);
  story.expectThat(
    'a range does not spread one pod: the kernel picks the address from a hash of (source, destination), so every connection gets the same one, and failures remain',
    'one address in use, failed > 0',
    `open connections per address ${perAddress.join(', ')}, failed ${ranged.report.failed}`,
    perAddress.filter((n) => n > 0).length === 1 && ranged.report.failed > 0,
  );
  story.say('then spread per connection, one SNAT rule per address taking every Nth new connection:');
  sh(`docker exec formation-worker iptables -t nat -D KIND-MASQ-AGENT 2`);
  sh('docker exec formation-worker iptables -t nat -N EGRESS-SPREAD');
  NODE_EXTRA.forEach((address, i) => {
    const left = NODE_EXTRA.length - i;
    const nth = left > 1 ? ` -m statistic --mode nth --every ${left} --packet 0` : '';
    sh(
      `docker exec formation-worker iptables -t nat -A EGRESS-SPREAD -p tcp${nth} -j SNAT --to-source ${address}:${NAT_PORTS}`,
    );
  });
  sh(
    `docker exec formation-worker iptables -t nat -I KIND-MASQ-AGENT 2 -d ${API}/32 -p tcp -j EGRESS-SPREAD`,
  );
  sh('docker exec formation-worker iptables -t nat -S EGRESS-SPREAD');
  const spreadBefore = stats();
  const spread = runLoad(c.sim, diag, {});
  const spreadAfter = stats();
  story.show(`load generator, four addresses:\n${spread.table}`);
  const spreadCounts = snatCounts(
    sh('docker exec formation-worker iptables -t nat -L EGRESS-SPREAD -v -n').stdout,
  );
  story.expectThat(
    'four addresses, 128 ports: every call succeeds, each SNAT rule took its share of the connections',
    'failed 0, four rules with pkts > 0',
    `failed ${spread.report.failed}, connections per address ${spreadCounts.join(', ')}`,
    spread.report.failed === 0 && spreadCounts.length === 4 && spreadCounts.every((n) => n > 0),
  );
  story.expectEqual('insert_failed does not move', spreadBefore.insertFailed, spreadAfter.insertFailed);
  sh(`docker exec formation-worker iptables -t nat -D KIND-MASQ-AGENT 2`);

  // Remedy 3: an egress gateway.
  story.say(
    `remedy 3: an egress gateway. diag's traffic to ${API} goes to formation-worker2, which owns three dedicated addresses (${GATEWAY_IPS.join(', ')}, ${NAT_PORTS} each) and spreads the connections over them`,
  );
  clusterEgressGateway(c, {
    name: 'api-egress',
    podSelector: { run: 'diag' },
    destinationCidrs: [`${API}/32`],
    gatewayNode: 'formation-worker2',
    egressIps: [...GATEWAY_IPS],
    ports: NAT_PORTS,
  });
  c.sim.run(1e8);
  sh('docker exec formation-worker2 iptables -t nat -S EGRESS-GW-POOL');
  const gatewayStats = () => insertFailed(sh('docker exec formation-worker2 conntrack -S').stdout);
  const gwBefore = gatewayStats();
  let viaGateway: number[] = [];
  const gateway = runLoad(c.sim, diag, {}, () => {
    viaGateway = GATEWAY_IPS.map((address) => {
      const listed = sh(
        `docker exec formation-worker2 conntrack -L -p tcp --state ESTABLISHED -q ${address}`,
      );
      return listed.stdout
        .split('\n')
        .filter((line) => line.startsWith('tcp ') && line.includes('src=10.244.1.5 ')).length;
    });
  });
  const gwAfter = gatewayStats();
  story.show(`load generator, through the egress gateway:\n${gateway.table}`);
  story.expectThat(
    "every call succeeds; on the gateway, diag's connections leave from the three egress addresses",
    'failed 0, open connections on each of the three',
    `failed ${gateway.report.failed}, open connections per address ${viaGateway.join(', ')}`,
    gateway.report.failed === 0 && viaGateway.length === 3 && viaGateway.every((n) => n > 0),
  );
  story.expectEqual("the gateway's insert_failed does not move", gwBefore.insertFailed, gwAfter.insertFailed);
  story.say(
    'on a real node the same arithmetic holds at full size: 64 512 ports per (egress address, destination); count connections, not requests',
  );
  return story.result();
}

/** One load run to the API; `midway` runs 1 s in. */
function runLoad(
  sim: { run(ns: number): void },
  diag: Parameters<typeof loadGenerator>[0],
  extra: { readonly keepAlive?: boolean },
  midway?: () => void,
): { readonly report: LoadReport; readonly table: string } {
  const load = loadGenerator(diag, { target: `${API}:80`, path: '/api', ...LOAD, ...extra });
  const totalNs = (LOAD.durationMs + LOAD.timeoutMs + LOAD.idleCloseMs + 1000) * 1e6;
  let elapsedNs = 0;
  if (midway !== undefined) {
    sim.run(1e9);
    midway();
    elapsedNs = 1e9;
  }
  // The run, then time for the last idle connections to close and their ports to come back.
  sim.run(totalNs - elapsedNs);
  return { report: load.report(), table: load.table().trimEnd() };
}

/** The sum over CPUs of `conntrack -S`'s insert_failed and drop. */
function insertFailed(output: string): { readonly insertFailed: number; readonly drop: number } {
  let failed = 0;
  let drop = 0;
  for (const line of output.split('\n')) {
    failed += Number(/insert_failed=(\d+)/.exec(line)?.[1] ?? 0);
    drop += Number(/ drop=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { insertFailed: failed, drop };
}

/** The packet counts of the SNAT rules of `iptables -L CHAIN -v -n` (tcp ones only, when a chain has both). */
function snatCounts(output: string): number[] {
  const rows = output.split('\n').filter((line) => /\bSNAT\b/.test(line));
  const tcp = rows.filter((line) => / 6 +-- /.test(line) || / tcp +-- /.test(line));
  return (tcp.length > 0 ? tcp : rows).map((line) => Number(line.trim().split(/\s+/)[0]));
}
