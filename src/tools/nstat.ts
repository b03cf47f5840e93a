// `nstat` (iproute2 6.1's misc/nstat.c) over the SNMP counters packetlab keeps: the IP, ICMP, TCP and UDP MIBs and
// the IpExt counters of a namespace, in /proc/net/snmp's and /proc/net/netstat's order; not -d/-t (the daemon and its
// rates), -j/-p (JSON), IPv6, UDP-Lite, TcpExt, IcmpMsg or the counters packetlab does not move.
//
// As nstat does, the command prints each counter's change since the history it last wrote (the values of
// /tmp/.nstat.u0 for root), or the absolute values when there is no history, -a or -r; it then rewrites
// the history unless -s. The history is one per simulation, as the file is one per user on a machine: a
// run in another namespace compares with what the last run anywhere saw, as on Linux. The rate column is
// the daemon's, 0.0 without one.

import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { type CommandResult, fail, unsupported } from './result.ts';

const USAGE = `Usage: nstat [OPTION] [ PATTERN [ PATTERN ] ]
   -h, --help          this message
   -a, --ignore        ignore history
   -d, --scan=SECS     sample every statistics every SECS
   -j, --json          format output in JSON
   -n, --nooutput      do history only
   -p, --pretty        pretty print
   -r, --reset         reset history
   -s, --noupdate      don't update history
   -t, --interval=SECS report average over the last SECS
   -V, --version       output version information
   -z, --zeros         show entries with zero activity
`;

/** The counters, in the kernel's order (snmp4_ipstats_list, snmp4_icmp_list, snmp4_tcp_list, snmp4_udp_list, snmp4_ipextstats_list). */
function counters(ns: Namespace): [name: string, value: number][] {
  const ip = ns.ipv4.mib;
  const icmp = ns.ipv4.icmp.stats;
  const tcp = ns.tcp.stats;
  const tcpOut = ns.ipv4.tcpOutMib;
  const udp = ns.udp.stats;
  return [
    ['IpInReceives', ip.inReceives],
    ['IpInHdrErrors', ip.inHdrErrors],
    ['IpInAddrErrors', ip.inAddrErrors],
    ['IpForwDatagrams', ip.forwDatagrams],
    ['IpInUnknownProtos', ip.inUnknownProtos],
    ['IpInDelivers', ip.inDelivers],
    ['IpOutRequests', ip.outRequests],
    ['IpOutNoRoutes', ip.outNoRoutes],
    ['IpReasmTimeout', ip.reasmTimeout],
    ['IpReasmReqds', ip.reasmReqds],
    ['IpReasmOKs', ip.reasmOKs],
    ['IpReasmFails', ip.reasmFails],
    ['IpFragOKs', ip.fragOKs],
    ['IpFragFails', ip.fragFails],
    ['IpFragCreates', ip.fragCreates],
    ['IcmpInMsgs', icmp.inMsgs],
    ['IcmpInErrors', icmp.inErrors],
    ['IcmpInCsumErrors', icmp.inCsumErrors],
    ['IcmpOutMsgs', icmp.outMsgs],
    ['IcmpOutRateLimitGlobal', icmp.outRateLimitGlobal],
    ['IcmpOutRateLimitHost', icmp.outRateLimitHost],
    ['TcpActiveOpens', tcp.activeOpens],
    ['TcpPassiveOpens', tcp.passiveOpens],
    ['TcpInSegs', tcp.inSegs],
    ['TcpOutSegs', tcpOut.outSegs],
    ['TcpRetransSegs', tcpOut.retransSegs],
    ['TcpInErrs', tcp.inErrs],
    ['TcpOutRsts', tcp.outRsts],
    ['TcpInCsumErrors', tcp.inCsumErrors],
    ['UdpInDatagrams', udp.inDatagrams],
    ['UdpNoPorts', udp.noPorts],
    ['UdpInErrors', udp.inErrors],
    ['UdpOutDatagrams', udp.outDatagrams],
    ['UdpInCsumErrors', udp.inCsumErrors],
    ['TcpExtTCPSpuriousRtxHostQueues', tcpOut.spuriousRtxHostQueues],
    ['IpExtInNoRoutes', ip.inNoRoutes],
    ['IpExtInTruncatedPkts', ip.inTruncatedPkts],
    ['IpExtInCsumErrors', ip.inCsumErrors],
  ];
}

/** /tmp/.nstat.u0: the values the last run saw, one history per simulation (per machine). */
const histories = new WeakMap<Simulation, Map<string, number>>();

/** fnmatch(3) without flags: `*`, `?` and `[...]`, anchored. */
function globMatch(pattern: string, name: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) source += '\\[';
      else {
        const body = pattern
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else source += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`).test(name);
}

const LONG_OPTIONS: Readonly<Record<string, string>> = {
  help: 'h',
  ignore: 'a',
  scan: 'd',
  json: 'j',
  nooutput: 'n',
  pretty: 'p',
  reset: 'r',
  noupdate: 's',
  interval: 't',
  version: 'V',
  zeros: 'z',
};

function usageError(message: string): CommandResult {
  return fail(`${message}${USAGE}`, 255);
}

export function nstat(ns: Namespace, args: string[]): CommandResult {
  const flags = new Set<string>();
  const patterns: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      patterns.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0]!;
      const matching = Object.keys(LONG_OPTIONS).filter((long) => long.startsWith(name));
      const exact = LONG_OPTIONS[name];
      if (exact === undefined && matching.length !== 1)
        return usageError(
          matching.length === 0
            ? `nstat: unrecognized option '--${name}'\n`
            : `nstat: option '--${name}' is ambiguous; possibilities:${matching.map((m) => ` '--${m}'`).join('')}\n`,
        );
      flags.add(exact ?? LONG_OPTIONS[matching[0]!]!);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      for (const c of arg.slice(1)) {
        if (!'h?vVzrnasd:t:jp'.replace(/:/g, '').includes(c))
          return usageError(`nstat: invalid option -- '${c}'\n`);
        flags.add(c);
        if (c === 'd' || c === 't') break;
      }
      continue;
    }
    patterns.push(arg);
  }
  if (flags.has('h') || flags.has('?')) return fail(USAGE, 255);
  if (flags.has('v') || flags.has('V'))
    return { stdout: 'nstat utility, iproute2-6.1.0\n', stderr: '', exitCode: 0 };
  for (const [flag, what] of [
    ['d', '-d (daemon)'],
    ['t', '-t (interval)'],
    ['j', '-j (JSON)'],
    ['p', '-p (JSON)'],
  ] as const)
    if (flags.has(flag)) return unsupported('nstat', `option ${what}`);

  const current = counters(ns);
  const history = histories.get(ns.sim);
  // -r drops the history; -a ignores it; either way the values print as they are.
  const base = flags.has('a') || flags.has('r') ? undefined : history;
  let stdout = '';
  if (!flags.has('n')) {
    stdout = '#kernel\n';
    for (const [name, value] of current) {
      const shown = value - (base?.get(name) ?? 0);
      if (shown === 0 && !flags.has('z')) continue;
      if (patterns.length > 0 && !patterns.some((pattern) => globMatch(pattern, name))) continue;
      // dump_kern_db: "%-32s%-16llu%6.1f\n"; a counter below the history's (the history came from another
      // namespace) wraps, as the unsigned difference does.
      const text = shown >= 0 ? String(shown) : String(BigInt.asUintN(64, BigInt(shown)));
      stdout += `${name.padEnd(32)}${text.padEnd(16)}${'0.0'.padStart(6)}\n`;
    }
  }
  if (!flags.has('s')) histories.set(ns.sim, new Map(current));
  return { stdout, stderr: '', exitCode: 0 };
}
