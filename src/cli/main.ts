// The packetlab command line: `list`, `run NAME [--seed S] [--json]`, and `NAME` alone as a shorthand for `run`;
// the only place allowed Node built-ins. The scenario table comes from bin/packetlab.mjs (scenarios/index.ts), so
// src/ never imports scenarios/. No --pcap, --trace, --mermaid, --metrics, shell or verify yet.

import { checkLines, type StoryResult, transcript } from '../story/story.ts';

/** A scenario the command can run (scenarios/index.ts's entries have this shape). */
export interface CommandScenario {
  readonly name: string;
  readonly summary: string;
  run(options: {
    readonly seed: string | undefined;
    readonly args: readonly string[];
  }): StoryResult | { readonly usage: string };
}

const USAGE = 'usage: packetlab list | run NAME [ARGS...] [--seed S] [--json] | NAME | help';

function help(scenarios: readonly CommandScenario[]): string {
  return [
    USAGE,
    '',
    '  list          the scenarios, one a line',
    '  run NAME      tell the scenario, run its commands, print its checks; exit 0 only when all pass',
    '    --seed S    replay with another seed (same seed, same bytes)',
    '    --json      one JSON object: {"scenario", "seed", "ok", "steps", "checks"}',
    `  NAME          the same as run NAME (${scenarios.map((entry) => entry.name).join(', ')})`,
    '',
  ].join('\n');
}

function list(scenarios: readonly CommandScenario[]): string {
  const width = Math.max(...scenarios.map((entry) => entry.name.length)) + 2;
  return scenarios.map((entry) => `${entry.name.padEnd(width)}${entry.summary}\n`).join('');
}

interface RunRequest {
  readonly name: string;
  readonly args: readonly string[];
  readonly seed: string | undefined;
  readonly json: boolean;
}

/** Parses `NAME [ARGS...] [--seed S] [--json]`, or returns the one-line error. */
function parseRun(words: readonly string[]): RunRequest | { readonly error: string } {
  const positional: string[] = [];
  let seed: string | undefined;
  let json = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--json') json = true;
    else if (word === '--seed' || word.startsWith('--seed=')) {
      const value = word === '--seed' ? words[++i] : word.slice('--seed='.length);
      if (value === undefined || value === '') return { error: "packetlab: option '--seed' needs a value" };
      seed = value;
    } else if (word.startsWith('-')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  const [name, ...args] = positional;
  if (name === undefined)
    return { error: 'packetlab: run needs a scenario name (packetlab list shows them)' };
  return { name, args, seed, json };
}

function runScenario(request: RunRequest, scenarios: readonly CommandScenario[]): number {
  const entry = scenarios.find((candidate) => candidate.name === request.name);
  if (entry === undefined) {
    process.stderr.write(`packetlab: unknown scenario '${request.name}' (packetlab list shows them)\n`);
    return 2;
  }
  const outcome = entry.run({ seed: request.seed, args: request.args });
  if ('usage' in outcome) {
    process.stderr.write(`${outcome.usage}\n`);
    return 2;
  }
  if (request.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
  else process.stdout.write(`${[...transcript(outcome), '', ...checkLines(outcome)].join('\n')}\n`);
  return outcome.ok ? 0 : 1;
}

export async function main(args: readonly string[], scenarios: readonly CommandScenario[]): Promise<number> {
  const words = args.length === 0 ? ['tour'] : args;
  const [command, ...rest] = words;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(help(scenarios));
      return 0;
    case 'list':
      process.stdout.write(list(scenarios));
      return 0;
    default: {
      const request = parseRun(command === 'run' ? rest : words);
      if ('error' in request) {
        process.stderr.write(`${request.error}\n${USAGE}\n`);
        return 2;
      }
      return runScenario(request, scenarios);
    }
  }
}
