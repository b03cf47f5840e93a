// `dmesg` (util-linux 2.38) over the simulation's kernel log: `[    T.TTTTTT] message` with seconds since the
// simulation (the machine) started, -t without them, -c (print, then clear) and -C (clear); not -T/-H/-w/-l/-x/-r
// and the other filters, and none of the lines Linux logs that packetlab does not (bridge port states, promiscuous
// mode, device renames).

import type { Namespace } from '../netns/namespace.ts';
import { type CommandResult, fail, unsupported } from './result.ts';

const TRY_HELP = "Try 'dmesg --help' for more information.\n";

/** The options dmesg accepts that packetlab does not model, by letter. */
const UNMODELLED = new Set('DEFHLPSTdefhlnrsuwxVk'.split(''));

/** print_record's timestamp: "[%5ld.%06ld] ". */
function timestamp(ns: number): string {
  const us = Math.floor(ns / 1000);
  const seconds = Math.floor(us / 1_000_000);
  return `[${String(seconds).padStart(5)}.${String(us % 1_000_000).padStart(6, '0')}] `;
}

export function dmesg(ns: Namespace, args: string[]): CommandResult {
  let readClear = false;
  let clear = false;
  let noTime = false;
  for (const arg of args) {
    const long: Readonly<Record<string, string>> = { '--read-clear': 'c', '--clear': 'C', '--notime': 't' };
    const letters = arg.startsWith('--') ? (long[arg] ?? '') : arg.startsWith('-') ? arg.slice(1) : '';
    if (arg.startsWith('--') && letters === '') return unsupported('dmesg', `option ${arg}`);
    if (letters === '') return fail(`dmesg: bad usage\n${TRY_HELP}`, 1);
    for (const letter of letters) {
      if (letter === 'c') readClear = true;
      else if (letter === 'C') clear = true;
      else if (letter === 't') noTime = true;
      else if (letter === 'k') continue;
      else if (UNMODELLED.has(letter)) return unsupported('dmesg', `option -${letter}`);
      else return fail(`dmesg: invalid option -- '${letter}'\n${TRY_HELP}`, 1);
    }
  }
  if (readClear && clear)
    return fail(
      'dmesg: mutually exclusive arguments: --clear --console-off --console-on --read-clear --console-level --raw\n',
      1,
    );
  const log = ns.sim.kernelLog;
  const times = ns.sim.kernelLogTimes;
  let stdout = '';
  if (!clear)
    log.forEach((line, i) => {
      stdout += `${noTime ? '' : timestamp(times[i] ?? 0)}${line}\n`;
    });
  if (readClear || clear) {
    log.length = 0;
    times.length = 0;
  }
  return { stdout, stderr: '', exitCode: 0 };
}
