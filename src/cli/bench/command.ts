// `packetlab bench conntrack|nat|rules|path [--flows N] [--ruleset FILE[,FILE...]] [--mix FILE] [--json FILE]
// [--svg FILE] [--quick]` (docs/cli.md): builds the user suite (user-suites.ts) from the files given, runs it with
// runSuite, prints formatSuite's table, and writes the result as JSON and as an SVG plot. Usage errors (a bad option,
// a missing or bad file, a bad mix line) exit 2 with one line naming what is wrong; a suite that fails to run, 1.

import { readFileSync, writeFileSync } from 'node:fs';
import { splitWords } from '../words.ts';
import { type MixFlow, parseMix } from './mix.ts';
import { formatSuite } from './report.ts';
import { runSuite, type Suite } from './suite.ts';
import { suitePlot } from './svg.ts';
import { conntrackSuite, natSuite, pathSuite, rulesSuite, type UserRuleset } from './user-suites.ts';
import { rulesetFormat } from './world.ts';

export const BENCH_USAGE =
  'usage: packetlab bench conntrack|nat|rules|path [--flows N] [--ruleset FILE[,FILE...]] [--mix FILE] [--json FILE] [--svg FILE] [--quick]';

const SUITES = ['conntrack', 'nat', 'rules', 'path'] as const;
type SuiteName = (typeof SUITES)[number];

const VALUED = ['--flows', '--ruleset', '--mix', '--json', '--svg'] as const;
type Valued = (typeof VALUED)[number];

/** Options each suite reads (the others are refused, so a typo does not pass silently). */
const ACCEPTS: Readonly<Record<SuiteName, readonly Valued[]>> = {
  conntrack: ['--flows', '--json', '--svg'],
  nat: ['--json', '--svg'],
  rules: ['--ruleset', '--mix', '--json', '--svg'],
  path: ['--flows', '--mix', '--json', '--svg'],
};

const DEFAULT_FLOWS: Readonly<Record<'conntrack' | 'path', number>> = { conntrack: 100_000, path: 10_000 };
const MAX_FLOWS = 10_000_000;

type Failure = { readonly error: string };

function read(file: string): string | Failure {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'No such file or directory' : code === 'EISDIR' ? 'Is a directory' : String(error);
    return { error: `packetlab: cannot read ${file}: ${why}` };
  }
}

function loadRuleset(file: string): UserRuleset | Failure {
  const text = read(file);
  if (typeof text !== 'string') return text;
  const format = rulesetFormat(text);
  if (format === undefined)
    return {
      error: `packetlab: ${file}: neither iptables-save output (*table ... COMMIT) nor nft list ruleset output`,
    };
  return { file, text, format };
}

function loadMix(file: string): readonly MixFlow[] | Failure {
  const text = read(file);
  if (typeof text !== 'string') return text;
  return parseMix(file, text);
}

interface BenchRequest {
  readonly suite: Suite;
  readonly quick: boolean;
  readonly json: string | undefined;
  readonly svg: string | undefined;
}

function parseBench(words: readonly string[]): BenchRequest | Failure {
  const split = splitWords(words, VALUED, ['--quick'] as const);
  if ('error' in split) return split;
  const { positional, values } = split;
  const quick = split.flags.has('--quick');
  const [name, ...extra] = positional;
  if (name === undefined) return { error: `packetlab: bench needs a suite: ${SUITES.join(', ')}` };
  if (!SUITES.includes(name as SuiteName))
    return { error: `packetlab: bench has no suite '${name}' (${SUITES.join(', ')})` };
  if (extra.length > 0) return { error: `packetlab: bench ${name} takes no argument '${extra[0]}'` };
  const suiteName = name as SuiteName;
  for (const option of values.keys())
    if (!ACCEPTS[suiteName].includes(option))
      return { error: `packetlab: bench ${suiteName} takes no option '${option}'` };
  let flows = suiteName === 'conntrack' || suiteName === 'path' ? DEFAULT_FLOWS[suiteName] : 0;
  const flowsText = values.get('--flows');
  if (flowsText !== undefined) {
    if (!/^\d+$/.test(flowsText) || Number(flowsText) < 1 || Number(flowsText) > MAX_FLOWS)
      return {
        error: `packetlab: option '--flows' takes an integer from 1 to ${MAX_FLOWS}, not '${flowsText}'`,
      };
    flows = Number(flowsText);
  }
  const rulesets: UserRuleset[] = [];
  for (const file of values.get('--ruleset')?.split(',') ?? []) {
    const ruleset = loadRuleset(file);
    if ('error' in ruleset) return ruleset;
    rulesets.push(ruleset);
  }
  const mixFile = values.get('--mix');
  let mix: readonly MixFlow[] | undefined;
  if (mixFile !== undefined) {
    const loaded = loadMix(mixFile);
    if ('error' in loaded) return loaded;
    mix = loaded;
  }
  let suite: Suite;
  switch (suiteName) {
    case 'conntrack':
      suite = conntrackSuite(flows);
      break;
    case 'nat':
      suite = natSuite();
      break;
    case 'rules':
      if (rulesets.length === 0) return { error: "packetlab: bench rules needs '--ruleset FILE'" };
      if (mix === undefined) return { error: "packetlab: bench rules needs '--mix FILE'" };
      suite = rulesSuite(rulesets, mix);
      break;
    case 'path':
      if (mix === undefined) return { error: "packetlab: bench path needs '--mix FILE'" };
      suite = pathSuite(mix, flows);
      break;
  }
  return { suite, quick, json: values.get('--json'), svg: values.get('--svg') };
}

/** `packetlab bench SUITE [options]`. */
export async function benchCommand(words: readonly string[]): Promise<number> {
  const request = parseBench(words);
  if ('error' in request) {
    process.stderr.write(`${request.error}\n${BENCH_USAGE}\n`);
    return 2;
  }
  const progress = process.stderr.isTTY
    ? (line: string) => process.stderr.write(`\r\x1b[K${line}`)
    : undefined;
  let result: Awaited<ReturnType<typeof runSuite>>;
  try {
    result = await runSuite(request.suite, { quick: request.quick, ...(progress ? { progress } : {}) });
  } catch (error) {
    if (progress) process.stderr.write('\r\x1b[K');
    process.stderr.write(
      `packetlab: bench ${request.suite.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  if (progress) process.stderr.write('\r\x1b[K');
  process.stdout.write(`${formatSuite(result)}\n`);
  if (request.json !== undefined) writeFileSync(request.json, `${JSON.stringify(result, null, 2)}\n`);
  if (request.svg !== undefined) writeFileSync(request.svg, suitePlot(result));
  return 0;
}
