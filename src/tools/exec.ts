// The command façade: `exec(namespace, "command line")` runs one command as the real tool would and returns its output.

import type { Namespace } from '../netns/namespace.ts';
import { bridge } from './bridge.ts';
import { ip } from './ip/ip.ts';
import { ping } from './ping.ts';
import { type CommandResult, fail } from './result.ts';
import { shellWords } from './shell-words.ts';
import { sysctl } from './sysctl.ts';
import { type Capture, startTcpdump, tcpdump } from './tcpdump.ts';

export type { CommandResult } from './result.ts';

type Command = (ns: Namespace, args: string[]) => CommandResult;

const COMMANDS: Record<string, Command> = {
  bridge,
  ip,
  ping,
  sysctl,
  tcpdump,
};

/** Runs `line` in `ns`. Commands that take time (ping) advance the simulation's virtual clock. */
export function exec(ns: Namespace, line: string): CommandResult {
  const words = shellWords(line);
  if (!words.ok) return fail(`sh: 1: Syntax error: ${words.message}\n`, 2);
  const [name, ...args] = words.words;
  if (name === undefined) return { stdout: '', stderr: '', exitCode: 0 };
  const command = COMMANDS[name];
  if (command === undefined) return fail(`sh: 1: ${name}: not found\n`, 127);
  return command(ns, args);
}

/** Programs that keep running in the background while the simulation does (`cmd &` in a shell). */
const BACKGROUND: Record<string, (ns: Namespace, args: string[]) => Capture | CommandResult> = {
  tcpdump: startTcpdump,
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
