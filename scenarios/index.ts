// The scenarios the `packetlab` command runs, by name: each prints its session as text lines. The command line
// (src/cli) receives this table from bin/packetlab.mjs, so src/ never imports scenarios/.

import { lessonSession } from './lesson-cases-1-2.ts';
import type { NodeWiring, PodWiring } from './lesson-topology.ts';
import { trafficSession } from './traffic.ts';
import { runTwoNamespaces } from './two-namespaces.ts';

export interface ScenarioEntry {
  readonly name: string;
  /** One line for `packetlab help`. */
  readonly summary: string;
  /** The lines to print, or a usage error (exit 2). */
  run(args: readonly string[]): { readonly lines: readonly string[] } | { readonly usage: string };
}

export const SCENARIOS: readonly ScenarioEntry[] = [
  {
    name: 'tour',
    summary: 'build two namespaces joined by a veth pair, ping across, print every frame',
    run: () => ({ lines: runTwoNamespaces().lines }),
  },
  {
    name: 'lesson',
    summary: "the lesson's cases 1 and 2 on kind-like nodes: packetlab lesson [bridge|routed] [vxlan|direct]",
    run: (args) => {
      const pods = args[0] ?? 'bridge';
      const nodes = args[1] ?? 'vxlan';
      if ((pods !== 'bridge' && pods !== 'routed') || (nodes !== 'vxlan' && nodes !== 'direct')) {
        return { usage: 'usage: packetlab lesson [bridge|routed] [vxlan|direct]' };
      }
      return { lines: lessonSession(pods as PodWiring, nodes as NodeWiring) };
    },
  },
  {
    name: 'traffic',
    summary: 'an HTTP server, curl over a 10 ms link, and a connection storm that runs out of ports',
    run: () => ({ lines: trafficSession() }),
  },
];
