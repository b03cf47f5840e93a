// The packetlab command line: `packetlab NAME` runs a scenario from the table it is given; the only place allowed
// Node built-ins. The table comes from bin/packetlab.mjs (scenarios/index.ts), so src/ never imports scenarios/.

/** A scenario the command can run (scenarios/index.ts's entries have this shape). */
export interface CommandScenario {
  readonly name: string;
  readonly summary: string;
  run(args: readonly string[]): { readonly lines: readonly string[] } | { readonly usage: string };
}

function help(scenarios: readonly CommandScenario[]): string {
  const width = Math.max(8, ...scenarios.map((entry) => entry.name.length + 2));
  const lines = scenarios.map((entry) => `  ${entry.name.padEnd(width)}${entry.summary}`);
  return `usage: packetlab <command>\n\ncommands:\n${lines.join('\n')}\n  ${'help'.padEnd(width)}this text\n`;
}

export async function main(args: readonly string[], scenarios: readonly CommandScenario[]): Promise<number> {
  const command = args[0] ?? 'tour';
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(help(scenarios));
    return 0;
  }
  const entry = scenarios.find((candidate) => candidate.name === command);
  if (entry === undefined) {
    process.stderr.write(`packetlab: unknown command '${command}'\n${help(scenarios)}`);
    return 2;
  }
  const outcome = entry.run(args.slice(1));
  if ('usage' in outcome) {
    process.stderr.write(`${outcome.usage}\n`);
    return 2;
  }
  process.stdout.write(`${outcome.lines.join('\n')}\n`);
  return 0;
}
