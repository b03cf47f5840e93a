// The packetlab command line (docs/cli.md): `list`; `run NAME|FILE [ARGS...] [--seed S] [--json] [--pcap FILE]
// [--trace] [--mermaid] [--metrics FILE] [--debug]` (FILE: the user's .ts/.js module or .yaml/.json lab, see
// user-file.ts); `shell NAME [ARGS...] [--seed S] [--debug]` (shell.ts); `help`; and `NAME` alone as a shorthand for
// `run`; `verify NAME [ARGS...]` (verify/verify.ts); `sweep` (sweep/command.ts); `bench` (bench/command.ts); `--lang en|fr` narrates in French. One function per command in COMMANDS, so a new one is one entry. src/cli is the only place allowed Node
// built-ins (it reads the user's files, writes the bytes the story layer hands back). The scenario table comes from
// bin/packetlab.mjs (scenarios/index.ts), so src/ never imports scenarios/. Colour and a progress line only on a
// TTY, never with NO_COLOR or TERM=dumb; a failure is one line on stderr and a non-zero exit, its stack with --debug.

import { writeFileSync } from 'node:fs';
import { type RecordOptions, recordStories, type StoryRecording } from '../story/recorder.ts';
import type { ShellWorld } from '../story/shell-session.ts';
import { checkLines, LANGS, type Lang, type StoryResult, transcript } from '../story/story.ts';
import { BENCH_USAGE, benchCommand } from './bench/command.ts';
import { runShell } from './shell.ts';
import { nodeCommand, snapshotCommand, traceCommand } from './snapshot.ts';
import { SWEEP_USAGE, sweepCommand } from './sweep/command.ts';
import { isUserFile, loadUserScenario } from './user-file.ts';
import { VERIFY_USAGE, verify } from './verify/verify.ts';
import { splitWords } from './words.ts';

/** A scenario the command can run (scenarios/index.ts's entries have this shape). */
export interface CommandScenario {
  readonly name: string;
  readonly summary: string;
  run(options: {
    readonly seed: string | undefined;
    readonly args: readonly string[];
    readonly lang: Lang;
  }): StoryResult | { readonly usage: string };
  /** The scenario's machines behind a prompt, for `packetlab shell NAME ARGS`. */
  shell?(options: {
    readonly seed: string | undefined;
    readonly args: readonly string[];
  }): ShellWorld | { readonly usage: string };
}

const USAGE =
  'usage: packetlab list | run NAME|FILE [ARGS...] [--seed S] [--lang en|fr] [--json] [--pcap FILE] [--trace] [--mermaid] [--metrics FILE] [--debug] | shell NAME [ARGS...] [--seed S] | verify NAME [ARGS...] | snapshot | node FILE | trace FILE PACKET | sweep NAME|FILE --seeds A..B | bench SUITE | NAME | help';

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
    '  run FILE      your own scenario: a .ts/.js module whose default export returns a Story or its result(),',
    '                or a .yaml/.json lab (cluster, pods, services, traffic, checks); docs/cli.md has both formats',
    "  shell NAME    a prompt on the scenario's machines: type the lesson's commands (docker exec, kubectl, ...);",
    '                reads commands line by line when standard input is not a terminal; `help` there says more',
    "  verify NAME   run the scenario's kernel plan on packetlab and in real namespaces (Linux, root); print the differences",
    `    ${VERIFY_USAGE.slice('usage: '.length)}`,
    "  snapshot      print a shell script that collects a real node's network state into one file (run it as root)",
    '  node FILE     rebuild that node from the file; print what was built and every part that was not',
    "  trace FILE PACKET  rebuild it and send one packet ('tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0', or out):",
    '                nft monitor trace, the path trace with marks, the verdict and the counters that moved',
    '  sweep NAME --seeds A..B  the scenario once per seed on worker threads: one JSON line per seed, a summary;',
    `                ${SWEEP_USAGE.slice('usage: packetlab '.length)}`,
    '  bench SUITE   benchmark your ruleset and flows: conntrack, nat, rules --ruleset FILE --mix FILE, path --mix FILE',
    `                ${BENCH_USAGE.slice('usage: packetlab '.length)}`,
    `  NAME          the same as run NAME (${scenarios.map((entry) => entry.name).join(', ')})`,
    `  shells: ${scenarios
      .filter((entry) => entry.shell !== undefined)
      .map((entry) => entry.name)
      .join(', ')}`,
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
  const split = splitWords(words, VALUED, ['--json', '--trace', '--mermaid', '--debug'] as const);
  if ('error' in split) return split;
  const { positional, values, flags } = split;
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

interface ShellRequest {
  readonly name: string;
  readonly args: readonly string[];
  readonly seed: string | undefined;
  readonly debug: boolean;
}

/** Parses `NAME [ARGS...] [--seed S] [--debug]`, or returns the one-line error. */
function parseShell(words: readonly string[]): ShellRequest | { readonly error: string } {
  const positional: string[] = [];
  let seed: string | undefined;
  let debug = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--seed' || word.startsWith('--seed=')) {
      const value = word === '--seed' ? words[++i] : word.slice('--seed='.length);
      if (value === undefined || value === '') return { error: "packetlab: option '--seed' needs a value" };
      seed = value;
    } else if (word === '--debug') debug = true;
    else if (word.startsWith('-')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  const [name, ...args] = positional;
  if (name === undefined)
    return { error: 'packetlab: shell needs a scenario name (packetlab list shows them)' };
  return { name, args, seed, debug };
}

/** A thrown error as one line (`packetlab: WHAT: message`), or its stack with --debug. */
export function failure(what: string, error: unknown, debug: boolean): string {
  if (debug) return error instanceof Error ? (error.stack ?? String(error)) : String(error);
  return `packetlab: ${what}: ${error instanceof Error ? error.message : String(error)}`;
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
  // The progress line rewrites itself with escapes: a terminal's only, and not with NO_COLOR or TERM=dumb.
  const progress = wantsColour(process.stderr.isTTY, process.env);
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
    process.stderr.write(`${failure(`scenario ${request.name} failed`, error, request.debug)}\n`);
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

/** One command of the command line: its words after the command's name, and the scenario table; the exit status. */
type Command = (words: readonly string[], scenarios: readonly CommandScenario[]) => Promise<number>;

/** `help`. */
async function helpCommand(
  _words: readonly string[],
  scenarios: readonly CommandScenario[],
): Promise<number> {
  process.stdout.write(help(scenarios));
  return 0;
}

/** `list`. */
async function listCommand(
  _words: readonly string[],
  scenarios: readonly CommandScenario[],
): Promise<number> {
  process.stdout.write(list(scenarios));
  return 0;
}

/** `run NAME|FILE [ARGS...] [options]`. */
async function runCommand(words: readonly string[], scenarios: readonly CommandScenario[]): Promise<number> {
  const request = parseRun(words);
  if ('error' in request) {
    process.stderr.write(`${request.error}\n${USAGE}\n`);
    return 2;
  }
  if (!isUserFile(request.name)) return runScenario(request, scenarios);
  const loaded = await loadUserScenario(request.name);
  if ('error' in loaded) {
    process.stderr.write(`${request.debug && loaded.stack !== undefined ? loaded.stack : loaded.error}\n`);
    return loaded.exitCode;
  }
  return runScenario(request, [loaded.scenario]);
}

/** `shell NAME [ARGS...] [--seed S] [--debug]`. */
async function shellCommand(
  words: readonly string[],
  scenarios: readonly CommandScenario[],
): Promise<number> {
  const request = parseShell(words);
  if ('error' in request) {
    process.stderr.write(`${request.error}\n${USAGE}\n`);
    return 2;
  }
  const entry = scenarios.find((candidate) => candidate.name === request.name);
  if (entry === undefined) {
    process.stderr.write(`packetlab: unknown scenario '${request.name}' (packetlab list shows them)\n`);
    return 2;
  }
  if (entry.shell === undefined) {
    const open = scenarios
      .filter((candidate) => candidate.shell !== undefined)
      .map((candidate) => candidate.name);
    process.stderr.write(
      `packetlab: scenario ${entry.name} has no shell (these have one: ${open.join(', ')})\n`,
    );
    return 2;
  }
  let world: ShellWorld | { readonly usage: string };
  try {
    world = entry.shell({ seed: request.seed, args: request.args });
  } catch (error) {
    process.stderr.write(`${failure(`scenario ${entry.name} failed`, error, request.debug)}\n`);
    return 1;
  }
  if ('usage' in world) {
    process.stderr.write(`${world.usage}\n`);
    return 2;
  }
  try {
    return await runShell(world, {
      input: process.stdin,
      output: process.stdout,
      colour: wantsColour(process.stdout.isTTY, process.env),
    });
  } catch (error) {
    process.stderr.write(`${failure(`shell ${entry.name} failed`, error, request.debug)}\n`);
    return 1;
  }
}

/** The commands by name; a first word that is none of them is a scenario (or file) name for `run`. */
const COMMANDS: Readonly<Record<string, Command>> = {
  help: helpCommand,
  '--help': helpCommand,
  '-h': helpCommand,
  list: listCommand,
  run: runCommand,
  shell: shellCommand,
  verify: (words, scenarios) => verify(words, scenarios),
  snapshot: (words) => snapshotCommand(words),
  node: (words) => nodeCommand(words),
  trace: (words) => traceCommand(words),
  sweep: (words, scenarios) => sweepCommand(words, scenarios),
  bench: (words) => benchCommand(words),
};

export async function main(args: readonly string[], scenarios: readonly CommandScenario[]): Promise<number> {
  const words = args.length === 0 ? ['tour'] : args;
  const [name, ...rest] = words;
  const command = Object.hasOwn(COMMANDS, name!) ? COMMANDS[name!] : undefined;
  return command === undefined ? runCommand(words, scenarios) : command(rest, scenarios);
}
