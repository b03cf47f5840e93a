// The scenarios the `packetlab` command runs, by name: each tells its story and declares its checks. The command
// line (src/cli) receives this table from bin/packetlab.mjs, so src/ never imports scenarios/.

import type { KernelPlanResult } from '../src/harness/kernel-plan.ts';
import type { NodeWiring, PodWiring } from '../src/k8s/lesson.ts';
import type { Lang, StoryResult } from '../src/story/story.ts';
import { conntrackFullStory } from './bug-conntrack-full.ts';
import { DNS_RACE_KERNELS, dnsRaceStory } from './bug-dns-race.ts';
import { localRolloutStory, ROLLOUT_VARIANTS } from './bug-local-rollout.ts';
import { mtuBlackholeStory } from './bug-mtu-blackhole.ts';
import { STALE_UDP_VARIANTS, staleUdpStory } from './bug-stale-udp.ts';
import { collisionNftStory, collisionPortsStory, collisionTableStory } from './collisions.ts';
import { EXERCISES, type Exercise, exerciseStory } from './exercises.ts';
import {
  FORMATION_CNIS,
  FORMATION_PROXIES,
  type FormationCni,
  type FormationProxy,
} from './formation-cluster.ts';
import { incidentClusterStory } from './incident-cluster.ts';
import { lessonCasePlan, lessonPlan, vethPlan } from './kernel-plans.ts';
import { lessonStory } from './lesson-cases-1-2.ts';
import { ENTRIES, type Entry, LESSON_CASES, type LessonCase, lessonCaseStory } from './lesson-cluster.ts';
import { pitfallLocalStory } from './pitfall-local.ts';
import { pitfallSourceStory } from './pitfall-source.ts';
import { pitfallMtuStory, pitfallPingStory, pitfallPortsStory } from './pitfalls.ts';
import {
  FILTER_TOOLS,
  type FilterTool,
  SECURITY_POINTS,
  type SecurityPoint,
  securityStory,
} from './security.ts';
import {
  incidentShell,
  lessonCaseShell,
  lessonShell,
  type ShellOpened,
  tourShell,
  trafficShell,
  vethShell,
} from './shell-worlds.ts';
import { tourStory } from './tour.ts';
import { trafficStory } from './traffic.ts';
import { runTwoNamespaces } from './two-namespaces.ts';

export interface ScenarioRun {
  /** The seed given with --seed, or undefined for the scenario's own. */
  readonly seed: string | undefined;
  /** Words after the scenario's name. */
  readonly args: readonly string[];
  /** The narration's language (--lang); English when left out. Checks stay in English. */
  readonly lang?: Lang;
}

export interface ScenarioEntry {
  readonly name: string;
  /** One line for `packetlab list`. */
  readonly summary: string;
  /** The story with its checks, or a usage error (exit 2). */
  run(options: ScenarioRun): StoryResult | { readonly usage: string };
  /** The harness scenario of its world for `packetlab verify` (scenarios/kernel-plans.ts), or a usage error. */
  plan?(options: ScenarioRun): KernelPlanResult;
  /** The scenario's machines behind a prompt (`packetlab shell NAME ARGS`), or a usage error (exit 2). */
  shell?(options: ScenarioRun): ShellOpened;
}

export const SCENARIOS: readonly ScenarioEntry[] = [
  {
    name: 'tour',
    summary:
      "the guided tour (npm start): the lesson's six cases in order on the kind cluster formation (--lang fr: in French)",
    run: ({ seed, args, lang }) => {
      if (args.length > 0) return { usage: 'usage: packetlab run tour [--lang en|fr]' };
      return tourStory({ seed: seed ?? 'formation', lang: lang ?? 'en' });
    },
    shell: tourShell,
  },
  {
    name: 'veth',
    shell: vethShell,
    summary: 'two namespaces joined by a veth pair, a ping across, every frame decoded',
    run: ({ seed }) => runTwoNamespaces(seed ?? 'packetlab').story,
    plan: ({ args }) => (args.length > 0 ? { usage: 'usage: packetlab verify veth' } : vethPlan()),
  },
  {
    name: 'lesson',
    shell: lessonShell,
    summary: "the lesson's cases 1 and 2 on kind-like nodes: lesson [bridge|routed] [vxlan|direct]",
    run: ({ seed, args }) => {
      const pods = args[0] ?? 'bridge';
      const nodes = args[1] ?? 'vxlan';
      if (
        args.length > 2 ||
        (pods !== 'bridge' && pods !== 'routed') ||
        (nodes !== 'vxlan' && nodes !== 'direct')
      ) {
        return { usage: 'usage: packetlab run lesson [bridge|routed] [vxlan|direct]' };
      }
      return lessonStory(pods as PodWiring, nodes as NodeWiring, seed ?? 'lesson');
    },
    plan: ({ args }) => {
      const pods = args[0] ?? 'bridge';
      const nodes = args[1] ?? 'vxlan';
      if (
        args.length > 2 ||
        (pods !== 'bridge' && pods !== 'routed') ||
        (nodes !== 'vxlan' && nodes !== 'direct')
      )
        return { usage: 'usage: packetlab verify lesson [bridge|routed] [vxlan|direct]' };
      return lessonPlan(pods, nodes);
    },
  },
  {
    name: 'lesson-case',
    shell: lessonCaseShell,
    summary:
      "the lesson's six cases on the kind cluster formation: lesson-case [1-6] [flannel-vxlan|flannel-host-gw|kindnet] [iptables|nftables] [nodeport|cluster|local|proxy]",
    run: ({ seed, args, lang }) => {
      const [which = '1', cni = 'kindnet', kubeProxy = 'iptables', entry] = args;
      const n = Number(which);
      if (
        args.length > 4 ||
        !LESSON_CASES.includes(n as LessonCase) ||
        !FORMATION_CNIS.includes(cni as FormationCni) ||
        !FORMATION_PROXIES.includes(kubeProxy as FormationProxy) ||
        (entry !== undefined && (n !== 6 || !ENTRIES.includes(entry as Entry)))
      ) {
        return {
          usage:
            'usage: packetlab run lesson-case [1-6] [flannel-vxlan|flannel-host-gw|kindnet] [iptables|nftables] [nodeport|cluster|local|proxy (case 6)]',
        };
      }
      return lessonCaseStory(n as LessonCase, {
        cni: cni as FormationCni,
        kubeProxy: kubeProxy as FormationProxy,
        seed: seed ?? 'formation',
        lang: lang ?? 'en',
        ...(entry === undefined ? {} : { entry: entry as Entry }),
      });
    },
    plan: ({ args }) => {
      const [which = '1', cni = 'kindnet', kubeProxy = 'iptables'] = args;
      if (
        args.length > 3 ||
        !LESSON_CASES.includes(Number(which) as LessonCase) ||
        !FORMATION_CNIS.includes(cni as FormationCni) ||
        !FORMATION_PROXIES.includes(kubeProxy as FormationProxy)
      )
        return {
          usage: 'usage: packetlab verify lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]',
        };
      return lessonCasePlan(Number(which), cni as FormationCni, kubeProxy as FormationProxy);
    },
  },
  {
    name: 'incident',
    shell: incidentShell,
    summary:
      'NodePorts broken by a DaemonSet that overwrites the packet mark, traced and fixed on every node: incident [kindnet|flannel-vxlan] [iptables|nftables]',
    run: ({ seed, args }) => {
      const [cni = 'kindnet', kubeProxy = 'iptables'] = args;
      if (
        args.length > 2 ||
        (cni !== 'kindnet' && cni !== 'flannel-vxlan') ||
        !FORMATION_PROXIES.includes(kubeProxy as FormationProxy)
      ) {
        return { usage: 'usage: packetlab run incident [kindnet|flannel-vxlan] [iptables|nftables]' };
      }
      return incidentClusterStory({
        cni: cni as FormationCni,
        kubeProxy: kubeProxy as FormationProxy,
        seed: seed ?? 'incident',
      });
    },
  },
  {
    name: 'traffic',
    shell: trafficShell,
    summary: 'an HTTP server, curl over a 10 ms link, and a connection storm that runs out of ports',
    run: ({ seed }) => trafficStory(seed ?? 'traffic'),
  },
  {
    name: 'exercise',
    summary:
      "the lesson's four exercises answered by running them: the path of GET /sante, the lost source, where to capture, Local's node without a pod: exercise [1-4]",
    run: ({ seed, args }) => {
      const n = Number(args[0] ?? '1');
      if (args.length > 1 || !EXERCISES.includes(n as Exercise))
        return { usage: 'usage: packetlab run exercise [1-4]' };
      return exerciseStory(n as Exercise, seed ?? 'exercises');
    },
  },
  {
    name: 'security',
    summary:
      "the lesson's security points on the cluster: payloads on the wire, NodePorts everywhere, shared egress, policy before or after DNAT: security [1-4] [iptables|nft]",
    run: ({ seed, args }) => {
      const n = Number(args[0] ?? '1');
      const tool = args[1] ?? 'iptables';
      if (
        args.length > 2 ||
        !SECURITY_POINTS.includes(n as SecurityPoint) ||
        !FILTER_TOOLS.includes(tool as FilterTool) ||
        (args.length === 2 && n !== 2)
      )
        return { usage: 'usage: packetlab run security [1-4] [iptables|nft] (the filter tool, for 2)' };
      return securityStory(n as SecurityPoint, seed ?? 'security', tool as FilterTool);
    },
  },
  ...(
    [
      [
        'collision-table',
        "two components, one routing table number: a VPN agent's flush erases the egress route",
        collisionTableStory,
      ],
      [
        'collision-nft',
        "two components, one nft table name: a firewall reload flushes the blocklist's rule away",
        collisionNftStory,
      ],
      [
        'collision-ports',
        "a node agent's source port is a NodePort: once its conntrack entry expires, the NodePort takes its traffic",
        collisionPortsStory,
      ],
    ] as const
  ).map(
    ([name, summary, story]): ScenarioEntry => ({
      name,
      summary: `${summary}: ${name} [iptables|nftables]`,
      run: ({ seed, args }) => {
        const [kubeProxy = 'iptables'] = args;
        if (args.length > 1 || !FORMATION_PROXIES.includes(kubeProxy as FormationProxy))
          return { usage: `usage: packetlab run ${name} [iptables|nftables]` };
        return story({ kubeProxy: kubeProxy as FormationProxy, ...(seed === undefined ? {} : { seed }) });
      },
    }),
  ),
  // The load-balancer pitfalls (3 and 4).
  {
    name: 'pitfall-source',
    summary:
      'the pod sees a node address: a per-client rate limit defeated by eTP Cluster, then Local, PROXY v2 and X-Forwarded-For: pitfall-source [kindnet|flannel-vxlan|flannel-host-gw] [iptables|nftables]',
    run: ({ seed, args }) => formationRun('pitfall-source', seed, args, pitfallSourceStory),
  },
  {
    name: 'pitfall-local',
    summary:
      'Local and a node with no pod: one request in three lost, then the healthCheckNodePort and a DaemonSet: pitfall-local [kindnet|flannel-vxlan|flannel-host-gw] [iptables|nftables]',
    run: ({ seed, args }) => formationRun('pitfall-local', seed, args, pitfallLocalStory),
  },
  // The tunnel MTU, the Service ping and egress port exhaustion (pitfalls 1, 2 and 5).
  oneOf(
    'pitfall-ping',
    'a ping to the Service address gets no answer, curl on its port does (only the declared port is translated)',
    FORMATION_PROXIES,
    pitfallPingStory,
  ),
  noArgs(
    'pitfall-mtu',
    'pods at MTU 1500 over a 1450 VXLAN tunnel with ICMP dropped: /sante passes, /rapport stalls, ping -M do finds 1422, MTU 1450 fixes it',
    pitfallMtuStory,
  ),
  noArgs(
    'pitfall-ports',
    'a busy pod exhausts the NAT ports of its node address toward one API (insert_failed), then keep-alive, more egress addresses, an egress gateway',
    pitfallPortsStory,
  ),
  // ---- bug replays (the Kubernetes networking bugs users keep filing) ----
  oneOf(
    'bug-stale-udp',
    'kubernetes#59368: a UDP client keeps sending to a replaced pod through a stale conntrack entry',
    STALE_UDP_VARIANTS,
    staleUdpStory,
  ),
  oneOf(
    'bug-dns-race',
    'kubernetes#56903: 5 s DNS delays from the conntrack insert race of parallel A/AAAA queries, per kernel',
    DNS_RACE_KERNELS,
    dnsRaceStory,
    '5.4',
  ),
  noArgs(
    'bug-conntrack-full',
    "kubernetes#71261: a node's conntrack table full of leaked connections drops new flows and the kubelet's probes; nf_conntrack_max fixes it",
    conntrackFullStory,
  ),
  noArgs(
    'bug-mtu-blackhole',
    'moby/libnetwork#2661: an underlay narrower than the node NICs swallows big VXLAN packets with no ICMP; large responses stall, ping -M do finds the limit',
    mtuBlackholeStory,
  ),
  oneOf(
    'bug-local-rollout',
    'kubernetes#85643: externalTrafficPolicy Local drops requests during a rolling update until the LB health check notices; a preStop sleep avoids it',
    ROLLOUT_VARIANTS,
    localRolloutStory,
  ),
];

/** A story on the cluster formation taking `[CNI] [MODE]`, kindnet and iptables by default. */
function formationRun(
  name: string,
  seed: string | undefined,
  args: readonly string[],
  story: (options: { cni: FormationCni; kubeProxy: FormationProxy; seed: string }) => StoryResult,
): StoryResult | { readonly usage: string } {
  const [cni = 'kindnet', kubeProxy = 'iptables'] = args;
  if (
    args.length > 2 ||
    !FORMATION_CNIS.includes(cni as FormationCni) ||
    !FORMATION_PROXIES.includes(kubeProxy as FormationProxy)
  )
    return {
      usage: `usage: packetlab run ${name} [kindnet|flannel-vxlan|flannel-host-gw] [iptables|nftables]`,
    };
  return story({ cni: cni as FormationCni, kubeProxy: kubeProxy as FormationProxy, seed: seed ?? name });
}

/** A scenario that takes no words after its name. */
function noArgs(name: string, summary: string, story: (seed: string) => StoryResult): ScenarioEntry {
  return {
    name,
    summary,
    run: ({ seed, args }) =>
      args.length > 0 ? { usage: `usage: packetlab run ${name}` } : story(seed ?? name),
  };
}

/** A scenario that takes one word out of `choices` (`fallback`, the first by default), named in its summary and usage. */
function oneOf<C extends string>(
  name: string,
  summary: string,
  choices: readonly C[],
  story: (choice: C, seed: string) => StoryResult,
  fallback: C = choices[0]!,
): ScenarioEntry {
  const usage = `${name} [${choices.join('|')}]`;
  return {
    name,
    summary: `${summary}: ${usage}`,
    run: ({ seed, args }) => {
      const [choice = fallback] = args;
      if (args.length > 1 || !(choices as readonly string[]).includes(choice))
        return { usage: `usage: packetlab run ${usage}` };
      return story(choice as C, seed ?? name);
    },
  };
}
