// The command façade: `exec(namespace, "command line")` runs one command as the real tool would and returns its output.

import type { Namespace } from '../netns/namespace.ts';
import { ip } from './ip/ip.ts';
import { ping } from './ping.ts';
import { type CommandResult, fail } from './result.ts';
import { shellWords } from './shell-words.ts';
import { sysctl } from './sysctl.ts';

export type { CommandResult } from './result.ts';

type Command = (ns: Namespace, args: string[]) => CommandResult;

const COMMANDS: Record<string, Command> = {
  ip,
  ping,
  sysctl,
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
