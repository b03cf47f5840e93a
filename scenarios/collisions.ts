// "A shared namespace is where healthy components collide" (the incident's last lesson), beyond marks, on the kind
// cluster formation: two components that both use routing table 100 (collision-table), two that both manage
// `table inet filter` (collision-nft), and a node's own connection whose source port is a NodePort
// (collision-ports). Each component is a hostNetwork DaemonSet whose pods run the commands a real agent would; each
// story shows both components healthy, what breaks, the command that diagnoses it and the fix. Not here: the
// components' control planes (the VPN's tunnel, the blocklist's decision feed).

import { daemonSet } from '../src/k8s/api/builders.ts';
import type { Cluster } from '../src/k8s/cluster.ts';
import type { ImageRunner } from '../src/k8s/kubelet/kubelet.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import type { TcpSocket } from '../src/socket/tcp/socket.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import type { CommandResult } from '../src/tools/result.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../src/wire/address.ts';
import { type FormationProxy, formation, type Shell, shell } from './formation-cluster.ts';

const CONTROL_PLANE_TOLERATION = {
  key: 'node-role.kubernetes.io/control-plane',
  operator: 'Exists',
  value: '',
  effect: 'NoSchedule',
} as const;

export interface CollisionOptions {
  readonly kubeProxy?: FormationProxy;
  readonly seed?: string | number;
}

/** Runs a component's command on its node; a failure is the scenario's bug, not the story's. */
function must(ns: Namespace, line: string, stdin?: string): string {
  const result = exec(ns, line, stdin === undefined ? {} : { stdin });
  if (result.exitCode !== 0) throw new Error(`${ns.name}: ${line}: ${result.stderr}`);
  return result.stdout;
}

function createDaemonSet(c: Cluster, namespace: string, name: string, image: string): void {
  const created = c.store.create<'DaemonSet'>(
    daemonSet({
      name,
      namespace,
      labels: { app: name },
      image,
      hostNetwork: true,
      tolerations: [CONTROL_PLANE_TOLERATION],
    }),
  );
  if (!created.ok) throw new Error(`DaemonSet ${name}: ${created.error.message}`);
}

/** A new image in a DaemonSet's template, its pods replaced (updateStrategy OnDelete), then `settle` ns of time. */
function rollImage(c: Cluster, namespace: string, name: string, image: string, settle: number): void {
  const ds = c.store.get('DaemonSet', namespace, name);
  if (ds === undefined) throw new Error(`no DaemonSet ${name}`);
  const template = ds.spec.template;
  c.store.update<'DaemonSet'>({
    ...ds,
    spec: {
      ...ds.spec,
      template: {
        ...template,
        spec: { ...template.spec, containers: template.spec.containers.map((k) => ({ ...k, image })) },
      },
    },
  });
  restartPods(c, namespace, name);
  c.sim.run(settle);
}

/** Deletes a DaemonSet's pods (on `node` only, if given): the controller starts new ones. */
function restartPods(c: Cluster, namespace: string, name: string, node?: string): void {
  for (const pod of c.store.list('Pod', namespace))
    if (pod.metadata.labels['app'] === name && (node === undefined || pod.spec.nodeName === node))
      c.controlPlane?.deletePod(namespace, pod.metadata.name);
}

/** `kubectl get pods -n NS`: every pod 1/1 Running, as many as expected. */
function podsRunning(story: Story, sh: Shell, namespace: string, count: number, when: string): void {
  const rows = sh(`kubectl get pods -n ${namespace} -o wide`)
    .stdout.split('\n')
    .slice(1)
    .filter((line) => line !== '');
  story.expectThat(
    `${when}: kubectl get pods -n ${namespace}: ${count} pods, all 1/1 Running`,
    `${count} x 1/1 Running`,
    rows.map((line) => line.split(/ +/).slice(0, 3).join(' ')).join('; '),
    rows.length === count && rows.every((line) => / 1\/1 +Running /.test(line)),
  );
}

// ─── collision-table: one routing table number, two components ───────────────────────────────────────────────

export const EGRESS_ROUTER = 'registry.lyneko.fr/egress-router:1.0';
/** The fix: the same component, its routing table moved to 200 (its chart's `routingTable` value). */
export const EGRESS_ROUTER_TABLE_200 = 'registry.lyneko.fr/egress-router:1.1';
export const SITE_VPN = 'registry.lyneko.fr/site-vpn:2.3';
/** The egress router's bit of the packet mark (kube-proxy holds 0x4000 and 0x8000). */
const EGRESS_MARK = '0x200/0x200';
/** The egress node: the only address the site's firewall lets through to the partner's network. */
const EGRESS_NODE = '172.18.0.4';
const PARTNER = '203.0.113.10';
/** The office network behind the site's VPN gateway (the Docker host here, 172.18.0.1). */
const OFFICE_HOST = '192.168.100.20';

/**
 * The egress router: the selected pods' traffic to the partner's network (203.0.113.0/24) leaves through the
 * egress node, as Calico's egress gateway does it in iptables: mangle PREROUTING marks it (its own bit, masked),
 * `ip rule fwmark` sends marked packets to its table, whose default route leads to the egress node, and nat
 * POSTROUTING leaves marked packets alone (the egress node masquerades them). It writes its rules once, at start.
 */
function egressRouter(c: Cluster, table: number): ImageRunner {
  return (ns, pod) => {
    const selected = c.store
      .list('Pod', 'default')
      .filter((p) => p.metadata.labels['egress'] === 'partner' && p.spec.nodeName === pod.spec.nodeName);
    if (selected.length === 0) return { stop: () => {} };
    const marks = selected.map(
      (p) => `-s ${p.status.podIP}/32 -d 203.0.113.0/24 -j MARK --set-xmark ${EGRESS_MARK}`,
    );
    for (const rule of marks) must(ns, `iptables -t mangle -A PREROUTING ${rule}`);
    must(ns, `iptables -t nat -I POSTROUTING 1 -m mark --mark ${EGRESS_MARK} -j ACCEPT`);
    must(ns, `ip rule add fwmark ${EGRESS_MARK} lookup ${table} priority 100`);
    must(ns, `ip route replace default via ${EGRESS_NODE} dev eth0 table ${table}`);
    return {
      stop: () => {
        for (const rule of marks) exec(ns, `iptables -t mangle -D PREROUTING ${rule}`);
        exec(ns, `iptables -t nat -D POSTROUTING -m mark --mark ${EGRESS_MARK} -j ACCEPT`);
        exec(ns, `ip rule del fwmark ${EGRESS_MARK} lookup ${table} priority 100`);
        exec(ns, `ip route del default table ${table}`);
      },
    };
  };
}

/**
 * The site VPN's route agent: the office network through the VPN gateway, in its own table 100 with an `ip rule
 * to`. At every (re)connect it rewrites its table from scratch: `ip route flush table 100`, then its routes.
 */
const siteVpn: ImageRunner = (ns) => {
  if (!exec(ns, 'ip rule').stdout.includes('to 192.168.100.0/24 lookup 100'))
    must(ns, 'ip rule add to 192.168.100.0/24 lookup 100 priority 110');
  // On a node where the table is still empty, ip answers "FIB table does not exist": the agent ignores it.
  exec(ns, 'ip route flush table 100');
  must(ns, 'ip route add 192.168.100.0/24 via 172.18.0.1 dev eth0 table 100');
  return { stop: () => {} };
};

/** Two components, one routing table number: the VPN agent's flush erases the egress router's default route. */
export function collisionTableStory(options: CollisionOptions = {}): StoryResult {
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'collision-table';
  const f = formation({ cni: 'kindnet', kubeProxy, seed, pods: [] });
  const { c } = f;
  f.images.set(EGRESS_ROUTER, egressRouter(c, 100));
  f.images.set(EGRESS_ROUTER_TABLE_200, egressRouter(c, 200));
  f.images.set(SITE_VPN, siteVpn);
  const story = new Story('collision-table', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  const created = c.createPod({
    name: 'diag',
    node: 'formation-worker',
    ip: '10.244.1.5',
    labels: { run: 'diag', egress: 'partner' },
  });
  if (!created.ok) throw new Error(`pod diag: ${created.error.message}`);
  c.sim.run(1e9);
  partnerServer(c);
  story.say(
    `kind cluster formation (kindnet, kube-proxy ${kubeProxy}); the site's firewall (the Docker host) lets only the egress node ${EGRESS_NODE} (formation-worker2) reach the partner's network 203.0.113.0/24`,
  );
  sh.host('iptables -I FORWARD -d 203.0.113.0/24 -j REJECT');
  sh.host(`iptables -I FORWARD -s ${EGRESS_NODE} -d 203.0.113.0/24 -j ACCEPT`);
  story.say(
    'component 1, the egress router (a DaemonSet): diag (label egress=partner) reaches the partner through formation-worker2, by marking its packets (bit 0x200) and routing marked packets with table 100',
  );
  createDaemonSet(c, 'egress', 'egress-router', EGRESS_ROUTER);
  c.sim.run(1e9);
  sh('docker exec formation-worker ip rule');
  tableShows(story, sh, 100, ['default via 172.18.0.4 dev eth0'], 'with the egress router alone');
  routeGet(story, sh, `${PARTNER} mark 0x200`, 'via 172.18.0.4 dev eth0 table 100', 'diag → partner');
  partnerAnswers(story, sh, 'with the egress router alone', true);

  story.say(
    'component 2, the site VPN agent (another DaemonSet): the office network 192.168.100.0/24 through the VPN gateway, in ITS table 100; at each connect it flushes the table and writes its routes',
  );
  createDaemonSet(c, 'vpn', 'site-vpn', SITE_VPN);
  c.sim.run(1e9);
  podsRunning(story, sh, 'egress', 3, 'both components');
  podsRunning(story, sh, 'vpn', 3, 'both components');
  routeGet(story, sh, OFFICE_HOST, 'via 172.18.0.1 dev eth0 table 100', 'the VPN works');
  partnerAnswers(story, sh, 'after the VPN agent started', false);

  story.say(
    "diagnosis: both components' rules point at table 100, and the table holds only the VPN's route: its flush erased the egress router's default route",
  );
  const rules = sh('docker exec formation-worker ip rule').stdout;
  story.expectThat(
    'ip rule: two rules, two components, one table',
    'fwmark 0x200/0x200 lookup 100 and to 192.168.100.0/24 lookup 100',
    rules
      .split('\n')
      .filter((line) => line.includes('lookup 100'))
      .join('; '),
    /fwmark 0x200\/0x200 lookup 100/.test(rules) && /to 192\.168\.100\.0\/24 lookup 100/.test(rules),
  );
  tableShows(story, sh, 100, ['192.168.100.0/24 via 172.18.0.1 dev eth0'], 'after the VPN agent started');
  routeGet(
    story,
    sh,
    `${PARTNER} mark 0x200`,
    'via 172.18.0.1 dev eth0 src 172.18.0.3',
    'diag → partner falls through to main',
  );
  const capture = sh.background(`docker exec formation-worker tcpdump -ni eth0 'host ${PARTNER}'`);
  sh('kubectl exec diag -- curl -s -m 2 http://203.0.113.10/');
  const seen = capture.stop().stdout;
  story.expectThat(
    "tcpdump on formation-worker's eth0: diag's SYN leaves by main's default route with the pod's own address (nat still leaves marked packets alone), and no answer comes back",
    `10.244.1.5.PORT > ${PARTNER}.80: Flags [S], retransmitted, nothing from ${PARTNER}`,
    seen.split('\n')[0] ?? '',
    (seen.match(/10\.244\.1\.5\.\d+ > 203\.0\.113\.10\.80: Flags \[S\]/g) ?? []).length >= 2 &&
      !/203\.0\.113\.10\.80 >/.test(seen),
  );

  story.say(
    'the fix: one table number per component. The egress router moves to table 200 (its chart value), its pods replaced',
  );
  rollImage(c, 'egress', 'egress-router', EGRESS_ROUTER_TABLE_200, 2e9);
  sh('docker exec formation-worker ip rule');
  tableShows(story, sh, 200, ['default via 172.18.0.4 dev eth0'], 'after the fix');
  tableShows(story, sh, 100, ['192.168.100.0/24 via 172.18.0.1 dev eth0'], 'after the fix');
  routeGet(story, sh, `${PARTNER} mark 0x200`, 'via 172.18.0.4 dev eth0 table 200', 'after the fix');
  partnerAnswers(story, sh, 'after the fix', true);
  story.say('the VPN agent reconnects on formation-worker (its pod replaced): it flushes table 100 again');
  restartPods(c, 'vpn', 'site-vpn', 'formation-worker');
  c.sim.run(2e9);
  routeGet(story, sh, OFFICE_HOST, 'via 172.18.0.1 dev eth0 table 100', 'after the VPN reconnected');
  partnerAnswers(story, sh, 'after the VPN reconnected', true);
  return story.result();
}

/** The partner's API on the Internet host. */
function partnerServer(c: Cluster): void {
  const listener = c.internet.tcp.listen(0, 80, (socket) => answerOnce(socket, 'ok partner\n'));
  if (listener === 'EADDRINUSE') throw new Error('internet: port 80 taken');
}

/** A minimal HTTP/1.1 answer to the first request, then close. */
function answerOnce(socket: TcpSocket, body: string): void {
  socket.onData = (s) => {
    s.write(
      new TextEncoder().encode(
        `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );
    s.end();
  };
  socket.onEnd = (s) => s.end();
}

function partnerAnswers(story: Story, sh: Shell, when: string, answers: boolean): void {
  const result = sh('kubectl exec diag -- curl -s -m 2 http://203.0.113.10/');
  story.expectEqual(
    `${when}: diag ${answers ? 'reaches the partner through the egress node' : 'no longer reaches the partner (curl times out)'}`,
    answers ? 'ok partner' : 'curl exit 28',
    result.exitCode === 0 ? result.stdout.trim() : `curl exit ${result.exitCode}`,
  );
}

function tableShows(story: Story, sh: Shell, table: number, routes: readonly string[], when: string): void {
  const listing = sh(`docker exec formation-worker ip route show table ${table}`).stdout;
  const lines = listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  story.expectThat(
    `${when}: ip route show table ${table}`,
    routes.join('; '),
    lines.join('; '),
    lines.length === routes.length && routes.every((route) => lines.some((line) => line.startsWith(route))),
  );
}

function routeGet(story: Story, sh: Shell, args: string, expected: string, when: string): void {
  const out = sh(`docker exec formation-worker ip route get ${args}`).stdout;
  const first = out.split('\n')[0] ?? '';
  story.expectThat(`${when}: ip route get ${args}`, expected, first.trim(), first.includes(expected));
}

// ─── collision-nft: one nft table name, two components ────────────────────────────────────────────────────────

export const NODE_FIREWALL = 'registry.lyneko.fr/node-firewall:1.0';
/** The firewall's next configuration: one more rule, applied by its usual reload. */
export const NODE_FIREWALL_NEXT = 'registry.lyneko.fr/node-firewall:1.1';
export const BLOCKLIST = 'registry.lyneko.fr/blocklist-agent:0.9';
/** The fix: the blocklist agent in a table of its own (`table inet blocklist`). */
export const BLOCKLIST_OWN_TABLE = 'registry.lyneko.fr/blocklist-agent:1.0';
/** An abusive client on the Internet the blocklist bans. */
const ABUSER = '203.0.113.10';

/** The firewall's rules: the kubelet's port only from the node network (and, in 1.1, ssh too). */
function firewallRules(next: boolean): string {
  return `table inet filter {
	chain input {
		type filter hook input priority filter; policy accept;
		tcp dport 10250 ip saddr != 172.18.0.0/16 drop
${next ? '\t\ttcp dport 22 ip saddr != 172.18.0.0/16 drop\n' : ''}	}
}
`;
}

/**
 * The node firewall: it owns `table inet filter` and applies its configuration idempotently, as many tools do:
 * `flush table inet filter`, then its table, in one `nft -f` (atomic). The flush empties EVERY chain of the table.
 */
function nodeFirewall(next: boolean): ImageRunner {
  return (ns) => {
    must(
      ns,
      'nft -f -',
      `${exec(ns, 'nft list table inet filter').exitCode === 0 ? 'flush table inet filter\n' : ''}${firewallRules(next)}`,
    );
    return { stop: () => {} };
  };
}

/** The blocklist agent: a set of banned addresses and a drop chain before DNAT, in `table` (its default: filter). */
function blocklistAgent(table: string): ImageRunner {
  return (ns) => {
    must(
      ns,
      'nft -f -',
      `table inet ${table} {
	set blocked {
		type ipv4_addr
		elements = { ${ABUSER} }
	}
	chain blocklist {
		type filter hook prerouting priority -150; policy accept;
		ip saddr @blocked counter drop
	}
}
`,
    );
    return {
      stop: () => {
        if (table === 'filter') {
          exec(ns, 'nft delete chain inet filter blocklist');
          exec(ns, 'nft delete set inet filter blocked');
        } else exec(ns, `nft delete table inet ${table}`);
      },
    };
  };
}

/** Two components, one nft table: the firewall's reload flushes the blocklist's rule away. */
export function collisionNftStory(options: CollisionOptions = {}): StoryResult {
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'collision-nft';
  const f = formation({ cni: 'kindnet', kubeProxy, seed, pods: ['signalements-7d9f-a'] });
  const { c } = f;
  f.images.set(NODE_FIREWALL, nodeFirewall(false));
  f.images.set(NODE_FIREWALL_NEXT, nodeFirewall(true));
  f.images.set(BLOCKLIST, blocklistAgent('filter'));
  f.images.set(BLOCKLIST_OWN_TABLE, blocklistAgent('blocklist'));
  const story = new Story('collision-nft', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  // The abusive client's own terminal, on the Internet host.
  const fromInternet = (line: string) => {
    const result = story.run('internet$', c.internet, line);
    c.sim.run(1e8);
    return result;
  };
  story.say(
    `kind cluster formation (kindnet, kube-proxy ${kubeProxy}): NodePort 30080 on every node; ${ABUSER} is a client on the Internet that the site wants banned`,
  );
  story.say('component 1, the node firewall (a DaemonSet): it owns table inet filter');
  createDaemonSet(c, 'security', 'node-firewall', NODE_FIREWALL);
  c.sim.run(1e9);
  sh('docker exec formation-worker nft list table inet filter');
  abuserReaches(story, fromInternet, 'before any ban', true);

  story.say(
    `component 2, the blocklist agent (another DaemonSet): its set of banned addresses and its drop chain, in the table it is configured with by default, inet filter; it bans ${ABUSER}`,
  );
  createDaemonSet(c, 'security', 'blocklist-agent', BLOCKLIST);
  c.sim.run(1e9);
  sh('docker exec formation-worker nft -a list table inet filter');
  abuserReaches(story, fromInternet, 'with the ban', false);
  dockerHostReaches(story, sh, 'with the ban');

  story.say(
    "the firewall's configuration changes (1.1: ssh from the node network only); its pods reload the table: flush table inet filter, then its rules, in one nft -f",
  );
  const monitor = sh.background('docker exec formation-worker nft monitor');
  rollImage(c, 'security', 'node-firewall', NODE_FIREWALL_NEXT, 2e9);
  const events = monitor.stop().stdout;
  story.expectThat(
    "nft monitor: the firewall's one batch deletes the blocklist's rule along with its own, then adds its own back",
    'delete rule inet filter input handle 2; delete rule inet filter blocklist handle 5; add chain inet filter input ...; add rule inet filter input ...',
    events
      .split('\n')
      .filter((line) => line.startsWith('delete') || line.startsWith('add rule'))
      .join('; '),
    /^delete rule inet filter input handle \d+\ndelete rule inet filter blocklist handle \d+\nadd chain inet filter input \{[^\n]*\}\nadd rule inet filter input tcp dport 10250 [^\n]*\nadd rule inet filter input tcp dport 22 [^\n]*\n# new generation \d+ by process \d+ \(nft\)\n/m.test(
      events,
    ),
  );
  c.sim.run(29e9);
  podsRunning(story, sh, 'security', 6, 'after the reload');
  abuserReaches(story, fromInternet, 'after the firewall reload', true);

  story.say(
    "diagnosis: the table still holds the blocklist's chain and its set, banned address included, but the chain is empty: flush table deletes every chain's rules, whoever wrote them (nft monitor above caught the very batch)",
  );
  const listing = sh('docker exec formation-worker nft -a list table inet filter').stdout;
  const chain = /\tchain blocklist \{[^\n]*\n([^}]*)\}/.exec(listing)?.[1] ?? '';
  story.expectThat(
    "nft -a list table inet filter: the blocklist's chain has no rule left",
    'type filter hook prerouting priority mangle; policy accept; (and nothing else)',
    chain.trim(),
    chain.trim() === 'type filter hook prerouting priority mangle; policy accept;',
  );
  const set = sh('docker exec formation-worker nft list set inet filter blocked').stdout;
  story.expectThat(
    "nft list set inet filter blocked: the agent's own view still looks right",
    `elements = { ${ABUSER} }`,
    set.split('\n').find((line) => line.includes('elements')) ?? set,
    set.includes(`elements = { ${ABUSER} }`),
  );
  story.expectThat(
    "the firewall's rules came back with new handles (they were deleted and added again)",
    'tcp dport 10250 ... drop # handle N, N > the first load',
    listing
      .split('\n')
      .filter((line) => line.includes('dport'))
      .map((line) => line.trim())
      .join('; '),
    /tcp dport 10250 ip saddr != 172\.18\.0\.0\/16 drop # handle ([3-9]|\d\d+)\n/.test(listing),
  );

  story.say(
    'the fix: one table per component. The blocklist agent moves to a table of its own, inet blocklist; then the firewall reloads again',
  );
  rollImage(c, 'security', 'blocklist-agent', BLOCKLIST_OWN_TABLE, 31e9);
  restartPods(c, 'security', 'node-firewall');
  c.sim.run(31e9);
  podsRunning(story, sh, 'security', 6, 'after the fix');
  const tables = sh('docker exec formation-worker nft list tables').stdout;
  story.expectThat(
    'nft list tables: each component its own table',
    'table inet filter, table inet blocklist',
    tables
      .split('\n')
      .filter((line) => line.startsWith('table inet'))
      .join('; '),
    tables.includes('table inet filter\n') && tables.includes('table inet blocklist\n'),
  );
  sh('docker exec formation-worker nft list table inet blocklist');
  abuserReaches(story, fromInternet, 'after the fix and another firewall reload', false);
  dockerHostReaches(story, sh, 'after the fix');
  return story.result();
}

function abuserReaches(
  story: Story,
  fromInternet: (line: string) => CommandResult,
  when: string,
  reaches: boolean,
): void {
  const result = fromInternet('curl -s -m 2 http://172.18.0.3:30080/sante');
  story.expectEqual(
    `${when}: ${ABUSER} ${reaches ? 'reaches' : 'is dropped at'} formation-worker:30080`,
    reaches ? 'ok signalements-7d9f-a' : 'curl exit 28',
    result.exitCode === 0 ? result.stdout.trim() : `curl exit ${result.exitCode}`,
  );
}

function dockerHostReaches(story: Story, sh: Shell, when: string): void {
  const result = sh.host('curl -s -m 2 http://172.18.0.3:30080/sante');
  story.expectEqual(
    `${when}: the Docker host still reaches formation-worker:30080`,
    'ok signalements-7d9f-a',
    result.exitCode === 0 ? result.stdout.trim() : `curl exit ${result.exitCode}`,
  );
}

// ─── collision-ports: a node's source port that is a NodePort ─────────────────────────────────────────────────

/** The node agent's config server on the Docker host. */
const CONFIG_SERVER = '172.18.0.1';
const CONFIG_SERVER_ADDR = parseIpv4(CONFIG_SERVER) as Ipv4Addr;
const CONFIG_PORT = 7000;
const DAY_NS = 86_400e9;
const NODEPORT_RANGE: readonly [number, number] = [30000, 32767];

/** The config server: it keeps each subscriber's connection and pushes every new version down all of them. */
class ConfigServer {
  readonly log: string[] = [];
  private readonly subscribers = new Set<TcpSocket>();

  constructor(ns: Namespace) {
    const listener = ns.tcp.listen(0, CONFIG_PORT, (socket) => {
      const peer = `${formatIpv4(socket.remoteAddr)}:${socket.remotePort}`;
      this.subscribers.add(socket);
      this.log.push(`subscriber ${peer} connected`);
      socket.onEnd = (s) => s.end();
      socket.onClose = (_s, error) => {
        this.subscribers.delete(socket);
        this.log.push(`subscriber ${peer} ${error === undefined ? 'closed' : `lost (${error})`}`);
      };
    });
    if (listener === 'EADDRINUSE') throw new Error(`config server: port ${CONFIG_PORT} taken`);
  }

  push(version: string): void {
    this.log.push(`push ${version} to ${this.subscribers.size} subscriber(s)`);
    for (const socket of this.subscribers) socket.write(new TextEncoder().encode(`config ${version}\n`));
  }
}

/**
 * The node agent on formation-worker (a systemd service): one long-lived connection to the config server, idle
 * until a version is pushed; no keepalive. `port` binds the source port (the replay of connect()'s draw).
 */
class ConfigAgent {
  readonly log: string[] = [];
  private socket: TcpSocket | undefined;

  constructor(
    private readonly ns: Namespace,
    private readonly server: Ipv4Addr,
  ) {}

  connect(port?: number): void {
    this.socket?.destroy();
    const connected = this.ns.tcp.connect({
      dst: this.server,
      dstPort: CONFIG_PORT,
      ...(port === undefined ? {} : { srcPort: port }),
    });
    if (!connected.ok) throw new Error(`config agent: connect: ${connected.error}`);
    this.socket = connected.socket;
    connected.socket.onData = (_s, data) => {
      for (const line of new TextDecoder().decode(data).split('\n'))
        if (line !== '') this.log.push(`applied ${line}`);
    };
  }
}

/** A node agent's connection from port 30080 outlives its conntrack entry, and the NodePort takes it over. */
export function collisionPortsStory(options: CollisionOptions = {}): StoryResult {
  const kubeProxy = options.kubeProxy ?? 'iptables';
  const seed = options.seed ?? 'collision-ports';
  const f = formation({ cni: 'kindnet', kubeProxy, seed, pods: ['diag', 'signalements-7d9f-a'] });
  const { c } = f;
  const story = new Story('collision-ports', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  const worker = c.nodeList().find((node) => node.name === 'formation-worker');
  if (worker === undefined) throw new Error('no formation-worker');
  const server = new ConfigServer(c.outside);
  const agent = new ConfigAgent(worker.ns, CONFIG_SERVER_ADDR);
  story.say(
    `kind cluster formation (kindnet, kube-proxy ${kubeProxy}): Service signalements, NodePort 30080 (the NodePort range is ${NODEPORT_RANGE.join('-')}), its pod on formation-worker2`,
  );
  story.say(
    'component 1, a node tuning applied for a busy proxy: ip_local_port_range widened to 1024-65535, over the NodePort range',
  );
  sh('docker exec formation-worker sysctl -w net.ipv4.ip_local_port_range="1024 65535"');
  story.say(
    `component 2, a node agent on formation-worker (a systemd service): one long-lived connection to its config server ${CONFIG_SERVER}:${CONFIG_PORT}, idle until a new version is pushed. connect() drew its source port from the widened range: 30080 (the kernel keys its draw with a boot secret; the replay binds the draw that collides)`,
  );
  agent.connect(30080);
  c.sim.run(1e9);
  const ss = sh(`docker exec formation-worker ss -tan dst ${CONFIG_SERVER}`).stdout;
  story.expectThat(
    "ss: the agent's connection uses the NodePort as its source port",
    `ESTAB ... 172.18.0.3:30080 ${CONFIG_SERVER}:${CONFIG_PORT}`,
    ss.split('\n')[1]?.replace(/ +/g, ' ') ?? '',
    new RegExp(
      `^ESTAB .*172\\.18\\.0\\.3:30080 +${CONFIG_SERVER.replaceAll('.', '\\.')}:${CONFIG_PORT}`,
      'm',
    ).test(ss),
  );
  server.push('v1');
  c.sim.run(1e9);
  story.expectEqual(
    'the agent applies v1: while conntrack tracks it, its replies never meet the DNAT',
    'applied config v1',
    agent.log.join('; '),
  );
  nodePortAnswers(story, sh, 'meanwhile');
  entryShown(story, sh, 'while the connection is young', true);

  story.say(
    'a day passes with no new version: the connection is idle, and kube-proxy set nf_conntrack_tcp_timeout_established to 86400 s',
  );
  sh('docker exec formation-worker sysctl net.netfilter.nf_conntrack_tcp_timeout_established');
  c.sim.run(DAY_NS + 3600e9);
  entryShown(story, sh, 'after 25 h idle', false);
  const idle = sh(`docker exec formation-worker ss -tan dst ${CONFIG_SERVER}`).stdout;
  story.expectThat(
    'ss: for the agent, nothing changed',
    'ESTAB ... 172.18.0.3:30080',
    idle.split('\n')[1]?.replace(/ +/g, ' ') ?? '',
    /^ESTAB .*172\.18\.0\.3:30080 /m.test(idle),
  );

  story.say(
    "v2 is pushed: conntrack knows no connection for its segment, picks it up mid-stream as a new one (nf_conntrack_tcp_loose), and kube-proxy's NodePort rule DNATs it to signalements, which answers with a reset",
  );
  const capture = sh.background(
    `docker exec formation-worker tcpdump -ni any 'tcp port ${CONFIG_PORT} or tcp port 8000'`,
  );
  server.push('v2');
  c.sim.run(1e9);
  const seen = capture.stop().stdout;
  story.expectThat(
    "tcpdump: the push goes to the pod (DNAT, masquerade), and the pod's reset comes back as if from 30080",
    `172.18.0.1.${CONFIG_PORT} > 172.18.0.3.30080 [P.], then ... > 10.244.2.7.8000, then 172.18.0.3.30080 > 172.18.0.1.${CONFIG_PORT} [R]`,
    seen
      .split('\n')
      .filter((line) => line.includes('Flags'))
      .map((line) => line.replace(/^\S+ /, '').replace(/, seq.*$/, ''))
      .join('\n'),
    new RegExp(
      `eth0 +In +IP 172\\.18\\.0\\.1\\.${CONFIG_PORT} > 172\\.18\\.0\\.3\\.30080: Flags \\[P\\.\\]`,
    ).test(seen) &&
      /> 10\.244\.2\.7\.8000: Flags \[P\.\]/.test(seen) &&
      new RegExp(`Out +IP 172\\.18\\.0\\.3\\.30080 > 172\\.18\\.0\\.1\\.${CONFIG_PORT}: Flags \\[R\\]`).test(
        seen,
      ),
  );
  story.show(`config server's log:\n${server.log.join('\n')}`);
  story.expectThat(
    'the config server lost its subscriber (reset)',
    'subscriber 172.18.0.3:30080 lost (ECONNRESET)',
    server.log.at(-1) ?? '',
    (server.log.at(-1) ?? '').startsWith('subscriber 172.18.0.3:30080 lost'),
  );
  story.expectEqual(
    "the agent never got v2 and does not know it (no error, still 'applied config v1')",
    'applied config v1',
    agent.log.join('; '),
  );
  sh(`docker exec formation-worker ss -tan dst ${CONFIG_SERVER}`);

  story.say(
    'the fix: keep the NodePort range out of the ports connect() draws, on every node: ip_local_reserved_ports (bind() and NAT do not read it); the agent restarted',
  );
  for (const node of c.nodeList())
    sh(`docker exec ${node.name} sysctl -w net.ipv4.ip_local_reserved_ports=${NODEPORT_RANGE.join('-')}`);
  agent.connect();
  c.sim.run(1e9);
  const fixed = sh(`docker exec formation-worker ss -tan dst ${CONFIG_SERVER}`).stdout;
  const port = Number(/172\.18\.0\.3:(\d+) /.exec(fixed)?.[1] ?? 0);
  story.expectThat(
    "ss: connect()'s own draw now lands outside 30000-32767",
    'ESTAB ... 172.18.0.3:P, P in 1024-29999 or 32768-65535',
    fixed.split('\n')[1]?.replace(/ +/g, ' ') ?? '',
    /^ESTAB /m.test(fixed) && port >= 1024 && (port < NODEPORT_RANGE[0] || port > NODEPORT_RANGE[1]),
  );
  story.say('another idle day, the entry expires again; then v3 is pushed');
  c.sim.run(DAY_NS + 3600e9);
  entryShown(story, sh, 'after another 25 h idle', false);
  server.push('v3');
  c.sim.run(1e9);
  story.show(`config agent's log:\n${agent.log.join('\n')}`);

  story.say(
    "what the reservation does not cover: a pod's own connections. diag (on formation-worker) calls the config server from its port 31000; the node masquerades it and NAT keeps the port (NAT does not read ip_local_reserved_ports; the pod's namespace has its own)",
  );
  sh('kubectl exec -i diag -- nc -N -p 31000 172.18.0.1 7000', 'hello\n');
  story.show(`config server's log:\n${server.log.join('\n')}`);
  story.expectThat(
    'the config server sees diag as 172.18.0.3:31000, inside the reserved range',
    'subscriber 172.18.0.3:31000 connected',
    server.log.find((line) => line.includes(':31000 ')) ?? server.log.at(-1) ?? '',
    server.log.includes('subscriber 172.18.0.3:31000 connected'),
  );
  story.expectEqual(
    'v3 arrives after the entry expired: picked up again, but no NodePort rule matches its port, so it reaches the agent',
    'applied config v1; applied config v3',
    agent.log.join('; '),
  );
  return story.result();
}

function nodePortAnswers(story: Story, sh: Shell, when: string): void {
  const result = sh.host('curl -s -m 2 http://172.18.0.3:30080/sante');
  story.expectEqual(
    `${when}: the NodePort answers on formation-worker`,
    'ok signalements-7d9f-a',
    result.exitCode === 0 ? result.stdout.trim() : `curl exit ${result.exitCode}`,
  );
}

/** `conntrack -L -p tcp --dport 7000` on formation-worker: the agent's entry, or none. */
function entryShown(story: Story, sh: Shell, when: string, shown: boolean): void {
  const out = sh(`docker exec formation-worker conntrack -L -p tcp --dport ${CONFIG_PORT}`).stdout;
  const line = out.split('\n').find((l) => l.includes(`dport=${CONFIG_PORT}`)) ?? '';
  story.expectThat(
    `${when}: conntrack -L ${shown ? 'shows' : 'no longer shows'} the agent's entry`,
    shown ? `ESTABLISHED src=172.18.0.3 dst=${CONFIG_SERVER} sport=30080 dport=${CONFIG_PORT}` : 'no entry',
    line === '' ? 'no entry' : line,
    shown
      ? /ESTABLISHED src=172\.18\.0\.3 dst=172\.18\.0\.1 sport=30080 dport=7000 /.test(line)
      : line === '',
  );
}
