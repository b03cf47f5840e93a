// The `ip` command (iproute2): option parsing and dispatch to its objects; `ip -n NS` is `ip netns exec NS ip`.

import type { Namespace } from '../../netns/namespace.ts';
// A cycle (exec.ts lists ip), used only when a command runs: `ip netns exec` runs the façade's commands.
import { runArgv } from '../exec.ts';
import { type CommandResult, fail } from '../result.ts';
import { addrChange } from './addr-command.ts';
import { addrShow } from './addr-show.ts';
import { linkAdd, linkDel, linkSet } from './link-command.ts';
import { linkShow } from './link-show.ts';
import { neighCommand } from './neigh-command.ts';
import { netnsCommand } from './netns-command.ts';
import { routeCommand } from './route-command.ts';
import { ruleCommand } from './rule-command.ts';

/** Global options of `ip` that change how objects print. */
export interface IpOptions {
  brief: boolean;
  details: boolean;
  stats: number;
  oneline: boolean;
  /** `-4`: IPv4 only (what `ip addr` lists). */
  family: 'unspec' | 'inet';
}

const USAGE = `Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
where  OBJECT := { address | addrlabel | fou | help | ila | ioam | l2tp | link |
                   macsec | maddress | monitor | mptcp | mroute | mrule |
                   neighbor | neighbour | netconf | netns | nexthop | ntable |
                   ntbl | route | rule | sr | stats | tap | tcpmetrics |
                   token | tunnel | tuntap | vrf | xfrm }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[esolve] |
                    -h[uman-readable] | -iec | -j[son] | -p[retty] |
                    -f[amily] { inet | inet6 | mpls | bridge | link } |
                    -4 | -6 | -M | -B | -0 |
                    -l[oops] { maximum-addr-flush-attempts } | -echo | -br[ief] |
                    -o[neline] | -t[imestamp] | -ts[hort] | -b[atch] [filename] |
                    -rc[vbuf] [size] | -n[etns] name | -N[umeric] | -a[ll] |
                    -c[olor]}
`;

/** iproute2's `matches`: a word selects a keyword when it is a prefix of it. */
export function matches(word: string, keyword: string): boolean {
  return word.length > 0 && keyword.startsWith(word);
}

export function ip(ns: Namespace, args: string[], stdin = ''): CommandResult {
  const options: IpOptions = { brief: false, details: false, stats: 0, oneline: false, family: 'unspec' };
  let i = 0;
  let target = ns;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const flag = args[i]!.replace(/^--?/, '');
    if (flag === '4') {
      options.family = 'inet';
      continue;
    }
    if (matches(flag, 'brief') && flag.length >= 2) options.brief = true;
    else if (matches(flag, 'details')) options.details = true;
    else if (matches(flag, 'statistics') || flag === 'stats') options.stats++;
    else if (matches(flag, 'oneline')) options.oneline = true;
    else if (matches(flag, 'netns')) {
      const name = args[++i] ?? '';
      if (!ns.sim.hasNamespace(name))
        return fail(`Cannot open network namespace "${name}": No such file or directory\n`, 255);
      target = ns.sim.namespace(name);
    } else if (matches(flag, 'Numeric') || flag === 'n') continue;
    else return fail(`Option "-${flag}" is unknown, try "ip -help".\n`, 255);
  }
  const object = args[i];
  const rest = args.slice(i + 1);
  if (object === undefined) return fail(USAGE, 255);
  if (matches(object, 'link')) return link(target, rest, options);
  if (matches(object, 'address')) return address(target, rest, options);
  if (matches(object, 'route'))
    return routeCommand(rest, target, target.fib, { pmtu: (dst) => target.ipv4.pmtuException(dst) });
  if (matches(object, 'rule')) return ruleCommand(rest, target, target.fib);
  if (matches(object, 'neighbour') || matches(object, 'neighbor')) return neighCommand(target, rest);
  if (matches(object, 'netns')) return netnsCommand(target, rest, stdin, runArgv);
  if (object === 'help') return fail(USAGE, 255);
  return fail(`Object "${object}" is unknown, try "ip help".\n`, 255);
}

function link(ns: Namespace, args: string[], options: IpOptions): CommandResult {
  const [verb = 'show', ...rest] = args;
  if (verb === 'add') return linkAdd(ns, rest);
  if (matches(verb, 'set')) return linkSet(ns, rest);
  if (matches(verb, 'delete')) return linkDel(ns, rest);
  if (matches(verb, 'show') || matches(verb, 'list') || verb === 'lst') return linkShow(ns, rest, options);
  return fail(`Command "${verb}" is unknown, try "ip link help".\n`, 255);
}

function address(ns: Namespace, args: string[], options: IpOptions): CommandResult {
  const [verb = 'show', ...rest] = args;
  if (matches(verb, 'show') || matches(verb, 'list') || verb === 'lst')
    return addrShow(ns, rest, { ...options, inetOnly: options.family === 'inet' });
  if (verb === 'add') return addrChange(ns, 'add', rest);
  if (matches(verb, 'delete')) return addrChange(ns, 'del', rest);
  return fail(`Command "${verb}" is unknown, try "ip address help".\n`, 255);
}
