// The incident (shared/seeds 000 and 001) on a real cluster: NodePort 30080 reaches signalements on formation-worker2
// from outside; a mesh agent (Netbird v0.30, as a DaemonSet of hostNetwork pods) loads on every node a rule that sets
// the packet mark without a mask, wiping kube-proxy's masquerade bit 0x4000; the NodePort stops answering on the nodes
// that must forward to the pod while pods, nodes and DaemonSets all look healthy; the incident's own nft trace shows
// the bit lost; a rule change validated on one node, then a DaemonSet that applies it on every node (a node added
// afterwards and an agent restart included); then the upstream fix (the agent writes only its own bit) that makes the
// workaround unnecessary. Not here: Netbird's WireGuard tunnel and routing, an OKS-specific third component.

import type { Scheduler, TimerId } from '../src/core/scheduler.ts';
import { daemonSet } from '../src/k8s/api/builders.ts';
import type { Cluster } from '../src/k8s/cluster.ts';
import type { ImageRunner } from '../src/k8s/kubelet/kubelet.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import { type FormationCni, type FormationProxy, formation, type Shell, shell } from './formation-cluster.ts';
import { type Hop, hops } from './tcpdump-lines.ts';

/** The agent's release that broke NodePorts, and the one that fixed it upstream. */
export const NETBIRD_BROKEN = 'netbirdio/netbird:0.30.0';
export const NETBIRD_FIXED = 'netbirdio/netbird:0.30.1';
/** The workaround's image: it rewrites the agent's rule to touch only the agent's bit. */
export const MARK_FIX = 'registry.lyneko.fr/netbird-mark-fix:1.0';

/** The agent's bit: disjoint from kube-proxy's 0x4000, but v0.30.0 writes it over the whole mark. */
const NETBIRD_BIT = '0x00010000';

/** What each agent release loads on its node (replacing its table from an earlier start, as `nft -f` does). */
function netbirdRuleset(setMark: string): string {
  return `table inet netbird
delete table inet netbird
table inet netbird {
	chain forward-mark {
		type filter hook forward priority mangle; policy accept;
		${setMark}
	}
}
`;
}

/** v0.30.0: `meta mark set 0x00010000`, the whole 32-bit mark overwritten. */
export const BROKEN_RULE = `meta mark set ${NETBIRD_BIT}`;
/** The rule rewritten as `-j MARK --set-xmark 0x10000/0x10000` would be: clear the agent's bit, then set it. */
export const WORKAROUND_RULE = `meta mark set meta mark and 0xfffeffff or ${NETBIRD_BIT}`;
/** How nft lists both the workaround and the upstream fix (it folds `and ~B or B` into `| B`). */
export const MASKED_LISTING = `meta mark set meta mark | ${NETBIRD_BIT}`;

/** The incident's debugging commands (priority -301: before the raw table, so the trace starts at the very first hook). */
export const TRACE_COMMANDS = [
  'nft add table inet debug',
  "nft add chain inet debug trace '{ type filter hook prerouting priority -301; }'",
  'nft add rule inet debug trace tcp dport 30080 meta nftrace set 1',
];

/**
 * One more chain in the debug table, empty, in forward just before the agent's (priority -151 < mangle): its policy
 * line prints the mark the packet carries into the agent's chain (nft prints the mark on policy lines).
 */
export const BEFORE_AGENT_COMMAND =
  "nft add chain inet debug before-netbird '{ type filter hook forward priority -151; policy accept; }'";

/** How often the workaround's pod looks at the agent's rule again (the agent may reload it). */
const MARK_FIX_PERIOD_NS = 10e9;

export interface IncidentOptions {
  readonly cni?: FormationCni;
  readonly kubeProxy?: FormationProxy;
  readonly seed?: string | number;
}

/** `nft -a list chain ...` → the handle of the rule that reads `rule`, if any. */
function handleOf(listing: string, rule: string): string | undefined {
  for (const line of listing.split('\n')) {
    const match = /^\s*(.*) # handle (\d+)$/.exec(line);
    if (match?.[1] === rule) return match[2];
  }
  return undefined;
}

/** Rewrites the agent's unmasked rule on a node, if it is there; returns the handle it replaced. */
function rewriteRule(ns: Namespace): string | undefined {
  const listing = exec(ns, 'nft -a list chain inet netbird forward-mark');
  if (listing.exitCode !== 0) return undefined;
  const handle = handleOf(listing.stdout, BROKEN_RULE);
  if (handle === undefined) return undefined;
  const replaced = exec(ns, `nft replace rule inet netbird forward-mark handle ${handle} ${WORKAROUND_RULE}`);
  return replaced.exitCode === 0 ? handle : undefined;
}

/** The images the incident's DaemonSets run; the workaround's passes go on the cluster's scheduler. */
function incidentImages(scheduler: Scheduler, fixLog: string[]): [string, ImageRunner][] {
  const agent =
    (rule: string): ImageRunner =>
    (ns) => {
      const loaded = exec(ns, 'nft -f -', { stdin: netbirdRuleset(rule) });
      if (loaded.exitCode !== 0) throw new Error(`netbird on ${ns.name}: ${loaded.stderr}`);
      // Killed, the agent leaves its rules behind; the next start replaces them.
      return { stop: () => {} };
    };
  const markFix: ImageRunner = (ns, pod) => {
    let timer: TimerId | undefined;
    const pass = () => {
      const handle = rewriteRule(ns);
      if (handle !== undefined)
        fixLog.push(`${pod.spec.nodeName}: ${pod.metadata.name} rewrote rule handle ${handle}`);
      timer = scheduler.schedule(MARK_FIX_PERIOD_NS, pass);
    };
    pass();
    return {
      stop: () => {
        if (timer !== undefined) scheduler.cancel(timer);
      },
    };
  };
  return [
    [NETBIRD_BROKEN, agent(BROKEN_RULE)],
    [NETBIRD_FIXED, agent(MASKED_LISTING)],
    [MARK_FIX, markFix],
  ];
}

const CONTROL_PLANE_TOLERATION = {
  key: 'node-role.kubernetes.io/control-plane',
  operator: 'Exists',
  value: '',
  effect: 'NoSchedule',
} as const;

/** The whole incident as a story with its checks. */
export function incidentClusterStory(options: IncidentOptions = {}): StoryResult {
  const cni = options.cni ?? 'kindnet';
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'incident';
  const fixLog: string[] = [];
  const f = formation({ cni, kubeProxy, seed, pods: ['signalements-7d9f-a'] });
  const { c } = f;
  for (const [name, runner] of incidentImages(c.sim.scheduler, fixLog)) f.images.set(name, runner);
  const story = new Story('incident', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    `kind cluster formation (${cni}, kube-proxy ${kubeProxy}): signalements runs on formation-worker2 only, behind NodePort 30080`,
  );

  // 1. Healthy.
  sh('kubectl get pods -o wide');
  looksHealthy(story, sh, [], 3);
  nodePortAnswers(story, sh, 'healthy', ['172.18.0.2', '172.18.0.3', '172.18.0.4'], true);

  // 2. The upgrade: the agent's DaemonSet on every node.
  story.say(
    'the upgrade: Netbird v0.30 rolls out as a DaemonSet of hostNetwork pods (kubectl apply -f netbird.yaml)',
  );
  createDaemonSet(c, 'netbird', NETBIRD_BROKEN);
  c.sim.run(1e9);
  looksHealthy(story, sh, ['netbird'], 3);
  agentUp(story, sh, ['formation-control-plane', 'formation-worker', 'formation-worker2']);
  story.say("first rule: what changed? The upgrade's DaemonSet, nothing else");
  const changed = sh('kubectl get ds -n netbird -o wide').stdout;
  const images = changed.split('\n')[1]?.split(/ +/)[9] ?? '';
  story.expectEqual("kubectl get ds -o wide: the agent's new image", NETBIRD_BROKEN, images);
  if (cni === 'flannel-vxlan') {
    flannelHidesIt(story, sh);
    return story.result();
  }
  nodePortAnswers(story, sh, 'after the upgrade', ['172.18.0.2', '172.18.0.3'], false);
  nodePortAnswers(story, sh, 'after the upgrade, on the node that runs the pod', ['172.18.0.4'], true);

  // 3. Follow the packet.
  story.say("follow the packet: the incident's trace on formation-worker, and tcpdump where the pod is");
  const { trace: broken, podSide } = tracedCall(sh);
  checkTraceBroken(story, broken, kubeProxy);
  const synAtPod = podSide.find((hop) => hop.rest.startsWith('Flags [S],') && hop.dst === '10.244.2.7.8000');
  story.expectThat(
    'not masqueraded: the pod sees the client itself, 172.18.0.1, coming from formation-worker',
    '172.18.0.1.PORT > 10.244.2.7.8000',
    synAtPod === undefined ? 'no SYN' : `${synAtPod.src} > ${synAtPod.dst}`,
    synAtPod?.src.startsWith('172.18.0.1.') === true,
  );
  const direct = podSide.find((hop) => hop.rest.startsWith('Flags [S.],') && hop.device === 'eth0');
  story.expectThat(
    'so it answers the client directly from formation-worker2, from an address the client never called',
    'eth0 10.244.2.7.8000 > 172.18.0.1.PORT',
    direct === undefined ? 'no SYN-ACK on eth0' : `${direct.device} ${direct.src} > ${direct.dst}`,
    direct?.src === '10.244.2.7.8000' && direct.dst.startsWith('172.18.0.1.'),
  );

  // 4. The rule change, validated on one node.
  story.say(
    "the rule change, tried by hand on formation-worker: touch only Netbird's bit (--set-xmark 0x10000/0x10000)",
  );
  const listing = sh('docker exec formation-worker nft -a list chain inet netbird forward-mark').stdout;
  const handle = handleOf(listing, BROKEN_RULE);
  story.expectThat("the agent's rule writes the whole mark", BROKEN_RULE, listing, handle !== undefined);
  sh(
    `docker exec formation-worker nft replace rule inet netbird forward-mark handle ${handle ?? '0'} ${WORKAROUND_RULE}`,
  );
  rulesRead(story, sh, ['formation-worker'], MASKED_LISTING);
  nodePortAnswers(story, sh, 'fixed by hand on formation-worker', ['172.18.0.3'], true);
  nodePortAnswers(story, sh, 'not fixed on the control plane yet', ['172.18.0.2'], false);

  // 5. Industrialised as a DaemonSet.
  story.say(
    'the workaround as a DaemonSet: a hostNetwork pod on every node rewrites the rule, and looks again every 10 s',
  );
  createDaemonSet(c, 'netbird-mark-fix', MARK_FIX);
  c.sim.run(1e9);
  looksHealthy(story, sh, ['netbird', 'netbird-mark-fix'], 3);
  rulesRead(story, sh, ['formation-control-plane', 'formation-worker', 'formation-worker2'], MASKED_LISTING);
  nodePortAnswers(story, sh, 'with the workaround', ['172.18.0.2', '172.18.0.3', '172.18.0.4'], true);
  const fixedTrace = sh.background('docker exec formation-worker nft monitor trace');
  sh.host('curl -s -m 2 http://172.18.0.3:30080/sante');
  const fixed = fixedTrace.stop().stdout;
  story.expectThat(
    'the trace shows the masked rule, then the masquerade',
    `inet netbird forward-mark rule ${MASKED_LISTING}, then masquerade (verdict accept)`,
    traceLines(fixed, /netbird|masquerade/).join('\n'),
    fixed.includes(`inet netbird forward-mark rule ${MASKED_LISTING} (verdict continue)`) &&
      /masquerade.*\(verdict accept\)/.test(fixed),
  );
  story.expectThat(
    "the trace: the packet keeps kube-proxy's bit through Netbird's chain (0x00004000 in, 0x00014000 out)",
    'before-netbird ... meta mark 0x00004000; forward-mark ... meta mark 0x00014000',
    traceLines(fixed, /policy accept meta mark/)
      .slice(0, 2)
      .map((line) => line.replace(/^trace id \S+ /, '').trim())
      .join('; '),
    fixed.includes('inet debug before-netbird policy accept meta mark 0x00004000') &&
      fixed.includes('inet netbird forward-mark policy accept meta mark 0x00014000'),
  );

  // 6. A node added afterwards.
  story.say(
    'a node joins later (kind would need a new cluster; here c.addNode()): both DaemonSets follow it',
  );
  const added = c.addNode();
  c.sim.run(MARK_FIX_PERIOD_NS + 1e9);
  const pods = sh('kubectl get pods -n netbird -o wide').stdout;
  for (const name of ['netbird', 'netbird-mark-fix']) {
    story.expectThat(
      `${name} has a pod on ${added.name}`,
      `${name}-xxxxx ... Running ... ${added.name}`,
      pods
        .split('\n')
        .filter((line) => line.includes(added.name))
        .join('\n'),
      new RegExp(`^${name}-[a-z0-9]{5} +1/1 +Running .* ${added.name} `, 'm').test(pods),
    );
  }
  rulesRead(story, sh, [added.name], MASKED_LISTING);
  nodePortAnswers(story, sh, `on the new node`, [added.network.address], true);
  story.show(`netbird-mark-fix's log:\n${fixLog.join('\n')}`);
  story.expectThat(
    'the workaround rewrote the rule once on each node it found unfixed',
    'control plane, formation-worker2 and the new node',
    fixLog.join('; '),
    ['formation-control-plane', 'formation-worker2', added.name].every((node) =>
      fixLog.some((line) => line.startsWith(`${node}: `)),
    ) && !fixLog.some((line) => line.startsWith('formation-worker: ')),
  );

  // 6b. The agent restarts on a node: it loads its unmasked rule again, and the workaround's next pass rewrites it.
  story.say('the agent restarts on formation-worker (its pod replaced): it loads the unmasked rule again');
  const agentPod = c.store
    .list('Pod', 'netbird')
    .find((pod) => pod.metadata.labels['app'] === 'netbird' && pod.spec.nodeName === 'formation-worker');
  if (agentPod !== undefined) c.controlPlane?.deletePod('netbird', agentPod.metadata.name);
  c.sim.run(1e9);
  const reloaded = sh('docker exec formation-worker nft list chain inet netbird forward-mark').stdout;
  const fixedAfterRestart = () => fixLog.some((line) => line.startsWith('formation-worker: '));
  story.expectThat(
    'right after the restart the rule is unmasked again, or already rewritten by the workaround',
    `${BROKEN_RULE} or ${MASKED_LISTING}`,
    reloaded
      .split('\n')
      .find((line) => line.includes('meta mark set'))
      ?.trim() ?? reloaded,
    reloaded.split('\n').some((line) => line.trim() === BROKEN_RULE || line.trim() === MASKED_LISTING),
  );
  c.sim.run(MARK_FIX_PERIOD_NS);
  rulesRead(story, sh, ['formation-worker'], MASKED_LISTING);
  nodePortAnswers(story, sh, 'after the agent restarted', ['172.18.0.3'], true);
  story.expectThat(
    'the workaround rewrote it on formation-worker this time',
    'formation-worker: netbird-mark-fix-... rewrote rule handle N',
    fixLog.filter((line) => line.startsWith('formation-worker: ')).join('; '),
    fixedAfterRestart(),
  );

  // 7. The root cause, fixed upstream.
  story.say(
    `the root cause, fixed upstream: ${NETBIRD_FIXED} writes only its own bit; its pods replaced (updateStrategy OnDelete), then the workaround removed`,
  );
  const ds = c.store.get('DaemonSet', 'netbird', 'netbird');
  if (ds === undefined) throw new Error('no DaemonSet netbird');
  const template = ds.spec.template;
  c.store.update<'DaemonSet'>({
    ...ds,
    spec: {
      ...ds.spec,
      template: {
        ...template,
        spec: {
          ...template.spec,
          containers: template.spec.containers.map((container) => ({ ...container, image: NETBIRD_FIXED })),
        },
      },
    },
  });
  c.store.delete('DaemonSet', 'netbird', 'netbird-mark-fix');
  for (const pod of c.store.list('Pod', 'netbird'))
    if (pod.metadata.labels['app'] === 'netbird') c.controlPlane?.deletePod('netbird', pod.metadata.name);
  c.sim.run(31e9);
  const after = sh('kubectl get pods -n netbird -o wide').stdout;
  const rows = after
    .split('\n')
    .slice(1)
    .filter((line) => line !== '');
  story.expectThat(
    'four netbird pods, one per node, and no workaround left',
    '4 netbird-xxxxx Running, no netbird-mark-fix',
    rows.join('\n'),
    rows.length === 4 && rows.every((line) => /^netbird-[a-z0-9]{5} +1\/1 +Running /.test(line)),
  );
  const nodes = c.nodeList().map((node) => node.name);
  rulesRead(story, sh, nodes, MASKED_LISTING);
  nodePortAnswers(
    story,
    sh,
    'with the upstream fix alone',
    c.nodeList().map((node) => node.network.address),
    true,
  );
  const agentRule = sh('docker exec formation-worker nft list chain inet netbird forward-mark').stdout;
  const kubeProxyRule = sh(
    kubeProxy === 'iptables'
      ? 'docker exec formation-worker nft list chain ip nat KUBE-MARK-MASQ'
      : 'docker exec formation-worker nft list chain ip kube-proxy mark-for-masquerade',
  ).stdout;
  const agentBits = bitsSet(agentRule);
  const kubeProxyBits = bitsSet(kubeProxyRule);
  story.expectThat(
    'the root cause is gone: each component sets only its own bit, and the bits are disjoint',
    'netbird 0x10000 & kube-proxy 0x4000 = 0',
    `netbird ${agentBits === undefined ? '?' : `0x${agentBits.toString(16)}`} & kube-proxy ${kubeProxyBits === undefined ? '?' : `0x${kubeProxyBits.toString(16)}`} = ${agentBits === undefined || kubeProxyBits === undefined ? '?' : agentBits & kubeProxyBits}`,
    agentBits === 0x10000 && kubeProxyBits === 0x4000 && (agentBits & kubeProxyBits) === 0,
  );
  const upstreamTrace = sh.background('docker exec formation-worker nft monitor trace');
  sh.host('curl -s -m 2 http://172.18.0.3:30080/sante');
  const upstream = upstreamTrace.stop().stdout;
  story.expectThat(
    "the trace with the upstream fix alone: both bits through Netbird's chain, then kube-proxy's masquerade",
    'forward-mark ... meta mark 0x00014000, then masquerade (verdict accept)',
    traceLines(upstream, /forward-mark policy|masquerade/)
      .slice(0, 3)
      .map((line) => line.replace(/^trace id \S+ /, '').trim())
      .join('; '),
    upstream.includes('inet netbird forward-mark policy accept meta mark 0x00014000') &&
      /masquerade.*\(verdict accept\)/.test(upstream),
  );
  story.say(
    'the agent restarts on formation-worker3, with no workaround left: the fixed rule comes back, and so does the NodePort',
  );
  const onAdded = c.store
    .list('Pod', 'netbird')
    .find((pod) => pod.metadata.labels['app'] === 'netbird' && pod.spec.nodeName === added.name);
  if (onAdded !== undefined) c.controlPlane?.deletePod('netbird', onAdded.metadata.name);
  c.sim.run(31e9);
  rulesRead(story, sh, [added.name], MASKED_LISTING);
  nodePortAnswers(
    story,
    sh,
    `after ${added.name}'s agent restarted, no workaround`,
    [added.network.address],
    true,
  );
  return story.result();
}

function createDaemonSet(c: Cluster, name: string, image: string): void {
  const created = c.store.create<'DaemonSet'>(
    daemonSet({
      name,
      namespace: 'netbird',
      labels: { app: name },
      image,
      hostNetwork: true,
      tolerations: [CONTROL_PLANE_TOLERATION],
    }),
  );
  if (!created.ok) throw new Error(`DaemonSet ${name}: ${created.error.message}`);
}

/** curl from the Docker host to NodePort 30080 on each address: answered by signalements, or timed out. */
function nodePortAnswers(
  story: Story,
  sh: Shell,
  when: string,
  addresses: readonly string[],
  answers: boolean,
): void {
  for (const address of addresses) {
    const result = sh.host(`curl -s -m 2 http://${address}:30080/sante`);
    const got = result.exitCode === 0 ? result.stdout.trim() : `curl exit ${result.exitCode}`;
    story.expectEqual(
      `${when}: ${address}:30080 ${answers ? 'answers' : 'goes nowhere (curl times out)'}`,
      answers ? 'ok signalements-7d9f-a' : 'curl exit 28',
      got,
    );
  }
}

/** What an operator checks first: every pod Running and ready, every node Ready, every DaemonSet complete. */
function looksHealthy(story: Story, sh: Shell, daemonSets: readonly string[], nodes: number): void {
  const pods = sh('kubectl get pods -A -o wide').stdout;
  const rows = pods
    .split('\n')
    .slice(1)
    .filter((line) => line !== '');
  story.expectThat(
    'kubectl get pods: every pod 1/1 Running',
    'all Running',
    rows.map((line) => line.split(/ +/).slice(1, 4).join(' ')).join('; '),
    rows.length > 0 && rows.every((line) => / 1\/1 +Running /.test(line)),
  );
  const nodeRows = sh('kubectl get nodes')
    .stdout.split('\n')
    .slice(1)
    .filter((line) => line !== '');
  story.expectThat(
    'kubectl get nodes: every node Ready',
    `${nodes} Ready`,
    nodeRows.map((line) => line.split(/ +/).slice(0, 2).join(' ')).join('; '),
    nodeRows.length === nodes && nodeRows.every((line) => / Ready /.test(line)),
  );
  if (daemonSets.length === 0) return;
  const dsRows = sh('kubectl get ds -n netbird')
    .stdout.split('\n')
    .slice(1)
    .filter((line) => line !== '');
  for (const name of daemonSets) {
    const row = dsRows.find((line) => line.startsWith(`${name} `)) ?? '';
    story.expectThat(
      `kubectl get ds ${name}: desired = current = ready = ${nodes}`,
      `${name} ${nodes} ${nodes} ${nodes}`,
      row,
      row.split(/ +/).slice(1, 4).join(' ') === `${nodes} ${nodes} ${nodes}`,
    );
  }
}

/** The agent is up: on each node, it loaded its table (`nft list table inet netbird` answers). */
function agentUp(story: Story, sh: Shell, nodes: readonly string[]): void {
  for (const node of nodes) {
    const listed = sh(`docker exec ${node} nft list table inet netbird`);
    story.expectThat(
      `${node}: the agent is up, its table loaded`,
      'table inet netbird { chain forward-mark ... }',
      listed.exitCode === 0 ? (listed.stdout.split('\n')[0] ?? '') : listed.stderr.trim(),
      listed.exitCode === 0 && listed.stdout.includes('chain forward-mark'),
    );
  }
}

/** The bits a rule listing sets: `meta mark set mark or 0x4000` (iptables-nft) or `meta mark set meta mark | 0x...`. */
function bitsSet(listing: string): number | undefined {
  const match = /meta mark set (?:meta )?mark (?:or|\|) (0x[0-9a-f]+)/.exec(listing);
  return match === null ? undefined : Number(match[1]);
}

/** `nft list chain inet netbird forward-mark` on each node shows `rule`. */
function rulesRead(story: Story, sh: Shell, nodes: readonly string[], rule: string): void {
  for (const node of nodes) {
    const listing = sh(`docker exec ${node} nft list chain inet netbird forward-mark`).stdout;
    story.expectThat(
      `${node}: the agent's rule touches only its bit`,
      rule,
      listing.split('\n').find((line) => line.includes('meta mark set')) ?? listing,
      listing.split('\n').some((line) => line.trim() === rule),
    );
  }
}

/** The trace commands on formation-worker, `nft monitor trace` and tcpdump on formation-worker2 around one curl. */
function tracedCall(sh: Shell): { readonly trace: string; readonly podSide: readonly Hop[] } {
  for (const line of TRACE_COMMANDS) sh(`docker exec formation-worker ${line}`);
  sh(`docker exec formation-worker ${BEFORE_AGENT_COMMAND}`);
  const trace = sh.background('docker exec formation-worker nft monitor trace');
  const atPod = sh.background("docker exec formation-worker2 tcpdump -ni any 'tcp port 8000'");
  sh.host('curl -s -m 2 http://172.18.0.3:30080/sante');
  return { trace: trace.stop().stdout, podSide: hops(atPod.stop().stdout) };
}

/**
 * flannel's own --ip-masq rules hide the incident: FLANNEL-POSTRTG returns early for packets carrying kube-proxy's
 * mark (to avoid a double NAT), and masquerades anything from outside the pod network headed into it, so when the
 * mark is wiped flannel masquerades in kube-proxy's place (flannel trafficmngr/iptables masqRules).
 */
function flannelHidesIt(story: Story, sh: Shell): void {
  nodePortAnswers(
    story,
    sh,
    'after the upgrade, with flannel',
    ['172.18.0.2', '172.18.0.3', '172.18.0.4'],
    true,
  );
  story.say("why it still works here: the incident's trace on formation-worker");
  const { trace, podSide } = tracedCall(sh);
  story.expectThat(
    "the trace: Netbird's rule still wipes the mark",
    `inet netbird forward-mark rule ${BROKEN_RULE} (verdict continue)`,
    traceLines(trace, /inet netbird/).join('\n'),
    trace.includes(`inet netbird forward-mark rule ${BROKEN_RULE} (verdict continue)`),
  );
  story.expectThat(
    "the trace: kube-proxy's masquerade rule never matches; flannel's FLANNEL-POSTRTG masquerades instead",
    'FLANNEL-POSTRTG ... masquerade (verdict accept), no masquerade by kube-proxy',
    traceLines(trace, /0x00004000|masquerade/).join('\n'),
    /ip nat FLANNEL-POSTRTG rule ip saddr != 10\.244\.0\.0\/16 ip daddr 10\.244\.0\.0\/16 .*masquerade.*\(verdict accept\)/.test(
      trace,
    ) && !/(KUBE-POSTROUTING|kube-proxy masquerading) rule .*masquerade/.test(trace),
  );
  const syn = podSide.find((hop) => hop.rest.startsWith('Flags [S],') && hop.dst === '10.244.2.7.8000');
  story.expectThat(
    "the pod sees formation-worker's flannel.1 address: the reply goes back through it",
    '10.244.1.0.PORT > 10.244.2.7.8000',
    syn === undefined ? 'no SYN' : `${syn.src} > ${syn.dst}`,
    syn?.src.startsWith('10.244.1.0.') === true,
  );
  story.say('the bug is still there, hidden: a CNI that leaves host-to-pod traffic alone (kindnet) shows it');
}

function traceLines(trace: string, pattern: RegExp): string[] {
  return trace.split('\n').filter((line) => pattern.test(line));
}

/** The broken trace: kube-proxy sets 0x4000, the agent's rule overwrites the mark, no masquerade follows. */
function checkTraceBroken(story: Story, trace: string, kubeProxy: FormationProxy): void {
  const setBit =
    kubeProxy === 'iptables'
      ? /ip nat KUBE-MARK-MASQ rule .*meta mark set mark or 0x4000 \(verdict continue\)/
      : /ip kube-proxy mark-for-masquerade rule meta mark set meta mark \| 0x00004000 \(verdict continue\)/;
  story.expectThat(
    'the trace: kube-proxy marks the NodePort packet for masquerade (bit 0x4000)',
    setBit.source,
    traceLines(trace, /mark set/).join('\n'),
    setBit.test(trace),
  );
  story.expectThat(
    "the trace: then Netbird's rule sets the mark without a mask, and the packet leaves forward with 0x00010000 only",
    `inet netbird forward-mark rule ${BROKEN_RULE} (verdict continue); policy accept meta mark 0x00010000`,
    traceLines(trace, /inet netbird/).join('\n'),
    trace.includes(`inet netbird forward-mark rule ${BROKEN_RULE} (verdict continue)`) &&
      trace.includes('inet netbird forward-mark policy accept meta mark 0x00010000'),
  );
  story.expectThat(
    "the trace: the packet enters Netbird's chain with 0x00004000 and leaves it with 0x00010000: bit 0x4000 is lost there",
    'inet debug before-netbird policy accept meta mark 0x00004000; inet netbird forward-mark policy accept meta mark 0x00010000',
    traceLines(trace, /policy accept meta mark/)
      .slice(0, 2)
      .map((line) => line.replace(/^trace id \S+ /, '').trim())
      .join('; '),
    trace.includes('inet debug before-netbird policy accept meta mark 0x00004000') &&
      trace.includes('inet netbird forward-mark policy accept meta mark 0x00010000'),
  );
  story.expectThat(
    'the trace: at POSTROUTING the 0x4000 test fails and nothing masquerades',
    'a return on mark & 0x00004000, no masquerade (verdict accept)',
    traceLines(trace, /0x00004000|masquerade/).join('\n'),
    /mark & 0x00004000 (!= 0x00004000|== 0x00000000).*return \(verdict return\)/.test(trace) &&
      !/masquerade.*\(verdict accept\)/.test(trace),
  );
}

/**
 * The incident's cluster for `packetlab shell incident`: right after the upgrade, the agent's DaemonSet on every node
 * and NodePort 30080 answering only on formation-worker2 (kindnet), for a student to diagnose.
 */
export function incidentCluster(options: IncidentOptions = {}): Cluster {
  const f = formation({
    cni: options.cni ?? 'kindnet',
    kubeProxy: options.kubeProxy ?? 'iptables',
    seed: options.seed ?? 'incident',
    pods: ['signalements-7d9f-a'],
  });
  for (const [name, runner] of incidentImages(f.c.sim.scheduler, [])) f.images.set(name, runner);
  createDaemonSet(f.c, 'netbird', NETBIRD_BROKEN);
  f.c.sim.run(1e9);
  return f.c;
}
