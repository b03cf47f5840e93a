// The iptables family of commands on a namespace: `iptables`, `iptables-save`, `iptables-restore` (input from
// an argument, a simulation file, or `< FILE`) and `xtables-monitor --trace` running in the background.

import { runIptables } from '../netfilter/iptables/command.ts';
import { VERSION } from '../netfilter/iptables/errors.ts';
import { formatXtablesTrace } from '../netfilter/iptables/monitor.ts';
import { parseRestoreArgs, restoreRuleset } from '../netfilter/iptables/restore.ts';
import { ctime, saveTables } from '../netfilter/iptables/save.ts';
import { TABLES } from '../netfilter/iptables/tables.ts';
import { translateIptables } from '../netfilter/iptables/translate.ts';
import type { NftTraceEvent } from '../netfilter/trace.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { CommandResult } from './result.ts';

const NS_PER_SECOND = 1_000_000_000;

/** `iptables-translate ARGS`: the nft command for a rule, as iptables-translate 1.8.9 prints it. */
export function iptablesTranslate(_ns: Namespace, args: string[]): CommandResult {
  return translateIptables(args);
}

/** `iptables ARGS`. */
export function iptables(ns: Namespace, args: string[]): CommandResult {
  return runIptables(ns.netfilter.store, args);
}

/** The date iptables-save prints: the simulation's virtual clock read as seconds since the epoch, UTC. */
function saveDate(ns: Namespace): string {
  return ctime(Math.floor(ns.sim.scheduler.now / NS_PER_SECOND));
}

/** `iptables-save [-c] [-t TABLE]`. */
export function iptablesSave(ns: Namespace, args: string[]): CommandResult {
  let counters = false;
  let table: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '-c' || word === '--counters') counters = true;
    else if (word === '-t' || word === '--table') {
      table = args[++i];
      if (table === undefined)
        return {
          stdout: '',
          stderr:
            "iptables-save: option requires an argument -- 't'\nTry `iptables-save -h' for more information.\n",
          exitCode: 1,
        };
    } else if (word === '-V' || word === '--version')
      return { stdout: `iptables-save ${VERSION}\n`, stderr: '', exitCode: 0 };
    else if (word === '-f' || word === '--file') i++;
    else
      return {
        stdout: '',
        stderr: `iptables-save: unrecognized option '${word}'\nTry \`iptables-save -h' for more information.\n`,
        exitCode: 1,
      };
  }
  if (table !== undefined && !TABLES.has(table))
    return {
      stdout: '',
      stderr: `iptables-save ${VERSION}: Cannot initialize: Table does not exist (do you need to insmod?)\n`,
      exitCode: 1,
    };
  return {
    stdout: saveTables(ns.netfilter.store.ruleset, table, counters, saveDate(ns)),
    stderr: '',
    exitCode: 0,
  };
}

function readFile(ns: Namespace, path: string): string | undefined {
  const bytes = ns.sim.files.get(path);
  if (bytes === undefined) return undefined;
  return decodeUtf8(bytes);
}

/** UTF-8 to a string (a bad sequence becomes U+FFFD), without TextDecoder, which this lib target lacks. */
function decodeUtf8(bytes: Uint8Array): string {
  let text = '';
  let i = 0;
  while (i < bytes.length) {
    const first = bytes[i]!;
    const extra =
      first < 0x80 ? 0 : first >= 0xf0 && first < 0xf8 ? 3 : first >= 0xe0 ? 2 : first >= 0xc0 ? 1 : -1;
    if (extra === 0) {
      text += String.fromCharCode(first);
      i++;
      continue;
    }
    let code = extra < 0 ? 0 : first & (0x3f >> extra);
    let ok = extra > 0 && i + extra < bytes.length;
    for (let k = 1; ok && k <= extra; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) ok = false;
      else code = (code << 6) | (next & 0x3f);
    }
    if (!ok) {
      text += '\ufffd';
      i++;
      continue;
    }
    text += String.fromCodePoint(code);
    i += extra + 1;
  }
  return text;
}

/**
 * `iptables-restore [OPTIONS] [FILE]` with `input` as its standard input. A FILE (or `< FILE` left in the words
 * by the façade's shell) is read from the simulation's files.
 */
export function iptablesRestore(ns: Namespace, args: string[], input = ''): CommandResult {
  const words = [...args];
  let stdin = input;
  const redirect = words.indexOf('<');
  if (redirect >= 0) {
    const path = words[redirect + 1];
    words.splice(redirect, 2);
    const text = path === undefined ? undefined : readFile(ns, path);
    if (text === undefined)
      return { stdout: '', stderr: `sh: 1: cannot open ${path ?? ''}: No such file\n`, exitCode: 2 };
    stdin = text;
  }
  const parsed = parseRestoreArgs(words);
  if ('exitCode' in parsed) return parsed;
  if (parsed.file !== undefined) {
    const text = readFile(ns, parsed.file);
    if (text === undefined)
      return {
        stdout: '',
        stderr: `iptables-restore: Can't open ${parsed.file}: No such file or directory\n`,
        exitCode: 1,
      };
    stdin = text;
  }
  return restoreRuleset(ns.netfilter.store, stdin, parsed.options);
}

/** A running `xtables-monitor --trace`. */
export interface XtablesMonitor {
  readonly done: boolean;
  readonly stdout: string;
  stop(): CommandResult;
}

/** Starts `xtables-monitor --trace` in `ns`: trace events become its lines until stop(). */
export function startXtablesMonitor(ns: Namespace, args: string[]): XtablesMonitor | CommandResult {
  let trace = false;
  for (const word of args) {
    if (word === '-t' || word === '--trace') trace = true;
    else if (
      word === '-4' ||
      word === '--ipv4' ||
      word === '-e' ||
      word === '--event' ||
      word === '-c' ||
      word === '--counters'
    )
      continue;
    else
      return {
        stdout: '',
        stderr: `xtables-monitor ${VERSION.split(' ')[0]!.slice(1)}: Bad argument.\nTry \`xtables-monitor -h' for more information.\n`,
        exitCode: 2,
      };
  }
  let output = '';
  let done = false;
  const listener = (event: NftTraceEvent): void => {
    if (trace) output += formatXtablesTrace(event);
  };
  ns.netfilter.traceListeners.add(listener);
  return {
    get done() {
      return done;
    },
    get stdout() {
      return output;
    },
    stop(): CommandResult {
      if (!done) ns.netfilter.traceListeners.delete(listener);
      done = true;
      return { stdout: output, stderr: '', exitCode: 0 };
    },
  };
}

/** `xtables-monitor` run in the foreground returns at once (the simulation does not advance meanwhile). */
export function xtablesMonitor(ns: Namespace, args: string[]): CommandResult {
  const started = startXtablesMonitor(ns, args);
  return 'exitCode' in started ? started : started.stop();
}
