// The packetlab command line: `packetlab tour` runs the default tour; the only place allowed Node built-ins.

import { runTwoNamespaces } from '../../scenarios/two-namespaces.ts';

const HELP = `usage: packetlab <command>

commands:
  tour      build two namespaces joined by a veth pair, ping across, print every frame
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
