// The scenarios the `packetlab` command runs, by name: each tells its story and declares its checks. The command
// line (src/cli) receives this table from bin/packetlab.mjs, so src/ never imports scenarios/.

import type { NodeWiring, PodWiring } from '../src/k8s/lesson.ts';
import type { StoryResult } from '../src/story/story.ts';
import { conntrackFullStory } from './bug-conntrack-full.ts';
import { DNS_RACE_KERNELS, type DnsRaceKernel, dnsRaceStory } from './bug-dns-race.ts';
import { localRolloutStory, ROLLOUT_VARIANTS, type RolloutVariant } from './bug-local-rollout.ts';
import { mtuBlackholeStory } from './bug-mtu-blackhole.ts';
import { STALE_UDP_VARIANTS, type StaleUdpVariant, staleUdpStory } from './bug-stale-udp.ts';
import {
  FORMATION_CNIS,
  FORMATION_PROXIES,
  type FormationCni,
  type FormationProxy,
} from './formation-cluster.ts';
import { incidentClusterStory } from './incident-cluster.ts';
import { lessonStory } from './lesson-cases-1-2.ts';
import { LESSON_CASES, type LessonCase, lessonCaseStory } from './lesson-cluster.ts';
import { trafficStory } from './traffic.ts';
import { runTwoNamespaces } from './two-namespaces.ts';

export interface ScenarioRun {
  /** The seed given with --seed, or undefined for the scenario's own. */
  readonly seed: string | undefined;
  /** Words after the scenario's name. */
  readonly args: readonly string[];
}

export interface ScenarioEntry {
  readonly name: string;
  /** One line for `packetlab list`. */
  readonly summary: string;
  /** The story with its checks, or a usage error (exit 2). */
  run(options: ScenarioRun): StoryResult | { readonly usage: string };
}

export const SCENARIOS: readonly ScenarioEntry[] = [
  {
    name: 'tour',
    summary: 'two namespaces joined by a veth pair, a ping across, every frame decoded',
    run: ({ seed }) => runTwoNamespaces(seed ?? 'packetlab').story,
  },
  {
    name: 'lesson',
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
  },
  {
    name: 'lesson-case',
    summary:
      "the lesson's six cases on the kind cluster formation: lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]",
    run: ({ seed, args }) => {
      const [which = '1', cni = 'kindnet', kubeProxy = 'iptables'] = args;
      const n = Number(which);
      if (
        args.length > 3 ||
        !LESSON_CASES.includes(n as LessonCase) ||
        !FORMATION_CNIS.includes(cni as FormationCni) ||
        !FORMATION_PROXIES.includes(kubeProxy as FormationProxy)
      ) {
        return {
          usage: 'usage: packetlab run lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]',
        };
      }
      return lessonCaseStory(n as LessonCase, {
        cni: cni as FormationCni,
        kubeProxy: kubeProxy as FormationProxy,
        seed: seed ?? 'formation',
      });
    },
  },
  {
    name: 'incident',
    summary:
      'NodePorts broken by a DaemonSet that overwrites the packet mark, traced and fixed on every node: incident [kindnet|flannel-vxlan] [iptables|nftables]',
    run: ({ seed, args }) => {
      const [cni = 'kindnet', kubeProxy = 'iptables'] = args;
      if (
        args.length > 2 ||
        !FORMATION_CNIS.includes(cni as FormationCni) ||
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
    summary: 'an HTTP server, curl over a 10 ms link, and a connection storm that runs out of ports',
    run: ({ seed }) => trafficStory(seed ?? 'traffic'),
  },
  // ---- bug replays (the Kubernetes networking bugs users keep filing) ----
  {
    name: 'bug-stale-udp',
    summary:
      'kubernetes#59368: a UDP client keeps sending to a replaced pod through a stale conntrack entry: bug-stale-udp [no-cleanup|cleanup]',
    run: ({ seed, args }) => {
      const [variant = 'no-cleanup'] = args;
      if (args.length > 1 || !STALE_UDP_VARIANTS.includes(variant as StaleUdpVariant))
        return { usage: 'usage: packetlab run bug-stale-udp [no-cleanup|cleanup]' };
      return staleUdpStory(variant as StaleUdpVariant, seed ?? 'bug-stale-udp');
    },
  },
  {
    name: 'bug-dns-race',
    summary:
      'kubernetes#56903: 5 s DNS delays from the conntrack insert race of parallel A/AAAA queries, per kernel: bug-dns-race [4.19|5.4|6.18]',
    run: ({ seed, args }) => {
      const [kernel = '5.4'] = args;
      if (args.length > 1 || !DNS_RACE_KERNELS.includes(kernel as DnsRaceKernel))
        return { usage: 'usage: packetlab run bug-dns-race [4.19|5.4|6.18]' };
      return dnsRaceStory(kernel as DnsRaceKernel, seed ?? 'bug-dns-race');
    },
  },
  {
    name: 'bug-conntrack-full',
    summary:
      "kubernetes#71261: a node's conntrack table full of leaked connections drops new flows and the kubelet's probes; nf_conntrack_max fixes it",
    run: ({ seed, args }) =>
      args.length > 0
        ? { usage: 'usage: packetlab run bug-conntrack-full' }
        : conntrackFullStory(seed ?? 'bug-conntrack-full'),
  },
  {
    name: 'bug-mtu-blackhole',
    summary:
      'moby/libnetwork#2661: an underlay narrower than the node NICs swallows big VXLAN packets with no ICMP; large responses stall, ping -M do finds the limit',
    run: ({ seed, args }) =>
      args.length > 0
        ? { usage: 'usage: packetlab run bug-mtu-blackhole' }
        : mtuBlackholeStory(seed ?? 'bug-mtu-blackhole'),
  },
  {
    name: 'bug-local-rollout',
    summary:
      'kubernetes#85643: externalTrafficPolicy Local drops requests during a rolling update until the LB health check notices; a preStop sleep avoids it: bug-local-rollout [no-prestop|prestop]',
    run: ({ seed, args }) => {
      const [variant = 'no-prestop'] = args;
      if (args.length > 1 || !ROLLOUT_VARIANTS.includes(variant as RolloutVariant))
        return { usage: 'usage: packetlab run bug-local-rollout [no-prestop|prestop]' };
      return localRolloutStory(variant as RolloutVariant, seed ?? 'bug-local-rollout');
    },
  },
];
