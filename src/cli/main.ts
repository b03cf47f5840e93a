// The packetlab command line: `packetlab tour` runs the default tour; the only place allowed Node built-ins.

import { lessonSession } from '../../scenarios/lesson-cases-1-2.ts';
import type { NodeWiring, PodWiring } from '../../scenarios/lesson-topology.ts';
import { trafficSession } from '../../scenarios/traffic.ts';
import { runTwoNamespaces } from '../../scenarios/two-namespaces.ts';

const HELP = `usage: packetlab <command>

commands:
  tour      build two namespaces joined by a veth pair, ping across, print every frame
  lesson    the lesson's cases 1 and 2 on kind-like nodes: packetlab lesson [bridge|routed] [vxlan|direct]
  traffic   an HTTP server, curl over a 10 ms link, and a connection storm that runs out of ports
  help      this text
`;

export async function main(args: string[]): Promise<number> {
  const command = args[0] ?? 'tour';
  switch (command) {
    case 'tour': {
      const { lines } = runTwoNamespaces();
      process.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    }
    case 'lesson': {
      const pods = args[1] ?? 'bridge';
      const nodes = args[2] ?? 'vxlan';
      if ((pods !== 'bridge' && pods !== 'routed') || (nodes !== 'vxlan' && nodes !== 'direct')) {
        process.stderr.write('usage: packetlab lesson [bridge|routed] [vxlan|direct]\n');
        return 2;
      }
      process.stdout.write(`${lessonSession(pods as PodWiring, nodes as NodeWiring).join('\n')}\n`);
      return 0;
    }
    case 'traffic':
      process.stdout.write(`${trafficSession().join('\n')}\n`);
      return 0;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return 0;
    default:
      process.stderr.write(`packetlab: unknown command '${command}'\n${HELP}`);
      return 2;
  }
}
