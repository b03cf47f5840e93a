// ss's command line (iproute2 6.1.0's misc/ss.c): usage and version texts, the state, table and family numbers
// with filter_db_set/filter_af_set/filter_merge_defaults, and glibc getopt_long over ss's options; the options
// packetlab does not model are listed with the words `unsupported()` names them by.

import type { TcpState } from '../../socket/tcp/socket.ts';
import { type CommandResult, fail } from '../result.ts';

/** ss.c's usage text (6.1.0), on stdout for -h and on stderr after a bad option. */
export const USAGE = `Usage: ss [ OPTIONS ]
       ss [ OPTIONS ] [ FILTER ]
   -h, --help          this message
   -V, --version       output version information
   -n, --numeric       don't resolve service names
   -r, --resolve       resolve host names
   -a, --all           display all sockets
   -l, --listening     display listening sockets
   -o, --options       show timer information
   -e, --extended      show detailed socket information
   -m, --memory        show socket memory usage
   -p, --processes     show process using socket
   -T, --threads       show thread using socket
   -i, --info          show internal TCP information
       --tipcinfo      show internal tipc socket information
   -s, --summary       show socket usage summary
       --tos           show tos and priority information
       --cgroup        show cgroup information
   -b, --bpf           show bpf filter socket information
   -E, --events        continually display sockets as they are destroyed
   -Z, --context       display task SELinux security contexts
   -z, --contexts      display task and socket SELinux security contexts
   -N, --net           switch to the specified network namespace name

   -4, --ipv4          display only IP version 4 sockets
   -6, --ipv6          display only IP version 6 sockets
   -0, --packet        display PACKET sockets
   -t, --tcp           display only TCP sockets
   -M, --mptcp         display only MPTCP sockets
   -S, --sctp          display only SCTP sockets
   -u, --udp           display only UDP sockets
   -d, --dccp          display only DCCP sockets
   -w, --raw           display only RAW sockets
   -x, --unix          display only Unix domain sockets
       --tipc          display only TIPC sockets
       --vsock         display only vsock sockets
       --xdp           display only XDP sockets
   -f, --family=FAMILY display sockets of type FAMILY
       FAMILY := {inet|inet6|link|unix|netlink|vsock|tipc|xdp|help}

   -K, --kill          forcibly close sockets, display what was closed
   -H, --no-header     Suppress header line
   -O, --oneline       socket's data printed on a single line
       --inet-sockopt  show various inet socket options

   -A, --query=QUERY, --socket=QUERY
       QUERY := {all|inet|tcp|mptcp|udp|raw|unix|unix_dgram|unix_stream|unix_seqpacket|packet|packet_raw|packet_dgram|netlink|dccp|sctp|vsock_stream|vsock_dgram|tipc|xdp}[,QUERY]

   -D, --diag=FILE     Dump raw information about TCP sockets to FILE
   -F, --filter=FILE   read filter information from FILE
       FILTER := [ state STATE-FILTER ] [ EXPRESSION ]
       STATE-FILTER := {all|connected|synchronized|bucket|big|TCP-STATES}
         TCP-STATES := {established|syn-sent|syn-recv|fin-wait-{1,2}|time-wait|closed|close-wait|last-ack|listening|closing}
          connected := {established|syn-sent|syn-recv|fin-wait-{1,2}|time-wait|close-wait|last-ack|closing}
       synchronized := {established|syn-recv|fin-wait-{1,2}|time-wait|close-wait|last-ack|closing}
             bucket := {syn-recv|time-wait}
                big := {established|syn-sent|fin-wait-{1,2}|closed|close-wait|last-ack|listening|closing}
`;

export const VERSION = 'ss utility, iproute2-6.1.0\n';

// ---- states (ss.c's SS_* enum: the kernel's TCP_* numbers) -----------------------------------

export const SS_ESTABLISHED = 1;
const SS_SYN_SENT = 2;
export const SS_SYN_RECV = 3;
const SS_FIN_WAIT1 = 4;
const SS_FIN_WAIT2 = 5;
export const SS_TIME_WAIT = 6;
export const SS_CLOSE = 7;
const SS_CLOSE_WAIT = 8;
const SS_LAST_ACK = 9;
export const SS_LISTEN = 10;
const SS_CLOSING = 11;
const SS_MAX = 12;
export const SS_ALL = (1 << SS_MAX) - 1;
export const SS_CONN =
  SS_ALL & ~((1 << SS_LISTEN) | (1 << SS_CLOSE) | (1 << SS_TIME_WAIT) | (1 << SS_SYN_RECV));

/** sock_state_print's names, by SS_* number. */
export const STATE_NAMES = [
  'UNKNOWN',
  'ESTAB',
  'SYN-SENT',
  'SYN-RECV',
  'FIN-WAIT-1',
  'FIN-WAIT-2',
  'TIME-WAIT',
  'UNCONN',
  'CLOSE-WAIT',
  'LAST-ACK',
  'LISTEN',
  'CLOSING',
];

/** scan_state's names for single states, by SS_* number. */
const STATE_FILTER_NAMES = [
  'unknown',
  'established',
  'syn-sent',
  'syn-recv',
  'fin-wait-1',
  'fin-wait-2',
  'time-wait',
  'unconnected',
  'close-wait',
  'last-ack',
  'listening',
  'closing',
];

export const TCP_STATES: Record<TcpState, number> = {
  SYN_SENT: SS_SYN_SENT,
  SYN_RECV: SS_SYN_RECV,
  ESTABLISHED: SS_ESTABLISHED,
  FIN_WAIT1: SS_FIN_WAIT1,
  FIN_WAIT2: SS_FIN_WAIT2,
  CLOSE_WAIT: SS_CLOSE_WAIT,
  CLOSING: SS_CLOSING,
  LAST_ACK: SS_LAST_ACK,
  TIME_WAIT: SS_TIME_WAIT,
  CLOSE: SS_CLOSE,
};

/** scan_state: a state name or group, as a mask; undefined for a wrong name. */
export function scanState(name: string): number | undefined {
  const lower = name.toLowerCase();
  if (lower === 'close' || lower === 'closed') return 1 << SS_CLOSE;
  if (lower === 'syn-rcv') return 1 << SS_SYN_RECV;
  if (lower === 'established') return 1 << SS_ESTABLISHED;
  if (lower === 'all') return SS_ALL;
  if (lower === 'connected') return SS_ALL & ~((1 << SS_CLOSE) | (1 << SS_LISTEN));
  if (lower === 'synchronized') return SS_ALL & ~((1 << SS_CLOSE) | (1 << SS_LISTEN) | (1 << SS_SYN_SENT));
  if (lower === 'bucket') return (1 << SS_SYN_RECV) | (1 << SS_TIME_WAIT);
  if (lower === 'big') return SS_ALL & ~((1 << SS_SYN_RECV) | (1 << SS_TIME_WAIT));
  const at = STATE_FILTER_NAMES.indexOf(lower);
  return at >= 0 ? 1 << at : undefined;
}

// ---- socket tables and families (ss.c's *_DB enum, default_dbs and default_afs) --------------

export const TCP_DB = 0;
export const MPTCP_DB = 1;
export const DCCP_DB = 2;
export const UDP_DB = 3;
export const RAW_DB = 4;
const UNIX_DG_DB = 5;
const UNIX_ST_DB = 6;
const UNIX_SQ_DB = 7;
const PACKET_DG_DB = 8;
const PACKET_R_DB = 9;
const NETLINK_DB = 10;
export const SCTP_DB = 11;
const VSOCK_ST_DB = 12;
const VSOCK_DG_DB = 13;
const TIPC_DB = 14;
const XDP_DB = 15;
const MAX_DB = 16;

export const AF_UNIX = 1;
export const AF_INET = 2;
export const AF_INET6 = 10;
const AF_NETLINK = 16;
export const AF_PACKET = 17;
export const AF_TIPC = 30;
export const AF_VSOCK = 40;
export const AF_XDP = 44;

const INET_FAMILIES = [AF_INET, AF_INET6];
const TIPC_SS_CONN = (1 << SS_ESTABLISHED) | (1 << SS_LISTEN) | (1 << SS_CLOSE);

/** default_dbs: the states and families each table brings. */
const DB_DEFAULTS: readonly { readonly states: number; readonly families: readonly number[] }[] = [
  { states: SS_CONN, families: INET_FAMILIES }, // TCP
  { states: SS_CONN, families: INET_FAMILIES }, // MPTCP
  { states: SS_CONN, families: INET_FAMILIES }, // DCCP
  { states: 1 << SS_ESTABLISHED, families: INET_FAMILIES }, // UDP
  { states: 1 << SS_ESTABLISHED, families: INET_FAMILIES }, // RAW
  { states: 1 << SS_CLOSE, families: [AF_UNIX] }, // UNIX_DG
  { states: SS_CONN, families: [AF_UNIX] }, // UNIX_ST
  { states: SS_CONN, families: [AF_UNIX] }, // UNIX_SQ
  { states: 1 << SS_CLOSE, families: [AF_PACKET] }, // PACKET_DG
  { states: 1 << SS_CLOSE, families: [AF_PACKET] }, // PACKET_R
  { states: 1 << SS_CLOSE, families: [AF_NETLINK] }, // NETLINK
  { states: SS_CONN, families: INET_FAMILIES }, // SCTP
  { states: SS_CONN, families: [AF_VSOCK] }, // VSOCK_ST
  { states: SS_CONN, families: [AF_VSOCK] }, // VSOCK_DG
  { states: TIPC_SS_CONN, families: [AF_TIPC] }, // TIPC
  { states: 1 << SS_CLOSE, families: [AF_XDP] }, // XDP
];

const INET_DBS = [TCP_DB, MPTCP_DB, UDP_DB, DCCP_DB, SCTP_DB, RAW_DB];

/** default_afs: the tables and states each family brings. */
const AF_DEFAULTS: ReadonlyMap<number, { readonly dbs: readonly number[]; readonly states: number }> =
  new Map([
    [AF_INET, { dbs: INET_DBS, states: SS_CONN }],
    [AF_INET6, { dbs: INET_DBS, states: SS_CONN }],
    [AF_UNIX, { dbs: [UNIX_DG_DB, UNIX_ST_DB, UNIX_SQ_DB], states: SS_CONN }],
    [AF_PACKET, { dbs: [PACKET_DG_DB, PACKET_R_DB], states: 1 << SS_CLOSE }],
    [AF_NETLINK, { dbs: [NETLINK_DB], states: 1 << SS_CLOSE }],
    [AF_VSOCK, { dbs: [VSOCK_ST_DB, VSOCK_DG_DB], states: SS_CONN }],
    [AF_TIPC, { dbs: [TIPC_DB], states: TIPC_SS_CONN }],
    [AF_XDP, { dbs: [XDP_DB], states: 1 << SS_CLOSE }],
  ]);

/** filter_db_parse's table names (-A). */
const DB_NAMES: ReadonlyMap<string, readonly number[]> = new Map([
  [
    'all',
    [
      UDP_DB,
      DCCP_DB,
      TCP_DB,
      MPTCP_DB,
      RAW_DB,
      UNIX_ST_DB,
      UNIX_DG_DB,
      UNIX_SQ_DB,
      PACKET_R_DB,
      PACKET_DG_DB,
      NETLINK_DB,
      SCTP_DB,
      VSOCK_ST_DB,
      VSOCK_DG_DB,
      XDP_DB,
    ],
  ],
  ['inet', [UDP_DB, DCCP_DB, TCP_DB, MPTCP_DB, SCTP_DB, RAW_DB]],
  ['udp', [UDP_DB]],
  ['dccp', [DCCP_DB]],
  ['tcp', [TCP_DB]],
  ['mptcp', [MPTCP_DB]],
  ['sctp', [SCTP_DB]],
  ['raw', [RAW_DB]],
  ['unix', [UNIX_ST_DB, UNIX_DG_DB, UNIX_SQ_DB]],
  ['unix_stream', [UNIX_ST_DB]],
  ['u_str', [UNIX_ST_DB]],
  ['unix_dgram', [UNIX_DG_DB]],
  ['u_dgr', [UNIX_DG_DB]],
  ['unix_seqpacket', [UNIX_SQ_DB]],
  ['u_seq', [UNIX_SQ_DB]],
  ['packet', [PACKET_R_DB, PACKET_DG_DB]],
  ['packet_raw', [PACKET_R_DB]],
  ['p_raw', [PACKET_R_DB]],
  ['packet_dgram', [PACKET_DG_DB]],
  ['p_dgr', [PACKET_DG_DB]],
  ['netlink', [NETLINK_DB]],
  ['vsock', [VSOCK_ST_DB, VSOCK_DG_DB]],
  ['vsock_stream', [VSOCK_ST_DB]],
  ['v_str', [VSOCK_ST_DB]],
  ['vsock_dgram', [VSOCK_DG_DB]],
  ['v_dgr', [VSOCK_DG_DB]],
  ['tipc', [TIPC_DB]],
  ['xdp', [XDP_DB]],
]);

/** -f's family names. */
export const FAMILY_NAMES: ReadonlyMap<string, number> = new Map([
  ['inet', AF_INET],
  ['inet6', AF_INET6],
  ['link', AF_PACKET],
  ['unix', AF_UNIX],
  ['netlink', AF_NETLINK],
  ['tipc', AF_TIPC],
  ['vsock', AF_VSOCK],
  ['xdp', AF_XDP],
]);

/** The `struct filter` being built: table bits, state bits, family numbers. */
export class Filter {
  dbs = 0;
  states = 0;
  readonly families = new Set<number>();
  /** do_default: no table or family option was given. */
  useDefault = true;

  setDb(db: number, enable: boolean): void {
    if (enable) {
      this.states |= DB_DEFAULTS[db]!.states;
      this.dbs |= 1 << db;
    } else this.dbs &= ~(1 << db);
    this.useDefault = false;
  }

  setFamily(af: number): void {
    this.states |= AF_DEFAULTS.get(af)!.states;
    this.families.add(af);
    this.useDefault = false;
  }

  /** filter_db_parse: a table name, `!` to take it away; false for an unknown name. */
  parseDb(name: string): boolean {
    const enable = !name.startsWith('!');
    const dbs = DB_NAMES.get(enable ? name : name.slice(1));
    if (dbs === undefined) return false;
    for (const db of dbs) this.setDb(db, enable);
    return true;
  }

  /** filter_merge_defaults: each table brings its families when none of them was asked for, and each family its tables. */
  mergeDefaults(): void {
    for (let db = 0; db < MAX_DB; db++) {
      if ((this.dbs & (1 << db)) === 0) continue;
      const families = DB_DEFAULTS[db]!.families;
      if (!families.some((af) => this.families.has(af))) for (const af of families) this.families.add(af);
    }
    for (const [af, defaults] of AF_DEFAULTS) {
      if (!this.families.has(af)) continue;
      if (!defaults.dbs.some((db) => (this.dbs & (1 << db)) !== 0))
        for (const db of defaults.dbs) this.dbs |= 1 << db;
    }
  }

  has(db: number): boolean {
    return (this.dbs & (1 << db)) !== 0;
  }
}

// ---- command line (glibc getopt_long with permutation, ss.c's option string) ----------------

/** ss.c's short options; a colon marks an argument. */
const SHORT_OPTIONS = 'dhaletuwxnro460spbEf:mMiA:D:F:vVzZN:KHSOT';

/** ss.c's long options, in its array's order (glibc lists ambiguous prefixes in this order). */
const LONG_OPTIONS: readonly (readonly [name: string, hasArg: boolean, code: string])[] = [
  ['numeric', false, 'n'],
  ['resolve', false, 'r'],
  ['options', false, 'o'],
  ['extended', false, 'e'],
  ['memory', false, 'm'],
  ['info', false, 'i'],
  ['processes', false, 'p'],
  ['threads', false, 'T'],
  ['bpf', false, 'b'],
  ['events', false, 'E'],
  ['dccp', false, 'd'],
  ['tcp', false, 't'],
  ['sctp', false, 'S'],
  ['udp', false, 'u'],
  ['raw', false, 'w'],
  ['unix', false, 'x'],
  ['tipc', false, 'tipc'],
  ['vsock', false, 'vsock'],
  ['all', false, 'a'],
  ['listening', false, 'l'],
  ['ipv4', false, '4'],
  ['ipv6', false, '6'],
  ['packet', false, '0'],
  ['family', true, 'f'],
  ['socket', true, 'A'],
  ['query', true, 'A'],
  ['summary', false, 's'],
  ['diag', true, 'D'],
  ['filter', true, 'F'],
  ['version', false, 'V'],
  ['help', false, 'h'],
  ['context', false, 'Z'],
  ['contexts', false, 'z'],
  ['net', true, 'N'],
  ['tipcinfo', false, 'tipcinfo'],
  ['tos', false, 'tos'],
  ['cgroup', false, 'cgroup'],
  ['kill', false, 'K'],
  ['no-header', false, 'H'],
  ['xdp', false, 'xdp'],
  ['mptcp', false, 'M'],
  ['oneline', false, 'O'],
  ['inet-sockopt', false, 'inet-sockopt'],
];

/** Options ss accepts whose output packetlab does not model, by code, with the spelling to name them by. */
export const UNSUPPORTED: Readonly<Record<string, string>> = {
  r: '-r (host names)',
  p: '-p (processes)',
  T: '-T (threads)',
  b: '-b (BPF filters)',
  E: '-E (events)',
  D: '-D (raw dump)',
  F: '-F (filter file)',
  K: '-K (kill)',
  O: '-O (one line)',
  tipcinfo: '--tipcinfo',
  tos: '--tos',
  cgroup: '--cgroup',
  'inet-sockopt': '--inet-sockopt',
};

/** An option as getopt_long returns it, or the message it printed for a bad one (ss then stops). */
type Option = { readonly code: string; readonly arg: string } | { readonly error: string };

/**
 * getopt_long over the arguments: the options in order, up to and including the first bad one, and
 * the other words (permuted to the end) apart.
 */
export function parseCommandLine(args: readonly string[]): { options: Option[]; words: string[] } {
  const options: Option[] = [];
  const words: string[] = [];
  const bad = (error: string) => {
    options.push({ error });
    return { options, words };
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      words.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq >= 0 ? eq : undefined);
      let found = LONG_OPTIONS.find(([n]) => n === name);
      if (found === undefined) {
        const candidates = LONG_OPTIONS.filter(([n]) => n.startsWith(name));
        const first = candidates[0];
        if (first !== undefined && candidates.some(([, h, c]) => h !== first[1] || c !== first[2]))
          return bad(
            `option '--${name}' is ambiguous; possibilities:${candidates.map(([n]) => ` '--${n}'`).join('')}`,
          );
        found = first;
      }
      if (found === undefined) return bad(`unrecognized option '--${name}'`);
      const [long, hasArg, code] = found;
      if (eq >= 0 && !hasArg) return bad(`option '--${long}' doesn't allow an argument`);
      let value = eq >= 0 ? arg.slice(eq + 1) : '';
      if (hasArg && eq < 0) {
        if (i + 1 >= args.length) return bad(`option '--${long}' requires an argument`);
        value = args[++i]!;
      }
      options.push({ code, arg: value });
      continue;
    }
    if (!arg.startsWith('-') || arg.length === 1) {
      words.push(arg);
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const c = arg[j]!;
      const at = SHORT_OPTIONS.indexOf(c);
      if (at < 0 || c === ':') return bad(`invalid option -- '${c}'`);
      if (SHORT_OPTIONS[at + 1] !== ':') {
        options.push({ code: c, arg: '' });
        continue;
      }
      if (j + 1 < arg.length) options.push({ code: c, arg: arg.slice(j + 1) });
      else if (i + 1 < args.length) options.push({ code: c, arg: args[++i]! });
      else return bad(`option requires an argument -- '${c}'`);
      break;
    }
  }
  return { options, words };
}

/** usage(): the text on stderr, exit(-1). */
export function usageError(message?: string): CommandResult {
  return fail(`${message ?? ''}${USAGE}`, 255);
}
