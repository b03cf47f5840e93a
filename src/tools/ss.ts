// `ss` as iproute2 6.1.0 prints a namespace's TCP and UDP sockets into a pipe (compact columns), with -o/-e/-m/-i
// details (ss/details.ts), the summary (-s, ss/summary.ts) and filter expressions (ss/filter.ts); no -p processes,
// no other socket tables' rows.
//
// Written from iproute2's misc/ss.c (main, the filter defaults, scan_state, sock_state_print,
// inet_addr_print, resolve_service, and the column engine: field tokens, render_calc_width in
// compact mode since stdout is no terminal, render) and checked against the real ss 6.1.0 on
// Linux 6.18 (test/tools/ss-real.test.ts, test/linux/ss.test.ts):
//
// - Options go through glibc's getopt_long with argument permutation (`ss state listening -t`)
//   and its error texts, followed by ss's usage on stderr and exit status 255. Table and family
//   options (-t -u -d -w -x -0 -S -M, -4 -6, -f, -A with `!`) and -a/-l combine as ss.c's
//   filter_db_set/filter_af_set/filter_merge_defaults do, so the Netid column shows only when
//   several tables are asked for and the State column only when several states are.
// - Rows: UDP before TCP (ss.c's order); TCP listeners before connections (inet_diag walks the
//   listening hash, then the established hash, TIME_WAIT included). Within them the kernel's order
//   is a keyed hash with a random per-namespace mix, different in every namespace; packetlab lists
//   by port (UDP, listeners) and by 4-tuple (connections), one of the orders the kernel can give.
// - Recv-Q/Send-Q: for LISTEN the accept queue (0: packetlab hands a connection to its application
//   at once) and the backlog, 511 (Node's default `listen()`: packetlab's listen() takes none);
//   for connections the unread bytes (0: applications read at once, the FIN included) and
//   `write_seq - snd_una` (`TcpSocket.sendQueue`); SYN-RECV and TIME-WAIT 0 and 0, as for the
//   kernel's request and timewait sockets; UDP 0 and 0 (datagrams are delivered at once).
// - Ports are resolved as getservbyport does with netbase's /etc/services unless -n, except in
//   net.ipv4.ip_local_port_range (is_ephemeral); port 0 is `*`; hosts stay numeric (no -r).
// - On Linux 6.18 DCCP is gone: asking for its table (by default, -d, -4, -6, -f inet, -A inet)
//   prints `RTNETLINK answers: Invalid argument` on stderr; packetlab prints it too.
// - Other tables list nothing: packetlab has no Unix, raw or packet sockets of its own (a running
//   `tcpdump` is one on Linux), and the kernel's netlink sockets, which Linux lists with -a/-l
//   when netlink is among the tables (the default), together with ss's own, are not modelled.

import { portName } from '../netfilter/iptables/names.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { TcpSocket, TcpState } from '../socket/tcp/socket.ts';
import { bufferSysctl } from '../socket/tcp/sysctl.ts';
import type { TcpListener } from '../socket/tcp/table.ts';
import type { UdpSocket } from '../socket/udp.ts';
import { formatIpv4, type Ipv4Addr } from '../wire/address.ts';
import { type CommandResult, fail, unsupported } from './result.ts';
import { type DetailOptions, type DetailSource, detailText } from './ss/details.ts';
import { parseFilter, runFilter } from './ss/filter.ts';
import { socketIdentity } from './ss/identity.ts';
import { summaryText } from './ss/summary.ts';

/** ss.c's usage text (6.1.0), on stdout for -h and on stderr after a bad option. */
const USAGE = `Usage: ss [ OPTIONS ]
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

const VERSION = 'ss utility, iproute2-6.1.0\n';

// ---- states (ss.c's SS_* enum: the kernel's TCP_* numbers) -----------------------------------

const SS_ESTABLISHED = 1;
const SS_SYN_SENT = 2;
const SS_SYN_RECV = 3;
const SS_FIN_WAIT1 = 4;
const SS_FIN_WAIT2 = 5;
const SS_TIME_WAIT = 6;
const SS_CLOSE = 7;
const SS_CLOSE_WAIT = 8;
const SS_LAST_ACK = 9;
const SS_LISTEN = 10;
const SS_CLOSING = 11;
const SS_MAX = 12;
const SS_ALL = (1 << SS_MAX) - 1;
const SS_CONN = SS_ALL & ~((1 << SS_LISTEN) | (1 << SS_CLOSE) | (1 << SS_TIME_WAIT) | (1 << SS_SYN_RECV));

/** sock_state_print's names, by SS_* number. */
const STATE_NAMES = [
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

const TCP_STATES: Record<TcpState, number> = {
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
function scanState(name: string): number | undefined {
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

const TCP_DB = 0;
const MPTCP_DB = 1;
const DCCP_DB = 2;
const UDP_DB = 3;
const RAW_DB = 4;
const UNIX_DG_DB = 5;
const UNIX_ST_DB = 6;
const UNIX_SQ_DB = 7;
const PACKET_DG_DB = 8;
const PACKET_R_DB = 9;
const NETLINK_DB = 10;
const SCTP_DB = 11;
const VSOCK_ST_DB = 12;
const VSOCK_DG_DB = 13;
const TIPC_DB = 14;
const XDP_DB = 15;
const MAX_DB = 16;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_PACKET = 17;
const AF_TIPC = 30;
const AF_VSOCK = 40;
const AF_XDP = 44;

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
const FAMILY_NAMES: ReadonlyMap<string, number> = new Map([
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
class Filter {
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
const UNSUPPORTED: Readonly<Record<string, string>> = {
  r: '-r (host names)',
  p: '-p (processes)',
  T: '-T (threads)',
  b: '-b (BPF filters)',
  E: '-E (events)',
  D: '-D (raw dump)',
  F: '-F (filter file)',
  N: '-N (another namespace)',
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
function parseCommandLine(args: readonly string[]): { options: Option[]; words: string[] } {
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
function usageError(message?: string): CommandResult {
  return fail(`${message ?? ''}${USAGE}`, 255);
}

// ---- rows ---------------------------------------------------------------------------------

/** The socket behind a row, for its details. */
type RowSocket =
  | { readonly kind: 'udp'; readonly socket: UdpSocket }
  | { readonly kind: 'listener'; readonly socket: TcpListener }
  | { readonly kind: 'tcp'; readonly socket: TcpSocket };

interface Row {
  readonly of: RowSocket;
  readonly netid: 'tcp' | 'udp';
  readonly state: number;
  readonly recvQ: number;
  readonly sendQ: number;
  readonly localAddr: Ipv4Addr;
  readonly localPort: number;
  readonly remoteAddr: Ipv4Addr;
  readonly remotePort: number;
}

/** What a listening socket's Send-Q shows: the backlog of Node's default listen() (packetlab's listen() takes none). */
export const LISTEN_BACKLOG = 511;

function compareTuples(a: Row, b: Row): number {
  return (
    a.localAddr - b.localAddr ||
    a.localPort - b.localPort ||
    a.remoteAddr - b.remoteAddr ||
    a.remotePort - b.remotePort
  );
}

/** udp_show: bound sockets, ESTAB when connected and UNCONN otherwise; by port, the newest first within one. */
function udpRows(ns: Namespace, states: number): Row[] {
  const rows: { row: Row; order: number }[] = [];
  let order = 0;
  for (const socket of ns.udp.bound()) {
    order++;
    const state = socket.remote !== undefined ? SS_ESTABLISHED : SS_CLOSE;
    if ((states & (1 << state)) === 0) continue;
    let localAddr = socket.addr;
    // connect() on a socket bound to any address fixes its source address (ip4_datagram_connect).
    if (socket.remote !== undefined && localAddr === 0) {
      const route = ns.ipv4.routeOutput(socket.remote.addr, {});
      if (route.ok) localAddr = route.src;
    }
    rows.push({
      order,
      row: {
        of: { kind: 'udp', socket },
        netid: 'udp',
        state,
        recvQ: 0,
        sendQ: 0,
        localAddr,
        localPort: socket.port,
        remoteAddr: socket.remote?.addr ?? 0,
        remotePort: socket.remote?.port ?? 0,
      },
    });
  }
  rows.sort((a, b) => a.row.localPort - b.row.localPort || b.order - a.order);
  return rows.map((r) => r.row);
}

/** tcp_show: the listening hash, then the established hash (TIME_WAIT and SYN_RECV included). */
function tcpRows(ns: Namespace, states: number): Row[] {
  const listening: Row[] = [];
  if ((states & (1 << SS_LISTEN)) !== 0)
    for (const listener of ns.tcp.listening())
      listening.push({
        of: { kind: 'listener', socket: listener },
        netid: 'tcp',
        state: SS_LISTEN,
        recvQ: 0,
        sendQ: LISTEN_BACKLOG,
        localAddr: listener.addr,
        localPort: listener.port,
        remoteAddr: 0,
        remotePort: 0,
      });
  listening.sort((a, b) => a.localPort - b.localPort || a.localAddr - b.localAddr);
  const connections: Row[] = [];
  for (const socket of ns.tcp.sockets()) {
    const state = TCP_STATES[socket.state];
    if ((states & (1 << state)) === 0) continue;
    // Request and timewait sockets report empty queues (inet_diag_req_fill, inet_twsk_diag_fill).
    const minisock = state === SS_SYN_RECV || state === SS_TIME_WAIT;
    connections.push({
      of: { kind: 'tcp', socket },
      netid: 'tcp',
      state,
      recvQ: 0,
      sendQ: minisock ? 0 : socket.sendQueue,
      localAddr: socket.localAddr,
      localPort: socket.localPort,
      remoteAddr: socket.remoteAddr,
      remotePort: socket.remotePort,
    });
  }
  connections.sort(compareTuples);
  return [...listening, ...connections];
}

// ---- the column engine (ss.c: out, field_next, render_calc_width, render) -------------------

type ColumnId = 'netid' | 'state' | 'recvQ' | 'sendQ' | 'addr' | 'serv' | 'raddr' | 'rserv' | 'ext' | 'proc';

interface Column {
  readonly id: ColumnId;
  readonly header: string;
  readonly alignRight: boolean;
  readonly ldelim: string;
}

/** ss.c's columns: alignment, header, left delimiter. */
const COLUMNS: readonly Column[] = [
  { id: 'netid', header: 'Netid', alignRight: false, ldelim: '' },
  { id: 'state', header: 'State', alignRight: false, ldelim: ' ' },
  { id: 'recvQ', header: 'Recv-Q', alignRight: false, ldelim: ' ' },
  { id: 'sendQ', header: 'Send-Q', alignRight: false, ldelim: ' ' },
  { id: 'addr', header: 'Local Address:', alignRight: true, ldelim: ' ' },
  { id: 'serv', header: 'Port', alignRight: false, ldelim: '' },
  { id: 'raddr', header: 'Peer Address:', alignRight: true, ldelim: ' ' },
  { id: 'rserv', header: 'Port', alignRight: false, ldelim: '' },
  { id: 'ext', header: 'Process', alignRight: false, ldelim: '' },
  // The last column: print_header stops before it; rows leave it empty without -p.
  { id: 'proc', header: '', alignRight: false, ldelim: '' },
];

/**
 * Lays the tokens out as render() does with no terminal (compact output): each column as wide as
 * its longest token plus its left delimiter (none for the first column with content), right- or
 * left-aligned, padding written even at the end of a line.
 */
function render(columns: readonly Column[], lines: readonly (readonly string[])[]): string {
  let first = true;
  const widths = columns.map((column, i) => {
    // The last token of the output is never flushed (field_flush), so it does not widen its column.
    const counted = column.id === 'ext' ? lines.slice(0, -1) : lines;
    const maxLen = Math.max(0, ...counted.map((tokens) => tokens[i]!.length));
    const width = !first && maxLen > 0 ? maxLen + columns[i]!.ldelim.length : maxLen;
    if (width > 0) first = false;
    return width;
  });
  let text = '';
  for (const tokens of lines) {
    tokens.forEach((token, i) => {
      const column = columns[i]!;
      const width = widths[i]!;
      let printed = 0;
      if (i > 0) {
        text += column.ldelim;
        printed = column.ldelim.length;
      }
      if (column.alignRight && width > 0) {
        const spacing = width - token.length - printed;
        if (spacing > 0) {
          text += ' '.repeat(spacing);
          printed += spacing;
        }
      }
      text += token;
      printed += token.length;
      if (!column.alignRight && width > printed) text += ' '.repeat(width - printed);
    });
    text += '\n';
  }
  return text;
}

// ---- the command ---------------------------------------------------------------------------

export function ss(ns: Namespace, args: string[]): CommandResult {
  const parsed = parseCommandLine(args);
  const filter = new Filter();
  let numeric = false;
  let showHeader = true;
  let stateFilter = 0;
  let sawQuery = false;
  let summary = false;
  const details = { timers: false, extended: false, memory: false, tcpInfo: false };
  for (const option of parsed.options) {
    if ('error' in option) return usageError(`ss: ${option.error}\n`);
    const { code, arg } = option;
    switch (code) {
      case 'n':
        numeric = true;
        break;
      case 'd':
        filter.setDb(DCCP_DB, true);
        break;
      case 't':
        filter.setDb(TCP_DB, true);
        break;
      case 'S':
        filter.setDb(SCTP_DB, true);
        break;
      case 'u':
        filter.setDb(UDP_DB, true);
        break;
      case 'w':
        filter.setDb(RAW_DB, true);
        break;
      case 'M':
        filter.setDb(MPTCP_DB, true);
        break;
      case 'x':
        filter.setFamily(AF_UNIX);
        break;
      case 'vsock':
        filter.setFamily(AF_VSOCK);
        break;
      case 'tipc':
        filter.setFamily(AF_TIPC);
        break;
      case 'xdp':
        filter.setFamily(AF_XDP);
        break;
      case '4':
        filter.setFamily(AF_INET);
        break;
      case '6':
        filter.setFamily(AF_INET6);
        break;
      case '0':
        filter.setFamily(AF_PACKET);
        break;
      case 'a':
        stateFilter = SS_ALL;
        break;
      case 'l':
        stateFilter = (1 << SS_LISTEN) | (1 << SS_CLOSE);
        break;
      case 'f': {
        if (arg === 'help') return { stdout: USAGE, stderr: '', exitCode: 0 };
        const af = FAMILY_NAMES.get(arg);
        if (af === undefined) return usageError(`ss: "${arg}" is invalid family\n`);
        filter.setFamily(af);
        break;
      }
      case 'A':
        if (!sawQuery) {
          filter.dbs = 0;
          stateFilter = stateFilter !== 0 ? stateFilter : SS_CONN;
          sawQuery = true;
          filter.useDefault = false;
        }
        for (const name of arg.split(','))
          if (!filter.parseDb(name)) return usageError(`ss: "${name}" is illegal socket table id\n`);
        break;
      case 'H':
        showHeader = false;
        break;
      case 'o':
        details.timers = true;
        break;
      case 'e':
        details.timers = true;
        details.extended = true;
        break;
      case 'm':
        details.memory = true;
        break;
      case 'i':
        details.tcpInfo = true;
        break;
      case 's':
        summary = true;
        break;
      case 'v':
      case 'V':
        return { stdout: VERSION, stderr: '', exitCode: 0 };
      case 'h':
        return { stdout: USAGE, stderr: '', exitCode: 0 };
      case 'z':
      case 'Z':
        return fail('ss: SELinux is not enabled.\n');
      default: {
        const what = UNSUPPORTED[code];
        if (what === undefined) throw new Error(`ss: option ${code} without a handler`);
        return unsupported('ss', `option ${what}`);
      }
    }
  }

  // -s prints the summary first; alone (no table option, no filter) it is all ss prints.
  const summaryOut = summary ? summaryText(ns) : '';
  if (summary && filter.useDefault && parsed.words.length === 0)
    return { stdout: summaryOut, stderr: '', exitCode: 0 };

  // The state words: `state NAME` (the first one replaces -a/-l) and `exclude NAME`.
  const words = parsed.words;
  let sawStates = false;
  let w = 0;
  while (w < words.length) {
    const word = words[w]!;
    const exclude = word === 'exclude' || word === 'excl';
    if (word !== 'state' && !exclude) break;
    const name = words[w + 1];
    if (name === undefined) return fail('Command line is not complete. Try option "help"\n', 255);
    const mask = scanState(name);
    if (mask === undefined) return fail(`ss: wrong state name: ${name}\n`, 255);
    if (exclude) {
      if (!sawStates) stateFilter = SS_ALL;
      stateFilter &= ~mask;
    } else {
      if (!sawStates) stateFilter = 0;
      stateFilter |= mask;
    }
    sawStates = true;
    w += 2;
  }

  if (filter.useDefault) {
    stateFilter = stateFilter !== 0 ? stateFilter : SS_CONN;
    filter.parseDb('all');
  }
  if (stateFilter !== 0) filter.states = stateFilter;
  filter.mergeDefaults();
  if (filter.dbs === 0)
    return { stdout: summaryOut, stderr: 'ss: no socket tables to show with such filter.\n', exitCode: 0 };
  if (filter.families.size === 0)
    return { stdout: summaryOut, stderr: 'ss: no families to show with such filter.\n', exitCode: 0 };
  if (filter.states === 0)
    return { stdout: summaryOut, stderr: 'ss: no socket states to show with such filter.\n', exitCode: 0 };
  const expression = parseFilter(words.slice(w), { tcp: filter.has(TCP_DB), udp: filter.has(UDP_DB) });
  if (!expression.ok) {
    if ('unsupported' in expression) return unsupported('ss', expression.unsupported);
    return {
      stdout: summaryOut,
      stderr: expression.usage ? `${expression.stderr}${USAGE}` : expression.stderr,
      exitCode: expression.exitCode,
    };
  }

  // A column shows only when it can tell rows apart: several tables, several states.
  const columns = COLUMNS.filter(
    (column) =>
      (column.id !== 'netid' || (filter.dbs & (filter.dbs - 1)) !== 0) &&
      (column.id !== 'state' || (filter.states & (filter.states - 1)) !== 0),
  );

  let rows: Row[] = [];
  // packetlab's sockets are all IPv4; ss asks the kernel per family.
  if (filter.families.has(AF_INET)) {
    if (filter.has(UDP_DB)) rows.push(...udpRows(ns, filter.states));
    if (filter.has(TCP_DB)) rows.push(...tcpRows(ns, filter.states));
  }
  const matcher = expression.filter;
  if (matcher !== undefined) rows = rows.filter((row) => runFilter(matcher, row));
  const detailOptions: DetailOptions = { ...details, numeric };
  const wantDetails = details.timers || details.extended || details.memory || details.tcpInfo;

  const [low, high] = ephemeralRange(ns);
  const service = (port: number, proto: 'tcp' | 'udp'): string => {
    if (port === 0) return '*';
    if (numeric || (port >= low && port <= high)) return String(port);
    return portName(port, proto, false);
  };
  const token = (row: Row, id: ColumnId): string => {
    switch (id) {
      case 'netid':
        return row.netid;
      case 'state':
        return STATE_NAMES[row.state]!;
      case 'recvQ':
        return String(row.recvQ).padEnd(6);
      case 'sendQ':
        return String(row.sendQ).padEnd(6);
      case 'addr':
        return `${formatIpv4(row.localAddr)}:`;
      case 'serv':
        return service(row.localPort, row.netid);
      case 'raddr':
        return `${formatIpv4(row.remoteAddr)}:`;
      case 'rserv':
        return service(row.remotePort, row.netid);
      case 'ext':
        return wantDetails ? detailText(detailSource(ns, row.of), detailOptions, ns.sim.now) : '';
      case 'proc':
        return '';
      default:
        return id satisfies never;
    }
  };
  const lines: string[][] = [];
  if (showHeader) lines.push(columns.map((column) => column.header));
  for (const row of rows) {
    // inet_diag gives every socket it dumps a cookie (sock_gen_cookie), shown or not.
    socketIdentity(ns.sim, row.of.socket);
    lines.push(columns.map((column) => token(row, column.id)));
  }
  const stdout = lines.length > 0 ? render(columns, lines) : '';
  // DCCP left the kernel in 6.16: its dump request is refused, and ss says so.
  const inet = filter.families.has(AF_INET) || filter.families.has(AF_INET6);
  const stderr = filter.has(DCCP_DB) && inet ? 'RTNETLINK answers: Invalid argument\n' : '';
  return { stdout: summaryOut + stdout, stderr, exitCode: 0 };
}

/** net.core.rmem_default and wmem_default, a UDP socket's buffers (212992 on Linux 6.x). */
const UDP_BUFFER = 212_992;

/** What details.ts needs from a row's socket. */
function detailSource(ns: Namespace, of: RowSocket): DetailSource {
  const { ino, cookie } = socketIdentity(ns.sim, of.socket);
  switch (of.kind) {
    case 'udp':
      return { kind: 'udp', ino, cookie, rcvbuf: UDP_BUFFER, sndbuf: UDP_BUFFER };
    case 'listener':
      return {
        kind: 'listener',
        ino,
        cookie,
        rcvbuf: bufferSysctl(ns.sysctls, 'tcp_rmem', 1),
        sndbuf: bufferSysctl(ns.sysctls, 'tcp_wmem', 1),
      };
    case 'tcp': {
      const info = of.socket.info();
      const minisock = info.state === 'SYN_RECV' || info.state === 'TIME_WAIT';
      const wmemMax = bufferSysctl(ns.sysctls, 'tcp_wmem', 2);
      return { kind: 'tcp', ino, cookie, mark: of.socket.mark, wmemMax, info, minisock };
    }
    default:
      return of satisfies never;
  }
}

/** is_ephemeral's range: net.ipv4.ip_local_port_range, or 1024-4999 when it cannot be read. */
function ephemeralRange(ns: Namespace): [number, number] {
  const range = ns.sysctls.get('net.ipv4.ip_local_port_range');
  if (!range.ok) return [1024, 4999];
  const [low, high] = range.value.split(/\s+/).map(Number);
  return low !== undefined && high !== undefined && !Number.isNaN(low + high) ? [low, high] : [1024, 4999];
}
