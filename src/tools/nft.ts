// `nft` as nftables 1.0.6's command line: `-f FILE` (from the simulation's files, `-f -` from stdin), commands as
// arguments (joined by spaces, as nft does), `-c` check only, `-a` handles, `-s` stateless listings, `-e` echo of
// what a commit added (`insert rule` echoes as `add rule`), `-I DIR` for `include`, `-j list ruleset` and
// `-j -f FILE`, `-v`; `nft monitor [trace]` runs in the background through spawn(). Accepted and ignored:
// -n -N -S -u -p -T -t. Not supported: other -j forms, -i, -y, -d.

import type { IncludeFiles } from '../netfilter/nft/define.ts';
import { formatRulesetEvent, RulesetMonitor, runNft, TraceMonitor } from '../netfilter/nft/index.ts';
import { JsonInputError, jsonToCommands } from '../netfilter/nft/json-parse.ts';
import { JsonUnsupported, printJsonObjects, printJsonRuleset } from '../netfilter/nft/json-print.ts';
import type { MonitorFilter } from '../netfilter/nft/monitor-ruleset.ts';
import { OBJECT_LISTS } from '../netfilter/nft/objects.ts';
import type { RulesetCommit } from '../netfilter/ruleset.ts';
import type { Namespace } from '../netns/namespace.ts';
import { type CommandResult, fail, unsupported } from './result.ts';

interface NftOptions {
  check: boolean;
  handles: boolean;
  stateless: boolean;
  json: boolean;
  echo: boolean;
  includeDirs: string[];
  file: string | undefined;
  version: boolean;
  words: string[];
}

const LONG_OPTIONS: Record<string, string> = {
  '--check': 'c',
  '--handle': 'a',
  '--file': 'f',
  '--version': 'v',
  '--numeric': 'n',
  '--reversedns': 'N',
  '--service': 'S',
  '--guid': 'u',
  '--numeric-protocol': 'p',
  '--numeric-time': 'T',
  '--echo': 'e',
  '--terse': 't',
  '--json': 'j',
  '--interactive': 'i',
  '--stateless': 's',
  '--numeric-priority': 'y',
  '--includepath': 'I',
  '--debug': 'd',
  '--help': 'h',
};

/** getopt with a leading `+`: options end at the first word that is not one. */
function parseOptions(args: string[]): NftOptions | CommandResult {
  const options: NftOptions = {
    check: false,
    handles: false,
    stateless: false,
    json: false,
    echo: false,
    includeDirs: [],
    file: undefined,
    version: false,
    words: [],
  };
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    let flags: string;
    let inlineValue: string | undefined;
    if (arg.startsWith('--')) {
      const [name, value] = arg.split('=', 2) as [string, string | undefined];
      const short = LONG_OPTIONS[name];
      if (short === undefined) return fail(`nft: unrecognized option '${arg}'\n`);
      flags = short;
      inlineValue = value;
    } else flags = arg.slice(1);
    for (let j = 0; j < flags.length; j++) {
      const flag = flags[j]!;
      switch (flag) {
        case 'c':
          options.check = true;
          break;
        case 'a':
          options.handles = true;
          break;
        case 's':
          options.stateless = true;
          break;
        case 'j':
          options.json = true;
          break;
        case 'v':
          options.version = true;
          break;
        case 'f': {
          const value = inlineValue ?? (j + 1 < flags.length ? flags.slice(j + 1) : args[++i]);
          if (value === undefined) return fail("nft: option requires an argument -- 'f'\n");
          options.file = value;
          j = flags.length;
          break;
        }
        case 'n':
        case 'N':
        case 'S':
        case 'u':
        case 'p':
        case 'T':
        case 't':
          break;
        case 'e':
          options.echo = true;
          break;
        case 'I': {
          const value = inlineValue ?? (j + 1 < flags.length ? flags.slice(j + 1) : args[++i]);
          if (value === undefined) return fail("nft: option requires an argument -- 'I'\n");
          options.includeDirs.push(value);
          j = flags.length;
          break;
        }
        case 'h':
          return { stdout: 'Usage: nft [ options ] [ cmds... ]\n', stderr: '', exitCode: 0 };
        case 'i':
        case 'y':
        case 'd':
          return unsupported('nft', `option -${flag}`);
        default:
          return fail(`nft: invalid option -- '${flag}'\n`);
      }
    }
  }
  options.words = args.slice(i);
  return options;
}

/** The added objects of a commit as `nft -e` echoes them; a commit that added nothing echoes nothing. */
function formatEcho(commit: RulesetCommit, handles: boolean): string {
  let out = '';
  for (const event of commit.events) {
    if (event.op !== 'add') continue;
    const line = formatRulesetEvent(event);
    out += handles && event.kind === 'rule' ? `${line.slice(0, -1)} # handle ${event.rule.handle}\n` : line;
  }
  return out === ''
    ? ''
    : `${out}# new generation ${commit.generation} by process ${commit.pid} (${commit.process})\n`;
}

/** libnftables' error for JSON input: no location, the message, a blank line. */
function jsonError(message: string): CommandResult {
  return fail(`internal:0:0-0: Error: ${message}\n\n`);
}

/** `nft -j -f FILE` (json-parse.ts): the listing's objects added in one transaction. */
function jsonInput(ns: Namespace, options: NftOptions, file: string): CommandResult {
  const bytes = file === '-' || file === '/dev/stdin' ? undefined : ns.sim.files.get(file);
  if (bytes === undefined)
    return fail(`internal:0:0-0: Error: Could not open file "${file}": No such file or directory\n\n\n`);
  const commands = jsonToCommands(new TextDecoder().decode(bytes));
  if (commands instanceof JsonInputError) {
    const failed = jsonError(commands.message);
    if (commands.index === undefined) return failed;
    // parser_json.c: json_parse_cmd names the array entry it gave up on.
    return fail(
      `${failed.stderr}internal:0:0-0: Error: Parsing command array at index ${commands.index} failed.\n\n`,
    );
  }
  const result = runNft(ns.netfilter, commands, { check: options.check, now: ns.sim.now });
  if (result.exitCode === 0) return result;
  const message = /Error: (.*)/.exec(result.stderr)?.[1] ?? result.stderr;
  return jsonError(message);
}

/** `nft -j list ruleset [FAMILY]` (json-print.ts) and `nft -j -f FILE`; other JSON commands are not modelled. */
function jsonCommand(ns: Namespace, options: NftOptions): CommandResult {
  if (options.file !== undefined) return jsonInput(ns, options, options.file);
  // nft joins its arguments into one command line.
  const words = options.words
    .join(' ')
    .split(/\s+/)
    .filter((word) => word !== '');
  const objects = jsonObjectList(ns, words);
  if (objects !== undefined) return objects;
  const listing =
    options.file === undefined && words[0] === 'list' && words[1] === 'ruleset' && words.length <= 3;
  if (!listing) return unsupported('nft', options.file === undefined ? `-j ${words.join(' ')}` : '-j -f');
  const printed = printJsonRuleset(ns.netfilter.store.ruleset, { family: words[2], now: ns.sim.now });
  if (printed instanceof JsonUnsupported) return unsupported('nft', `-j list ruleset with ${printed.what}`);
  return { stdout: printed, stderr: '', exitCode: 0 };
}

/** `nft -j list counters|quotas|limits [FAMILY | table FAMILY TABLE]` (json.c: do_list_obj_json); else undefined. */
function jsonObjectList(ns: Namespace, words: readonly string[]): CommandResult | undefined {
  const type = words[0] === 'list' ? OBJECT_LISTS[words[1] ?? ''] : undefined;
  if (type === undefined) return undefined;
  const rest = words.slice(2);
  const inTable = rest[0] === 'table';
  const family = inTable ? (rest.length === 3 ? rest[1] : 'ip') : rest[0];
  const table = inTable ? rest[rest.length - 1] : undefined;
  if (rest.length > (inTable ? 3 : 1)) return undefined;
  const tables = ns.netfilter.store.ruleset.tables.filter(
    (candidate) =>
      (family === undefined || candidate.family === family) &&
      (table === undefined || candidate.name === table),
  );
  if (table !== undefined && tables.length === 0) return undefined;
  return { stdout: printJsonObjects(tables, type), stderr: '', exitCode: 0 };
}

/** `include` reads the simulation's files. */
function includeFiles(ns: Namespace, dirs: readonly string[]): IncludeFiles {
  const files = ns.sim.files;
  return {
    read: (path) => {
      const bytes = files.get(path);
      return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
    },
    paths: () => files.keys(),
    dirs,
  };
}

const MONITOR_OBJECTS: Readonly<Record<string, MonitorFilter['kind']>> = {
  tables: 'table',
  chains: 'chain',
  sets: 'set',
  rules: 'rule',
  elements: 'element',
};

/** `monitor [new|destroy] [OBJECTS]`; undefined for a form packetlab does not model. */
function monitorFilter(words: readonly string[]): MonitorFilter | undefined {
  let rest = words;
  let op: MonitorFilter['op'];
  if (rest[0] === 'new' || rest[0] === 'destroy') {
    op = rest[0] === 'new' ? 'add' : 'delete';
    rest = rest.slice(1);
  }
  if (rest.length > 1) return undefined;
  if (rest.length === 0) return { op };
  const kind = MONITOR_OBJECTS[rest[0]!];
  return kind === undefined ? undefined : { op, kind };
}

function isMonitor(words: readonly string[]): boolean {
  return words[0] === 'monitor';
}

/** Runs `nft ARGS` in `ns`; `-f -` (or `/dev/stdin`) reads `stdin`. */
export function nft(ns: Namespace, args: string[], stdin = ''): CommandResult {
  const options = parseOptions(args);
  if (!('words' in options)) return options;
  if (!options.echo) return runOptions(ns, options, stdin);
  // `-e`: what the commit added, printed as `nft monitor` prints it (NLM_F_ECHO), handles under `-a`.
  let echoed = '';
  const watcher = (commit: RulesetCommit): void => {
    echoed += formatEcho(commit, options.handles);
  };
  ns.netfilter.store.watchers.add(watcher);
  try {
    const result = runOptions(ns, options, stdin);
    return result.exitCode === 0 ? { ...result, stdout: echoed + result.stdout } : result;
  } finally {
    ns.netfilter.store.watchers.delete(watcher);
  }
}

function runOptions(ns: Namespace, options: NftOptions, stdin: string): CommandResult {
  if (options.version) return { stdout: 'nftables v1.0.6 (Lester Gooch #5)\n', stderr: '', exitCode: 0 };
  if (options.json) return jsonCommand(ns, options);
  if (options.file === '-' || options.file === '/dev/stdin')
    return runNft(ns.netfilter, stdin, {
      file: '/dev/stdin',
      check: options.check,
      handles: options.handles,
      stateless: options.stateless,
      files: includeFiles(ns, options.includeDirs),
      now: ns.sim.now,
    });
  if (options.file !== undefined) {
    const bytes = ns.sim.files.get(options.file);
    if (bytes === undefined)
      return fail(
        `internal:0:0-0: Error: Could not open file "${options.file}": No such file or directory\n\n\n`,
      );
    const text = new TextDecoder().decode(bytes);
    return runNft(ns.netfilter, text, {
      file: options.file,
      check: options.check,
      handles: options.handles,
      stateless: options.stateless,
      files: includeFiles(ns, options.includeDirs),
      now: ns.sim.now,
    });
  }
  if (options.words.length === 0) return fail('nft: no command specified\n');
  if (isMonitor(options.words))
    return fail(
      'packetlab: nft monitor runs until stopped: start it with spawn(ns, "nft monitor [trace]")\n',
    );
  return runNft(ns.netfilter, options.words.join(' '), {
    check: options.check,
    handles: options.handles,
    stateless: options.stateless,
    files: includeFiles(ns, options.includeDirs),
    now: ns.sim.now,
  });
}

/**
 * `nft monitor trace &` (a TraceMonitor) or `nft monitor &` (a RulesetMonitor: every ruleset change), collecting
 * lines until stop(); other commands run at once.
 */
export function startNft(ns: Namespace, args: string[]): TraceMonitor | RulesetMonitor | CommandResult {
  const options = parseOptions(args);
  if (!('words' in options)) return options;
  if (options.file === undefined && isMonitor(options.words)) {
    if (options.words.length === 2 && options.words[1] === 'trace') return new TraceMonitor(ns.netfilter);
    const filter = monitorFilter(options.words.slice(1));
    if (filter === undefined) return unsupported('nft', options.words.join(' '));
    return new RulesetMonitor(ns.netfilter.store, filter);
  }
  return nft(ns, args);
}
