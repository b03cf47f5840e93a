// The packetlab command line: `list`, `run NAME [--seed S] [--lang en|fr] [--json] [--pcap FILE] [--trace] [--mermaid]
// [--metrics FILE] [--debug]`, and `NAME` alone as a shorthand for `run`; the only place allowed Node built-ins
// (it writes the files the story layer hands back as bytes). The scenario table comes from bin/packetlab.mjs
// (scenarios/index.ts), so src/ never imports scenarios/. Colour and a progress line only on a TTY, never with
// NO_COLOR. `verify NAME` is verify/verify.ts. No `run FILE` or shell yet.

import { writeFileSync } from 'node:fs';
import { type RecordOptions, recordStories, type StoryRecording } from '../story/recorder.ts';
import { checkLines, LANGS, type Lang, type StoryResult, transcript } from '../story/story.ts';
import { VERIFY_USAGE, verify } from './verify/verify.ts';

/** A scenario the command can run (scenarios/index.ts's entries have this shape). */
export interface CommandScenario {
  readonly name: string;
  readonly summary: string;
  run(options: {
    readonly seed: string | undefined;
    readonly args: readonly string[];
    readonly lang: Lang;
  }): StoryResult | { readonly usage: string };
}

const USAGE =
  'usage: packetlab list | run NAME [ARGS...] [--seed S] [--lang en|fr] [--json] [--pcap FILE] [--trace] [--mermaid] [--metrics FILE] [--debug] | NAME | help';

function help(scenarios: readonly CommandScenario[]): string {
  return [
    USAGE,
    '',
    '  list          the scenarios, one a line',
    '  run NAME      tell the scenario, run its commands, print its checks; exit 0 only when all pass',
    '    --seed S    replay with another seed (same seed, same bytes)',
    '    --lang L    narrate in English (en, the default) or French (fr); checks stay in English',
    '    --json      one JSON object: {"scenario", "seed", "ok", "steps", "checks"}',
    '    --pcap FILE one capture (Linux cooked v2, as tcpdump -i any) of every interface of every namespace',
    '    --trace     add the path trace and nft monitor trace lines to the transcript',
    '    --mermaid   print a Mermaid sequenceDiagram of the packets between namespaces instead of the transcript',
    '    --metrics FILE  the counters over virtual time, Prometheus text format with node_exporter names',
    '    --debug     show the stack when a scenario throws',
    "  verify NAME   run the scenario's kernel plan on packetlab and in real namespaces (Linux, root); print the differences",
    `    ${VERIFY_USAGE.slice('usage: '.length)}`,
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
  readonly lang: Lang;
  readonly json: boolean;
  readonly pcap: string | undefined;
  readonly trace: boolean;
  readonly mermaid: boolean;
  readonly metrics: string | undefined;
  readonly debug: boolean;
}

/** Options that take a value, as `--opt VALUE` or `--opt=VALUE`. */
const VALUED = ['--seed', '--pcap', '--metrics', '--lang'] as const;

/** Parses `NAME [ARGS...] [options]`, or returns the one-line error. */
function parseRun(words: readonly string[]): RunRequest | { readonly error: string } {
  const positional: string[] = [];
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const valued = VALUED.find((option) => word === option || word.startsWith(`${option}=`));
    if (valued !== undefined) {
      const value = word === valued ? words[++i] : word.slice(valued.length + 1);
      if (value === undefined || value === '')
        return { error: `packetlab: option '${valued}' needs a value` };
      values.set(valued, value);
    } else if (word === '--json' || word === '--trace' || word === '--mermaid' || word === '--debug')
      flags.add(word);
    else if (word.startsWith('-')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  const [name, ...args] = positional;
  if (name === undefined)
    return { error: 'packetlab: run needs a scenario name (packetlab list shows them)' };
  const lang = values.get('--lang') ?? 'en';
  if (!LANGS.includes(lang as Lang))
    return { error: `packetlab: option '--lang' takes ${LANGS.join(' or ')}, not '${lang}'` };
  if (flags.has('--json') && flags.has('--mermaid'))
    return { error: "packetlab: options '--json' and '--mermaid' cannot be combined" };
  return {
    name,
    args,
    seed: values.get('--seed'),
    lang: lang as Lang,
    json: flags.has('--json'),
    pcap: values.get('--pcap'),
    trace: flags.has('--trace'),
    mermaid: flags.has('--mermaid'),
    metrics: values.get('--metrics'),
    debug: flags.has('--debug'),
  };
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything but the empty string (no-color.org). */
export function wantsColour(
  isTTY: boolean | undefined,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return isTTY === true && (env['NO_COLOR'] ?? '') === '' && env['TERM'] !== 'dumb';
}

const SGR = { reset: '\x1b[0m', bold: '\x1b[1m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m' };

/** The transcript and check lines, with narration dimmed, prompts bold, PASS green and FAIL red. */
export function paint(lines: readonly string[]): string[] {
  return lines.map((line) => {
    if (line.startsWith('PASS ')) return `${SGR.green}${line}${SGR.reset}`;
    if (line.startsWith('FAIL ')) return `${SGR.red}${line}${SGR.reset}`;
    if (line.startsWith('# ')) return `${SGR.dim}${line}${SGR.reset}`;
    if (line.startsWith('$ ') || /^[\w.-]+\$ /.test(line)) return `${SGR.bold}${line}${SGR.reset}`;
    return line;
  });
}

function runScenario(request: RunRequest, scenarios: readonly CommandScenario[]): number {
  const entry = scenarios.find((candidate) => candidate.name === request.name);
  if (entry === undefined) {
    process.stderr.write(`packetlab: unknown scenario '${request.name}' (packetlab list shows them)\n`);
    return 2;
  }
  const options: RecordOptions = {
    pcap: request.pcap !== undefined,
    trace: request.trace,
    mermaid: request.mermaid,
    metrics: request.metrics !== undefined,
  };
  const progress = process.stderr.isTTY === true;
  if (progress) process.stderr.write(`packetlab: running ${request.name}...`);
  let run: {
    readonly value: StoryResult | { readonly usage: string };
    readonly recordings: StoryRecording[];
  };
  try {
    run = recordStories(options, () =>
      entry.run({ seed: request.seed, args: request.args, lang: request.lang }),
    );
  } catch (error) {
    if (progress) process.stderr.write('\r\x1b[K');
    if (request.debug) process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    else
      process.stderr.write(
        `packetlab: scenario ${request.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    return 1;
  }
  if (progress) process.stderr.write('\r\x1b[K');
  const outcome = run.value;
  if ('usage' in outcome) {
    process.stderr.write(`${outcome.usage}\n`);
    return 2;
  }
  // One story per scenario run; a scenario that told several stories is recorded by its last.
  const recording = run.recordings.at(-1);
  const wanted = options.pcap || options.mermaid || options.metrics;
  if (wanted && recording === undefined) {
    process.stderr.write(
      `packetlab: scenario ${request.name} attached no simulation to its story: nothing to record\n`,
    );
    return 1;
  }
  if (request.pcap !== undefined && recording?.pcap !== undefined)
    writeFileSync(request.pcap, recording.pcap);
  if (request.metrics !== undefined && recording?.metrics !== undefined)
    writeFileSync(request.metrics, recording.metrics);
  if (request.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
  else if (request.mermaid) process.stdout.write(recording?.mermaid ?? '');
  else {
    const lines = [...transcript(outcome), '', ...checkLines(outcome)];
    const colour = wantsColour(process.stdout.isTTY, process.env);
    process.stdout.write(`${(colour ? paint(lines) : lines).join('\n')}\n`);
  }
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
    case 'verify':
      return verify(rest, scenarios);
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
