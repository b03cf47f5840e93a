// `ss` as iproute2 6.1.0 prints a namespace's TCP and UDP sockets into a pipe (compact columns), with -o/-e/-m/-i
// details (ss/details.ts), the summary (-s, ss/summary.ts) and filter expressions (ss/filter.ts), with its command
// line in ss/command-line.ts and its columns in ss/render.ts; no -p processes, no other socket tables' rows.
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
import { lockedRcvbuf } from '../socket/tcp/rcv-autotune.ts';
import type { TcpSocket } from '../socket/tcp/socket.ts';
import { bufferSysctl, defaultCongestion } from '../socket/tcp/sysctl.ts';
import type { TcpListener } from '../socket/tcp/table.ts';
import type { UdpSocket } from '../socket/udp.ts';
import { formatIpv4, type Ipv4Addr } from '../wire/address.ts';
import { type CommandResult, fail, unsupported } from './result.ts';
import {
  AF_INET,
  AF_INET6,
  AF_PACKET,
  AF_TIPC,
  AF_UNIX,
  AF_VSOCK,
  AF_XDP,
  DCCP_DB,
  FAMILY_NAMES,
  Filter,
  MPTCP_DB,
  parseCommandLine,
  RAW_DB,
  SCTP_DB,
  SS_ALL,
  SS_CLOSE,
  SS_CONN,
  SS_ESTABLISHED,
  SS_LISTEN,
  SS_SYN_RECV,
  SS_TIME_WAIT,
  STATE_NAMES,
  scanState,
  TCP_DB,
  TCP_STATES,
  UDP_DB,
  UNSUPPORTED,
  USAGE,
  usageError,
  VERSION,
} from './ss/command-line.ts';
import { type DetailOptions, type DetailSource, detailText } from './ss/details.ts';
import { parseFilter, runFilter } from './ss/filter.ts';
import { socketIdentity } from './ss/identity.ts';
import { COLUMNS, type ColumnId, render } from './ss/render.ts';
import { summaryText } from './ss/summary.ts';

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

// ---- the command ---------------------------------------------------------------------------

export function ss(here: Namespace, args: string[]): CommandResult {
  const parsed = parseCommandLine(args);
  // -N NAME: netns_switch to another namespace of the simulation before anything is read.
  let ns = here;
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
      case 'N':
        if (!ns.sim.hasNamespace(arg))
          return fail(`Cannot open network namespace "${arg}": No such file or directory\n`, 1);
        ns = ns.sim.namespace(arg);
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
        rcvbuf:
          of.socket.receiveBuffer !== undefined
            ? lockedRcvbuf(of.socket.receiveBuffer)
            : bufferSysctl(ns.sysctls, 'tcp_rmem', 1),
        sndbuf: bufferSysctl(ns.sysctls, 'tcp_wmem', 1),
        congestion: of.socket.congestion ?? defaultCongestion(ns.sysctls),
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
