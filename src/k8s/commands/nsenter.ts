// util-linux 2.38 nsenter's command line, for the one form a node's user needs: `nsenter -t PID -n CMD...` (also
// `--target PID`, `--target=PID`, `--net`). Other namespaces (-m -u -i -p -U -C -T -a), `--net=FILE`, -S/-G/-r/-w
// and a missing command (nsenter would start a shell) are not supported.

import { type CommandResult, fail, unsupported } from '../../tools/result.ts';

export type NsenterPlan =
  | { readonly ok: true; readonly pid: number; readonly command: readonly string[] }
  | { readonly ok: false; readonly result: CommandResult };

const TRY_HELP = "Try 'nsenter --help' for more information.\n";

/** Options nsenter knows but packetlab does not model (nsenter.c's longopts). */
const OTHER_SHORT = 'mutipUCTaSGrwFZ';
const OTHER_LONG = [
  'all',
  'mount',
  'uts',
  'ipc',
  'pid',
  'user',
  'cgroup',
  'time',
  'setuid',
  'setgid',
  'preserve-credentials',
  'root',
  'wd',
  'wdns',
  'no-fork',
  'follow-context',
  'help',
  'version',
];

/** mirrors nsenter.c main's getopt_long loop ("+ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W::FZ": stops at the first
 * non-option) and its checks: `failed to parse pid`, `neither filename nor target pid supplied for ns/net`. */
export function parseNsenter(args: readonly string[]): NsenterPlan {
  let pid = 0;
  let net = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg.length < 2 || arg[0] !== '-') break;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (name === 'target') {
        const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
        if (value === undefined) return usage(`nsenter: option '--target' requires an argument\n`);
        const parsed = parsePid(value);
        if (!parsed.ok) return parsed;
        pid = parsed.pid;
      } else if (name === 'net') {
        if (eq >= 0) return { ok: false, result: unsupported('nsenter', '--net=FILE') };
        net = true;
      } else if (OTHER_LONG.includes(name)) {
        return { ok: false, result: unsupported('nsenter', `--${name}`) };
      } else {
        return usage(`nsenter: unrecognized option '${arg}'\n`);
      }
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const c = arg[j]!;
      if (c === 't') {
        const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
        if (value === undefined) return usage(`nsenter: option requires an argument -- 't'\n`);
        const parsed = parsePid(value);
        if (!parsed.ok) return parsed;
        pid = parsed.pid;
        break;
      }
      if (c === 'n') {
        // -n takes an optional argument glued to it (-nFILE).
        if (j + 1 < arg.length) return { ok: false, result: unsupported('nsenter', '-nFILE') };
        net = true;
        continue;
      }
      if (OTHER_SHORT.includes(c)) return { ok: false, result: unsupported('nsenter', `-${c}`) };
      return usage(`nsenter: invalid option -- '${c}'\n`);
    }
  }
  const command = args.slice(i);
  if (net && pid === 0)
    return { ok: false, result: fail('nsenter: neither filename nor target pid supplied for ns/net\n') };
  if (!net) return { ok: false, result: unsupported('nsenter', 'without -n') };
  if (command.length === 0) return { ok: false, result: unsupported('nsenter', 'without a command') };
  return { ok: true, pid, command };
}

function usage(message: string): NsenterPlan {
  return { ok: false, result: fail(message + TRY_HELP) };
}

/** strtopid_or_err: a positive decimal number, else `failed to parse pid: 'X'`. */
function parsePid(value: string): { ok: true; pid: number } | { ok: false; result: CommandResult } {
  if (!/^[0-9]+$/.test(value) || Number(value) > 0x7fffffff) {
    return { ok: false, result: fail(`nsenter: failed to parse pid: '${value}'\n`) };
  }
  return { ok: true, pid: Number(value) };
}

/** What nsenter says when the PID has no network namespace on the node (open_target_fd). */
export function noSuchPid(pid: number): CommandResult {
  return fail(`nsenter: cannot open /proc/${pid}/ns/net: No such file or directory\n`);
}

/** execvp failing (nsenter.c: `errexec(argv[optind])`), exit 127 as util-linux's EX_EXEC_ENOENT. */
export function notExecutable(program: string): CommandResult {
  return fail(`nsenter: failed to execute ${program}: No such file or directory\n`, 127);
}
