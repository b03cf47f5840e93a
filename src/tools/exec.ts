// The command façade: `exec(namespace, "command line")` runs one command as the real tool would and returns its output.

import type { Namespace } from '../netns/namespace.ts';
import { bridge } from './bridge.ts';
import { conntrack, startConntrack } from './conntrack.ts';
import { curl } from './curl.ts';
import { dmesg } from './dmesg.ts';
import { ip } from './ip/ip.ts';
import { ipset } from './ipset/ipset.ts';
import {
  iptables,
  iptablesRestore,
  iptablesSave,
  iptablesTranslate,
  startXtablesMonitor,
  xtablesMonitor,
} from './iptables.ts';
import { nc, startNc } from './nc/nc.ts';
import { nft, startNft } from './nft.ts';
import { nstat } from './nstat.ts';
import { ping } from './ping.ts';
import { type CommandResult, fail } from './result.ts';
import { shellWords } from './shell-words.ts';
import { ss } from './ss.ts';
import { sysctl } from './sysctl.ts';
import { tc } from './tc.ts';
import { type Capture, startTcpdump, tcpdump } from './tcpdump.ts';

export type { CommandResult } from './result.ts';

/** A command gets its arguments and what it reads on standard input (empty when nothing is piped in). */
type Command = (ns: Namespace, args: string[], stdin: string) => CommandResult;

const COMMANDS: Record<string, Command> = {
  bridge,
  conntrack,
  curl,
  dmesg,
  ip,
  ipset,
  iptables,
  'iptables-restore': iptablesRestore,
  'iptables-save': iptablesSave,
  'iptables-translate': iptablesTranslate,
  nc,
  nft,
  nstat,
  ping,
  ss,
  sysctl,
  tc,
  tcpdump,
  'xtables-monitor': xtablesMonitor,
};

export interface ExecOptions {
  /** Standard input, as `cmd <<EOF` would give it. */
  readonly stdin?: string;
}

/**
 * Runs `line` in `ns`. Commands that take time (ping) advance the simulation's virtual clock.
 * `cmd < PATH` reads standard input from the simulation's file store (`sim.files`).
 */
export function exec(ns: Namespace, line: string, options: ExecOptions = {}): CommandResult {
  const words = shellWords(line);
  if (!words.ok) return fail(`sh: 1: Syntax error: ${words.message}\n`, 2);
  const redirect = words.words.indexOf('<');
  let stdin = options.stdin ?? '';
  let argv = words.words;
  if (redirect >= 0) {
    const path = argv[redirect + 1];
    if (path === undefined) return fail('sh: 1: Syntax error: newline unexpected\n', 2);
    const file = ns.sim.files.get(path);
    if (file === undefined) return fail(`sh: 1: cannot open ${path}: No such file\n`, 2);
    stdin = new TextDecoder().decode(file);
    argv = [...argv.slice(0, redirect), ...argv.slice(redirect + 2)];
  }
  return runArgv(ns, argv, stdin);
}

/** A program the façade knows. */
export function isCommand(name: string): boolean {
  return Object.hasOwn(COMMANDS, name);
}

/** Runs one argument vector (a program and its arguments, no shell syntax) in `ns`; `ip netns exec` uses it too. */
export function runArgv(ns: Namespace, argv: readonly string[], stdin: string): CommandResult {
  const [name, ...args] = argv;
  if (name === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  const command = COMMANDS[name];
  if (command === undefined) return fail(`sh: 1: ${name}: not found\n`, 127);
  return command(ns, args, stdin);
}

/**
 * Runs `line` in `ns` like `exec` and returns its standard output; a non-zero exit is an Error naming the
 * namespace, the line and what the command wrote on standard error (for setup steps that must succeed).
 */
export function execOrThrow(ns: Namespace, line: string, options: ExecOptions = {}): string {
  const result = exec(ns, line, options);
  if (result.exitCode !== 0) throw new Error(`${ns.name}: ${line}: ${result.stderr}`);
  return result.stdout;
}

/** Programs that keep running in the background while the simulation does (`cmd &` in a shell). */
const BACKGROUND: Record<string, (ns: Namespace, args: string[]) => Capture | CommandResult> = {
  tcpdump: startTcpdump,
  conntrack: startConntrack,
  nc: startNc,
  nft: startNft,
  'xtables-monitor': startXtablesMonitor,
};

/**
 * Starts a long-running command (tcpdump) in the background. It captures while later
 * commands run; `stop()` ends it and returns its output. A command that fails at start
 * (bad option, interface or filter) returns its error result instead.
 */
export function spawn(ns: Namespace, line: string): Capture | CommandResult {
  const words = shellWords(line);
  if (!words.ok) return fail(`sh: 1: Syntax error: ${words.message}\n`, 2);
  const [name, ...args] = words.words;
  if (name === undefined) return fail('', 0);
  const start = BACKGROUND[name];
  if (start === undefined) return fail(`packetlab: ${name} cannot run in the background\n`, 2);
  return start(ns, args);
}
