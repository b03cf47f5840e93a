// `conntrack` as conntrack-tools 1.4.7 behaves on Linux 6.x: -L/-D/-U/-G/-F/-C/-S/-E/-V/-h with the filters, output formats and messages of the real tool; no -I/-A (creating entries), no expectations (the table is always empty), no labels, zones or secmarks.
//
// The command line goes through glibc's getopt_long (getopt.ts) with conntrack.c's option
// string and long options, and the checks run in conntrack.c:do_parse's order: per-option errors
// as they come, then the command/option legality table (generic_opt_check), then the
// protocol's final check. Values are converted the C way (libc.ts): `--sport abc` is port 0,
// `-m foo` mark 0, `-s 10.1` the address 10.0.0.1, as on the real tool.
//
// Filtering mirrors nfct_filter (NAT, mark, network masks, then nfct_cmp over the attributes
// the command line set) plus the kernel-side dump filters (mark, family, and for -L the status).
// Deleting through -D or -F reports DESTROY events tagged `[USERSPACE] portid=N
// progname=conntrack`; portid is a per-simulation counter (Linux uses the process id or a
// random number). `conntrack -E` runs in the background: start it with spawn().
//
// Fixtures recorded on Linux 6.18 with conntrack-tools 1.4.7: test/tools/conntrack-fixtures.ts.

import type { Conntrack, ConntrackEventType } from '../netfilter/conntrack/conntrack.ts';
import { formatEntry, formatEvent, formatStats } from '../netfilter/conntrack/format.ts';
import {
  DIR_ORIGINAL,
  DIR_REPLY,
  IPCT_MARK,
  IPS_ASSURED,
  IPS_EXPECTED,
  IPS_FIXED_TIMEOUT,
  IPS_HW_OFFLOAD,
  IPS_OFFLOAD,
  IPS_SEEN_REPLY,
} from '../netfilter/conntrack/table.ts';
import { TCP_STATE_NAMES } from '../netfilter/conntrack/tcp.ts';
import {
  createTuple,
  IPPROTO_ICMP,
  IPPROTO_TCP,
  makeTuple,
  type Tuple,
} from '../netfilter/conntrack/tuple.ts';
import { PROTOCOLS as NETBASE_PROTOCOLS } from '../netfilter/iptables/netbase-data.ts';
import type { Namespace } from '../netns/namespace.ts';
import { formatSave, formatXml, hasPorts, natView, XML_FOOTER, XML_HEADER } from './conntrack-print.ts';
import { GETOPT_END, GETOPT_MISSING, GETOPT_UNKNOWN, Getopt, type LongOption } from './getopt.ts';
import { atoi, atol, inetAton, isIpv6, strtol, strtoul, u32 } from './libc.ts';
import type { CommandResult } from './result.ts';
import type { Capture } from './tcpdump.ts';

const PREFIX = 'conntrack v1.4.7 (conntrack-tools): ';
const TRY_HELP = "Try `conntrack -h' or 'conntrack --help' for more information.\n";
const LABELMAP_ERROR = 'nfct_labelmap_new: No such file or directory\n';

/** conntrack.c's usage(), as 1.4.7 prints it (typo included). */
const USAGE = `Command line interface for the connection tracking system. Version 1.4.7
Usage: conntrack [commands] [options]

Commands:
  -L [table] [options]\t\tList conntrack or expectation table
  -G [table] parameters\t\tGet conntrack or expectation
  -D [table] parameters\t\tDelete conntrack or expectation
  -I [table] parameters\t\tCreate a conntrack or expectation
  -U [table] parameters\t\tUpdate a conntrack
  -E [table] [options]\t\tShow events
  -F [table]\t\t\tFlush table
  -C [table]\t\t\tShow counter
  -S\t\t\t\tShow statistics

Tables: conntrack, expect, dying, unconfirmed

Conntrack parameters and options:
  -n, --src-nat ip\t\t\tsource NAT ip
  -g, --dst-nat ip\t\t\tdestination NAT ip
  -j, --any-nat ip\t\t\tsource or destination NAT ip
  -m, --mark mark\t\t\tSet mark
  -c, --secmark secmark\t\t\tSet selinux secmark
  -e, --event-mask eventmask\t\tEvent mask, eg. NEW,DESTROY
  -z, --zero \t\t\t\tZero counters while listing
  -o, --output type[,...]\t\tOutput format, eg. xml
  -l, --label label[,...]\t\tconntrack labels

Expectation parameters and options:
  --tuple-src ip\tSource address in expect tuple
  --tuple-dst ip\tDestination address in expect tuple

Updating parameters and options:
  --label-add label\tAdd label
  --label-del label\tDelete label

Common parameters and options:
  -s, --src, --orig-src ip\t\tSource address from original direction
  -d, --dst, --orig-dst ip\t\tDestination address from original direction
  -r, --reply-src ip\t\tSource addres from reply direction
  -q, --reply-dst ip\t\tDestination address from reply direction
  -p, --protonum proto\t\tLayer 4 Protocol, eg. 'tcp'
  -f, --family proto\t\tLayer 3 Protocol, eg. 'ipv6'
  -t, --timeout timeout\t\tSet timeout
  -u, --status status\t\tSet status, eg. ASSURED
  -w, --zone value\t\tSet conntrack zone
  --orig-zone value\t\tSet zone for original direction
  --reply-zone value\t\tSet zone for reply direction
  -b, --buffer-size\t\tNetlink socket buffer size
  --mask-src ip\t\t\tSource mask address
  --mask-dst ip\t\t\tDestination mask address

`;

// ---- commands and options (conntrack.h: enum ct_command and enum ct_options) -----------------

const CT_LIST = 1 << 0;
const CT_CREATE = 1 << 1;
const CT_UPDATE = 1 << 2;
const CT_DELETE = 1 << 3;
const CT_GET = 1 << 4;
const CT_FLUSH = 1 << 5;
const CT_EVENT = 1 << 6;
const CT_VERSION = 1 << 7;
const CT_HELP = 1 << 8;
const EXP_LIST = 1 << 9;
const EXP_CREATE = 1 << 10;
const EXP_DELETE = 1 << 11;
const EXP_GET = 1 << 12;
const EXP_FLUSH = 1 << 13;
const EXP_EVENT = 1 << 14;
const CT_COUNT = 1 << 15;
const EXP_COUNT = 1 << 16;
const CT_STATS = 1 << 17;
const EXP_STATS = 1 << 18;
const CT_ADD = 1 << 19;
const NUMBER_OF_CMD = 20;

const O_ORIG_SRC = 1 << 0;
const O_ORIG_DST = 1 << 1;
const O_REPL_SRC = 1 << 2;
const O_REPL_DST = 1 << 3;
const O_PROTO = 1 << 4;
const O_TIMEOUT = 1 << 5;
const O_STATUS = 1 << 6;
const O_ZERO = 1 << 7;
const O_EVENT_MASK = 1 << 8;
const O_EXP_SRC = 1 << 9;
const O_EXP_DST = 1 << 10;
const O_MASK_SRC = 1 << 11;
const O_MASK_DST = 1 << 12;
const O_MARK = 1 << 14;
const O_ID = 1 << 15;
const O_FAMILY = 1 << 16;
const O_SRC_NAT = 1 << 17;
const O_DST_NAT = 1 << 18;
const O_OUTPUT = 1 << 19;
const O_SECMARK = 1 << 20;
const O_BUFFERSIZE = 1 << 21;
const O_ANY_NAT = 1 << 22;
const O_ZONE = 1 << 23;
const O_LABEL = 1 << 24;
const O_ADD_LABEL = 1 << 25;
const O_DEL_LABEL = 1 << 26;
const O_ORIG_ZONE = 1 << 27;
const O_REPL_ZONE = 1 << 28;
const O_ORIG = O_ORIG_SRC | O_ORIG_DST;
const O_REPL = O_REPL_SRC | O_REPL_DST;
/** CT_COMPARISON: the options that make nfct_cmp compare an entry with the command line. */
const O_COMPARISON =
  O_PROTO |
  O_ORIG |
  O_REPL |
  O_MARK |
  O_SECMARK |
  O_STATUS |
  O_ID |
  O_ZONE |
  O_LABEL |
  O_ORIG_ZONE |
  O_REPL_ZONE;

/** optflags: an option's name in "Illegal option `--%s'" messages, by bit. */
const OPTION_NAMES = [
  'src',
  'dst',
  'reply-src',
  'reply-dst',
  'protonum',
  'timeout',
  'status',
  'zero',
  'event-mask',
  'tuple-src',
  'tuple-dst',
  'mask-src',
  'mask-dst',
  'nat-range',
  'mark',
  'id',
  'family',
  'src-nat',
  'dst-nat',
  'output',
  'secmark',
  'buffer-size',
  'any-nat',
  'zone',
  'label',
  'label-add',
  'label-del',
  'orig-zone',
  'reply-zone',
];

/**
 * commands_v_options: per command (by bit), per option (by bit), 0 illegal, 1 compulsory,
 * 2 optional, 3 decided by the address pairs. Columns in OPTION_NAMES order.
 */
const LEGAL: readonly string[] = [
  /* LIST */ '22222022000220202222202220022',
  /* CREATE */ '33331120000002200220000202022',
  /* UPDATE */ '22222220000220222222000022200',
  /* DELETE */ '22222220000220222222000220022',
  /* GET */ '33331000000000020002000020000',
  /* FLUSH */ '00000000000000002000000000000',
  /* EVENT */ '22222000200220202222222220022',
  /* VERSION */ '00000000000000000000000000000',
  /* HELP */ '00002000000000000000000000000',
  /* EXP_LIST */ '00000000000000002002000000000',
  /* EXP_CREATE */ '11221120011110000000000000000',
  /* EXP_DELETE */ '11221000000000000000000000000',
  /* EXP_GET */ '11221000000000000000000000000',
  /* EXP_FLUSH */ '00000000000000000000000000000',
  /* EXP_EVENT */ '00000000000000000002000000000',
  /* CT_COUNT */ '00000000000000000000000000000',
  /* EXP_COUNT */ '00000000000000000000000000000',
  /* CT_STATS */ '00000000000000000000000000000',
  /* EXP_STATS */ '00000000000000000000000000000',
  /* CT_ADD */ '33331120000002200220000202022',
];
const NO_COMMAND_ROW = '00000000000000000000000000000';

/** exit_msg: what print_stats writes after a command, by command bit. */
const EXIT_MESSAGES: Partial<Record<number, string>> = {
  [CT_LIST]: 'flow entries have been shown.',
  [CT_CREATE]: 'flow entries have been created.',
  [CT_UPDATE]: 'flow entries have been updated.',
  [CT_DELETE]: 'flow entries have been deleted.',
  [CT_GET]: 'flow entries have been shown.',
  [CT_EVENT]: 'flow events have been shown.',
  [EXP_LIST]: 'expectations have been shown.',
  [EXP_DELETE]: 'expectations have been shown.',
  [CT_ADD]: 'flow entries have been added.',
};

const ch = (c: string): number => c.charCodeAt(0);

/** conntrack 1.4.7's option string: every command takes an optional table name, attached. */
const OPTSTRING =
  ':L::I::U::D::G::E::F::A::hVs:d:r:q:p:t:u:e:a:z[:]:{:}:m:i:f:o:n::g::c:b:C::Sj::w:l:<:>::(:):';

const LONG_OPTIONS: readonly LongOption[] = (
  [
    ['dump', 2, 'L'],
    ['create', 2, 'I'],
    ['add', 2, 'A'],
    ['delete', 2, 'D'],
    ['update', 2, 'U'],
    ['get', 2, 'G'],
    ['flush', 2, 'F'],
    ['event', 2, 'E'],
    ['counter', 2, 'C'],
    ['stats', 0, 'S'],
    ['version', 0, 'V'],
    ['help', 0, 'h'],
    ['orig-src', 1, 's'],
    ['src', 1, 's'],
    ['orig-dst', 1, 'd'],
    ['dst', 1, 'd'],
    ['reply-src', 1, 'r'],
    ['reply-dst', 1, 'q'],
    ['protonum', 1, 'p'],
    ['timeout', 1, 't'],
    ['status', 1, 'u'],
    ['zero', 0, 'z'],
    ['event-mask', 1, 'e'],
    ['tuple-src', 1, '['],
    ['tuple-dst', 1, ']'],
    ['mask-src', 1, '{'],
    ['mask-dst', 1, '}'],
    ['nat-range', 1, 'a'],
    ['mark', 1, 'm'],
    ['secmark', 1, 'c'],
    ['id', 2, 'i'],
    ['family', 1, 'f'],
    ['src-nat', 2, 'n'],
    ['dst-nat', 2, 'g'],
    ['output', 1, 'o'],
    ['buffer-size', 1, 'b'],
    ['any-nat', 2, 'j'],
    ['zone', 1, 'w'],
    ['label', 1, 'l'],
    ['label-add', 1, '<'],
    ['label-del', 2, '>'],
    ['orig-zone', 1, '('],
    ['reply-zone', 1, ')'],
  ] as const
).map(([name, hasArg, val]) => ({ name, hasArg, val: ch(val) }));

/** cmd2type: a command letter's conntrack and expectation variants (0: not available). */
const COMMAND_TYPES: Record<string, readonly [number, number]> = {
  L: [CT_LIST, EXP_LIST],
  I: [CT_CREATE, EXP_CREATE],
  D: [CT_DELETE, EXP_DELETE],
  G: [CT_GET, EXP_GET],
  F: [CT_FLUSH, EXP_FLUSH],
  E: [CT_EVENT, EXP_EVENT],
  V: [CT_VERSION, CT_VERSION],
  h: [CT_HELP, CT_HELP],
  C: [CT_COUNT, EXP_COUNT],
  S: [CT_STATS, EXP_STATS],
  U: [CT_UPDATE, 0],
  A: [CT_ADD, 0],
};

const TABLE_CONNTRACK = 0;
const TABLE_EXPECT = 1;
const TABLE_DYING = 2;
const TABLE_UNCONFIRMED = 3;

const AF_UNSPEC = 0;
const AF_INET = 2;
const AF_INET6 = 10;

// Output flags (-o) and event flags (-e).
const O_XML = 1 << 0;
const O_EXT = 1 << 1;
const O_TMS = 1 << 2;
const O_ID_OUT = 1 << 3;
const O_KTMS = 1 << 4;
const O_CL = 1 << 5;
const O_SAVE = 1 << 6;
const EVENT_NEW = 1 << 0;
const EVENT_UPDATE = 1 << 1;
const EVENT_DESTROY = 1 << 2;

/** parse_array: the words -u, -e and -o accept, matched case-insensitively by prefix. */
const STATUS_WORDS: readonly (readonly [string, number])[] = [
  ['ASSURED', IPS_ASSURED],
  ['SEEN_REPLY', IPS_SEEN_REPLY],
  ['UNSET', 0],
  ['FIXED_TIMEOUT', IPS_FIXED_TIMEOUT],
  ['EXPECTED', IPS_EXPECTED],
  ['OFFLOAD', IPS_OFFLOAD],
  ['HW_OFFLOAD', IPS_HW_OFFLOAD],
];
const EVENT_WORDS: readonly (readonly [string, number])[] = [
  ['ALL', EVENT_NEW | EVENT_UPDATE | EVENT_DESTROY],
  ['NEW', EVENT_NEW],
  ['UPDATES', EVENT_UPDATE],
  ['DESTROY', EVENT_DESTROY],
];
const OUTPUT_WORDS: readonly (readonly [string, number])[] = [
  ['xml', O_XML],
  ['extended', O_EXT],
  ['timestamp', O_TMS],
  ['id', O_ID_OUT],
  ['ktimestamp', O_KTMS],
  ['labels', O_CL],
  ['userspace', 0],
  ['save', O_SAVE],
];

/** /etc/protocols as [number, name, ...aliases] (getprotobyname and getprotobynumber). */
const PROTOCOLS: readonly (readonly [number, ...string[]])[] = NETBASE_PROTOCOLS.split(' ').map((entry) => {
  const [number, names] = entry.split(':') as [string, string];
  return [Number(number), ...names.split('|')] as const;
});

// ---- protocol extensions (extensions/libct_proto_*.c) ----------------------------------------

/** The attributes a command line sets on its template entry (the nf_conntrack object `tmpl->ct`). */
interface Template {
  origSrc?: Address;
  origDst?: Address;
  replSrc?: Address;
  replDst?: Address;
  /** --mask-src / --mask-dst, or the netmask of `-s A/N` (tmpl->mask). */
  maskSrc?: Address;
  maskDst?: Address;
  snatAddr?: Address;
  dnatAddr?: Address;
  snatPort?: number;
  dnatPort?: number;
  l4proto?: number;
  replL4proto?: number;
  origSport?: number;
  origDport?: number;
  replSport?: number;
  replDport?: number;
  tcpState?: number;
  icmpType?: number;
  icmpCode?: number;
  icmpId?: number;
  status?: number;
  timeout?: number;
  zone?: number;
  origZone?: number;
  replZone?: number;
  secmark?: number;
  id?: number;
}

/** An address as the command line gave it: IPv4 in host order, or an IPv6 one (never matches). */
interface Address {
  readonly family: number;
  readonly v4: number;
}

type ParseOutcome = { ok: true; flags: number } | { ok: false; message: string };

interface ProtoHandler {
  readonly name: string;
  readonly protonum: number;
  readonly options: readonly (readonly [string, string])[];
  /** Per-command legality of the protocol options (rows by command bit, CT_LIST to EXP_EVENT). */
  readonly legal: readonly string[];
  readonly names: readonly string[];
  /** Flag pairs for the "3" entries, with the message when neither pair is complete. */
  readonly pairs?: readonly [number, number];
  readonly pairMessages?: readonly [string, string];
  readonly help: string;
  parse(code: string, arg: string, tmpl: Template, flags: number): ParseOutcome;
}

const PORT_HELP =
  '  --orig-port-src\t\toriginal source port\n  --orig-port-dst\t\toriginal destination port\n' +
  '  --reply-port-src\t\treply source port\n  --reply-port-dst\t\treply destination port\n' +
  '  --mask-port-src\t\tmask source port\n  --mask-port-dst\t\tmask destination port\n' +
  '  --tuple-port-src\t\texpectation tuple src port\n  --tuple-port-src\t\texpectation tuple dst port\n';

const PORT_OPTIONS: readonly (readonly [string, string])[] = [
  ['orig-port-src', '1'],
  ['sport', '1'],
  ['orig-port-dst', '2'],
  ['dport', '2'],
  ['reply-port-src', '3'],
  ['reply-port-dst', '4'],
  ['mask-port-src', '5'],
  ['mask-port-dst', '6'],
];

/** A port as the extensions read it: htons(atoi(arg)). */
const port = (arg: string): number => atoi(arg) & 0xffff;

function portOption(code: string, arg: string, tmpl: Template, flags: number, protonum: number): number {
  switch (code) {
    case '1':
      tmpl.origSport = port(arg);
      tmpl.l4proto = protonum;
      return flags | (1 << 0);
    case '2':
      tmpl.origDport = port(arg);
      tmpl.l4proto = protonum;
      return flags | (1 << 1);
    case '3':
      tmpl.replSport = port(arg);
      tmpl.replL4proto = protonum;
      return flags | (1 << 2);
    case '4':
      tmpl.replDport = port(arg);
      tmpl.replL4proto = protonum;
      return flags | (1 << 3);
    case '5':
      return flags | (1 << 4);
    case '6':
      return flags | (1 << 5);
    default:
      return flags;
  }
}

const TCP_LEGAL = [
  '222200200',
  '333300100',
  '222200200',
  '222200200',
  '333300200',
  '000000000',
  '222200200',
  '000000000',
  '000000000',
  '000000000',
  '110011011',
  '111100000',
  '111100000',
  '000000000',
  '000000000',
];
const UDP_LEGAL = [
  '22220000',
  '33330000',
  '22220000',
  '22220000',
  '33330000',
  '00000000',
  '22220000',
  '00000000',
  '00000000',
  '00000000',
  '11001111',
  '11110000',
  '11110000',
  '00000000',
  '00000000',
];
const ICMP_LEGAL = [
  '222',
  '112',
  '222',
  '222',
  '112',
  '000',
  '222',
  '000',
  '000',
  '000',
  '000',
  '000',
  '000',
  '000',
  '000',
];

function udpLike(name: string, protonum: number, help: string): ProtoHandler {
  return {
    name,
    protonum,
    options: [...PORT_OPTIONS, ['tuple-port-src', '7'], ['tuple-port-dst', '8']],
    legal: UDP_LEGAL,
    names: [
      'sport',
      'dport',
      'reply-port-src',
      'reply-port-dst',
      'mask-port-src',
      'mask-port-dst',
      'tuple-port-src',
      'tuple-port-dst',
    ],
    pairs: [(1 << 0) | (1 << 1), (1 << 2) | (1 << 3)],
    pairMessages: ["`--sport' and `--dport'", "`--reply-src-port' and `--reply-dst-port'"],
    help,
    parse: (code, arg, tmpl, flags) => {
      if (code === '7') return { ok: true, flags: flags | (1 << 6) };
      if (code === '8') return { ok: true, flags: flags | (1 << 7) };
      return { ok: true, flags: portOption(code, arg, tmpl, flags, protonum) };
    },
  };
}

const TCP: ProtoHandler = {
  name: 'tcp',
  protonum: IPPROTO_TCP,
  options: [...PORT_OPTIONS, ['state', '7'], ['tuple-port-src', '8'], ['tuple-port-dst', '9']],
  legal: TCP_LEGAL,
  names: [
    'sport',
    'dport',
    'reply-port-src',
    'reply-port-dst',
    'mask-port-src',
    'mask-port-dst',
    'state',
    'tuple-port-src',
    'tuple-port-dst',
  ],
  pairs: [(1 << 0) | (1 << 1), (1 << 2) | (1 << 3)],
  pairMessages: ["`--sport' and `--dport'", "`--reply-src-port' and `--reply-dst-port'"],
  help: `${PORT_HELP}  --state\t\t\tTCP state, fe. ESTABLISHED\n`,
  parse: (code, arg, tmpl, flags) => {
    if (code === '7') {
      // tcp_states: exact, case-sensitive names; LISTEN is the old name of SYN_SENT2.
      let state = TCP_STATE_NAMES.indexOf(arg as (typeof TCP_STATE_NAMES)[number]);
      if (arg === 'LISTEN') state = TCP_STATE_NAMES.indexOf('SYN_SENT2');
      if (state < 0) return { ok: false, message: `unknown TCP state \`${arg}'` };
      tmpl.tcpState = state;
      return { ok: true, flags: flags | (1 << 6) };
    }
    if (code === '8') return { ok: true, flags: flags | (1 << 7) };
    if (code === '9') return { ok: true, flags: flags | (1 << 8) };
    return { ok: true, flags: portOption(code, arg, tmpl, flags, IPPROTO_TCP) };
  },
};

function icmpLike(name: string, protonum: number, prefix: string): ProtoHandler {
  return {
    name,
    protonum,
    options: [
      [`${prefix}-type`, '1'],
      [`${prefix}-code`, '2'],
      [`${prefix}-id`, '3'],
    ],
    legal: ICMP_LEGAL,
    names: [`${prefix}-type`, `${prefix}-code`, `${prefix}-id`],
    help:
      `  --${prefix}-type\t\t\t${prefix} type\n  --${prefix}-code\t\t\t${prefix} code\n` +
      `  --${prefix}-id\t\t\t${prefix} id\n`,
    parse: (code, arg, tmpl, flags) => {
      tmpl.l4proto = protonum;
      if (code === '1') tmpl.icmpType = atoi(arg) & 0xff;
      else if (code === '2') tmpl.icmpCode = atoi(arg) & 0xff;
      else if (code === '3') tmpl.icmpId = atoi(arg) & 0xffff;
      else return { ok: true, flags };
      return { ok: true, flags: flags | (1 << (Number(code) - 1)) };
    },
  };
}

/** A protocol conntrack-tools knows by name but whose options packetlab does not take (GRE keys). */
function optionless(name: string, protonum: number, help: string): ProtoHandler {
  return {
    name,
    protonum,
    options: [],
    legal: [],
    names: [],
    help,
    parse: (_code, _arg, _tmpl, flags) => ({ ok: true, flags }),
  };
}

/**
 * proto_list in lookup order (register_proto prepends). Deviation: SCTP's and DCCP's --state,
 * SCTP's --orig-vtag/--reply-vtag and GRE's key options are not taken (packetlab tracks those
 * protocols generically); their help text is the real one.
 */
const HANDLERS: readonly ProtoHandler[] = [
  optionless(
    'gre',
    47,
    '  --orig-key-src\t\toriginal source key\n  --orig-key-dst\t\toriginal destination key\n' +
      '  --reply-key-src\t\treply source key\n  --reply-key-dst\t\treply destination key\n' +
      '  --mask-key-src\t\tmask source key\n  --mask-key-dst\t\tmask destination key\n' +
      '  --tuple-key-src\t\texpectation tuple src key\n  --tuple-key-src\t\texpectation tuple dst key\n',
  ),
  icmpLike('icmpv6', 58, 'icmpv6'),
  icmpLike('icmp', IPPROTO_ICMP, 'icmp'),
  udpLike('dccp', 33, `${PORT_HELP}  --state\t\t\tDCCP state, fe. RESPOND\n`),
  udpLike(
    'sctp',
    132,
    `${PORT_HELP}  --state\t\t\tSCTP state, fe. ESTABLISHED\n  --orig-vtag\t\toriginal verification tag\n` +
      '  --reply-vtag\t\treply verification tag\n',
  ),
  udpLike('udplite', 136, PORT_HELP),
  udpLike('udp', 17, PORT_HELP),
  TCP,
];

/** ct_proto_unknown: any other protocol number. */
const UNKNOWN: ProtoHandler = optionless('unknown', 0, '  no options (unsupported)\n');

/** findproto: a known extension by name (any case), a name from /etc/protocols, or a number 0-255. */
function findProto(name: string): { handler: ProtoHandler; protonum: number } | undefined {
  const lower = name.toLowerCase();
  const known = HANDLERS.find((h) => h.name === lower);
  if (known !== undefined) return { handler: known, protonum: known.protonum };
  const entry = PROTOCOLS.find((p) => p.slice(1).includes(name));
  if (entry !== undefined) return { handler: UNKNOWN, protonum: entry[0] };
  const parsed = strtoul(name, 0);
  if (parsed.end === 0 || parsed.end !== name.length || parsed.value > 255n) return undefined;
  const protonum = Number(parsed.value);
  const handler = HANDLERS.find((h) => h.protonum === protonum);
  return { handler: handler ?? UNKNOWN, protonum };
}

// ---- parsing (conntrack.c: do_parse) ---------------------------------------------------------

/** A parsed command line. */
interface ParsedCommand {
  readonly command: number;
  readonly cmd: number;
  readonly options: number;
  readonly family: number;
  readonly type: number;
  readonly protonum: number;
  readonly handler: ProtoHandler | undefined;
  readonly tmpl: Template;
  readonly mark: { readonly value: number; readonly mask: number };
  readonly statusFilter: { readonly value: number; readonly mask: number } | undefined;
  readonly eventMask: number;
  readonly outputMask: number;
  readonly bufferSize: bigint;
}

/** What a run prints; stderr collects warnings printed before the outcome. */
interface Output {
  stdout: string;
  stderr: string;
}

function exitError(out: Output, status: 1 | 2, message: string): CommandResult {
  let stderr = `${out.stderr}${PREFIX}${message}\n`;
  if (status === 2) stderr += TRY_HELP;
  return { stdout: out.stdout, stderr, exitCode: status };
}

/**
 * do_parse_parameter: SRC_NAT and DST_NAT are tried first (any prefix of them, even "s" or "d",
 * only warns), then the words in order, by case-insensitive prefix.
 */
function parseWord(
  word: string,
  words: readonly (readonly [string, number])[],
  out: Output,
): number | undefined {
  const prefixOf = (full: string): boolean => full.toLowerCase().startsWith(word.toLowerCase());
  if (prefixOf('SRC_NAT')) {
    out.stderr += 'WARNING: ignoring SRC_NAT, use --src-nat instead\n';
    return 0;
  }
  if (prefixOf('DST_NAT')) {
    out.stderr += 'WARNING: ignoring DST_NAT, use --dst-nat instead\n';
    return 0;
  }
  for (const [full, value] of words) if (prefixOf(full)) return value;
  return undefined;
}

/** parse_parameter: comma-separated words; the error quotes the rest of the list from the bad word. */
function parseWords(
  arg: string,
  words: readonly (readonly [string, number])[],
  out: Output,
): number | string {
  let value = 0;
  let rest = arg;
  for (;;) {
    const comma = rest.indexOf(',');
    const word = comma >= 0 ? rest.slice(0, comma) : rest;
    if (word === '') return rest;
    const bits = parseWord(word, words, out);
    if (bits === undefined) return rest;
    value |= bits;
    if (comma < 0) return value;
    rest = rest.slice(comma + 1);
  }
}

/** parse_parameter_mask for -u: `!WORD` goes to the mask only, UNREPLIED means SEEN_REPLY unset. */
function parseStatus(arg: string, status: { value: number; mask: number }, out: Output): string | undefined {
  let rest = arg;
  for (;;) {
    const comma = rest.indexOf(',');
    if (comma === 0) return rest;
    let word = comma >= 0 ? rest.slice(0, comma) : rest;
    const negated = word.startsWith('!');
    if (negated) {
      word = word.slice(1);
      if (comma >= 0 && word === '') return rest.slice(1);
    }
    if (!negated && word.startsWith('UNREPLIED')) {
      status.mask |= IPS_SEEN_REPLY;
    } else {
      const bits = word === '' ? undefined : parseWord(word, STATUS_WORDS, out);
      if (bits === undefined) return negated ? rest.slice(1) : rest;
      if (negated) status.mask |= bits;
      else status.value |= bits;
    }
    if (comma < 0) return undefined;
    rest = rest.slice(comma + 1);
  }
}

/** parse_addr: an optional /N (strtol; negative or trailing junk is invalid) and inet_aton, else IPv6. */
function parseAddress(text: string): { address: Address | undefined; mask: number } {
  // conntrack copies the argument into a buffer of INET6_ADDRSTRLEN (46) bytes first.
  let buf = text.slice(0, 45);
  let mask = -1;
  const slash = buf.indexOf('/');
  if (slash >= 0) {
    const after = buf.slice(slash + 1);
    const parsed = strtol(after, 10);
    const value = Number(BigInt.asIntN(32, parsed.value));
    mask = value < 0 || parsed.end !== after.length ? -2 : value;
    buf = buf.slice(0, slash);
  }
  const v4 = inetAton(buf);
  if (v4 !== undefined) return { address: { family: AF_INET, v4 }, mask: mask > 32 ? -2 : mask };
  if (isIpv6(buf)) return { address: { family: AF_INET6, v4: 0 }, mask: mask > 128 ? -2 : mask };
  return { address: undefined, mask };
}

/** The options whose address may carry a /N (opt2maskopt). */
const MASK_OPTION: Partial<Record<string, '{' | '}'>> = { s: '{', d: '}', '[': '{', ']': '}' };
const ADDRESS_OPTION_BIT: Record<string, number> = {
  s: O_ORIG_SRC,
  d: O_ORIG_DST,
  r: O_REPL_SRC,
  q: O_REPL_DST,
  '[': O_EXP_SRC,
  ']': O_EXP_DST,
  '{': O_MASK_SRC,
  '}': O_MASK_DST,
  n: O_SRC_NAT,
  g: O_DST_NAT,
  j: O_ANY_NAT,
};

function prefixToMask(bits: number): number {
  return bits <= 0 ? 0 : (0xffff_ffff << (32 - Math.min(bits, 32))) >>> 0;
}

/** get_long_opt: the first long name of an option letter. */
function longName(letter: string): string {
  return LONG_OPTIONS.find((o) => o.val === ch(letter))?.name ?? 'unknown';
}

interface ParseState {
  options: number;
  family: number;
  tmpl: Template;
}

/** nfct_parse_addr_from_opt: an address option, with the family check and the CIDR rules. */
function addressOption(letter: string, arg: string, state: ParseState): string | undefined {
  const { address, mask } = parseAddress(arg);
  if (address === undefined) return `Invalid IP address \`${arg}'`;
  if (state.family === AF_UNSPEC) state.family = address.family;
  else if (state.family !== address.family) return 'mismatched address family';
  const maskOption = MASK_OPTION[letter];
  if (mask !== -1 && maskOption === undefined)
    return `CIDR notation unavailable for \`--${longName(letter)}'`;
  if (mask === -2) return 'Invalid netmask';
  state.options |= ADDRESS_OPTION_BIT[letter]!;
  const tmpl = state.tmpl;
  switch (letter) {
    case 's':
      tmpl.origSrc = address;
      break;
    case 'd':
      tmpl.origDst = address;
      break;
    case 'r':
      tmpl.replSrc = address;
      break;
    case 'q':
      tmpl.replDst = address;
      break;
    case '{':
      tmpl.maskSrc = address;
      break;
    case '}':
      tmpl.maskDst = address;
      break;
    case 'n':
      tmpl.snatAddr = address;
      break;
    case 'g':
      tmpl.dnatAddr = address;
      break;
    case 'j':
      tmpl.snatAddr = address;
      tmpl.dnatAddr = address;
      break;
    default:
      // --tuple-src/--tuple-dst describe expectations, which packetlab does not create.
      break;
  }
  if (mask === -1 || maskOption === undefined) return undefined;
  if ((address.family === AF_INET && mask === 32) || (address.family === AF_INET6 && mask === 128))
    return undefined;
  const netmask: Address = {
    family: address.family,
    v4: address.family === AF_INET ? prefixToMask(mask) : 0,
  };
  state.options |= ADDRESS_OPTION_BIT[maskOption]!;
  if (maskOption === '{') tmpl.maskSrc = netmask;
  else tmpl.maskDst = netmask;
  return undefined;
}

/** split_address_and_port for --src-nat/--dst-nat/--any-nat: `ip`, `ip:port` or `[ip6]:port`. */
function natOption(letter: string, arg: string, state: ParseState): string | undefined {
  let address = arg;
  let portText: string | undefined;
  const bracket = arg.indexOf('[');
  let cursor = -1;
  if (bracket >= 0) {
    const close = arg.indexOf(']', bracket + 1);
    if (close === bracket + 1) return 'No IPv6 address specified';
    if (close < 0) return "No closing ']' around IPv6 address";
    cursor = arg.indexOf(':', close);
    if (cursor >= 0) address = arg.slice(bracket + 1, close);
  } else {
    cursor = arg.indexOf(':');
    if (cursor >= 0 && !arg.slice(cursor + 1).includes(':')) address = arg.slice(0, cursor);
    else cursor = -1;
  }
  if (cursor >= 0) {
    portText = arg.slice(cursor + 1);
    if (portText === '') return "No port specified after `:'";
    if (!/^[0-9]+$/.test(portText) || Number(portText) > 65535) return `Invalid port \`${portText}'`;
  }
  const error = addressOption(letter, address, state);
  if (error !== undefined) return error;
  if (portText !== undefined) {
    const value = Number(portText) & 0xffff;
    if (letter === 'n' || letter === 'j') state.tmpl.snatPort = value;
    if (letter === 'g' || letter === 'j') state.tmpl.dnatPort = value;
  }
  return undefined;
}

/** generic_opt_check: the first illegal or missing option in bit order, then the address pairs. */
function checkOptions(
  flags: number,
  row: string,
  names: readonly string[],
  pairs: readonly [number, number] | undefined,
): { error: string } | { partial: number } | undefined {
  let special = false;
  for (let i = 0; i < names.length; i++) {
    const legality = row[i] ?? '0';
    if ((flags & (1 << i)) === 0) {
      if (legality === '1')
        return { error: `You need to supply the \`--${names[i]}' option for this command` };
    } else if (legality === '0') {
      return { error: `Illegal option \`--${names[i]}' with this command` };
    }
    if (legality === '3') special = true;
  }
  if (!special || pairs === undefined) return undefined;
  let partial = -1;
  for (let i = 0; i < pairs.length; i++) {
    if ((flags & pairs[i]!) === pairs[i]) return undefined;
    if ((flags & pairs[i]!) !== 0 && partial < 0) partial = i;
  }
  return { partial };
}

function bitIndex(command: number): number {
  for (let i = 0; i < NUMBER_OF_CMD; i++) if ((command & (1 << i)) !== 0) return i;
  return NUMBER_OF_CMD;
}

function parse(argv: string[], out: Output): ParsedCommand | CommandResult {
  const state: ParseState = { options: 0, family: AF_UNSPEC, tmpl: {} };
  const tmpl = state.tmpl;
  let command = 0;
  let type = TABLE_CONNTRACK;
  let protonum = 0;
  let handler: ProtoHandler | undefined;
  let l4flags = 0;
  const status = { value: 0, mask: 0 };
  let statusSet = false;
  const mark = { value: 0, mask: 0 };
  let eventMask = 0;
  let outputMask = 0;
  let bufferSize = 0n;
  /** Where each merged protocol block's option values start (merge_options' option_offset). */
  const offsets = new Map<ProtoHandler, number>();
  let globalOffset = 0;
  const getopt = new Getopt(['conntrack', ...argv], OPTSTRING, LONG_OPTIONS);
  const args = getopt.argv;

  /** check_type / get_optional_arg: a table name right after the command, unless one was attached. */
  const optionalArg = (): string | undefined => {
    if (getopt.optarg !== null) return undefined;
    const next = args[getopt.optind];
    if (next !== undefined && next[0] !== '-' && next[0] !== '!') {
      getopt.optind++;
      return next;
    }
    return undefined;
  };
  const checkType = (): number | string => {
    const table = optionalArg();
    if (table === undefined) return TABLE_CONNTRACK;
    if ('expect'.startsWith(table)) return TABLE_EXPECT;
    if ('conntrack'.startsWith(table)) return TABLE_CONNTRACK;
    if ('dying'.startsWith(table)) return TABLE_DYING;
    if ('unconfirmed'.startsWith(table)) return TABLE_UNCONFIRMED;
    return `unknown type \`${table}'`;
  };
  const addCommand = (next: number): string | undefined => {
    if (command !== 0) return 'Invalid commands combination';
    command = next;
    return undefined;
  };

  for (;;) {
    const c = getopt.next();
    if (c === GETOPT_END) break;
    const letter = String.fromCharCode(c);
    const arg = getopt.optarg ?? '';
    let error: string | undefined;
    switch (letter) {
      case 'L': {
        const table = checkType();
        if (typeof table === 'string') return exitError(out, 2, table);
        type = table;
        error = addCommand(table === TABLE_EXPECT ? EXP_LIST : CT_LIST);
        break;
      }
      case 'I':
      case 'D':
      case 'G':
      case 'F':
      case 'E':
      case 'V':
      case 'h':
      case 'C':
      case 'S':
      case 'U':
      case 'A': {
        const table = checkType();
        if (typeof table === 'string') return exitError(out, 2, table);
        type = table;
        if (table === TABLE_DYING || table === TABLE_UNCONFIRMED) {
          return exitError(out, 2, "Can't do that command with tables `dying' and `unconfirmed'");
        }
        const next = COMMAND_TYPES[letter]![table === TABLE_EXPECT ? 1 : 0];
        if (next === 0) {
          const on = table === TABLE_CONNTRACK ? 'conntrack' : 'expectations';
          return exitError(out, 2, `Can't do --${longName(letter)} on ${on}`);
        }
        error = addCommand(next);
        break;
      }
      case 's':
      case 'd':
      case 'r':
      case 'q':
      case '[':
      case ']':
      case '{':
      case '}':
        error = addressOption(letter, arg, state);
        break;
      case 'p': {
        state.options |= O_PROTO;
        const found = findProto(arg);
        if (found === undefined) return exitError(out, 2, `\`${arg}' unsupported protocol`);
        handler = found.handler;
        protonum = found.protonum;
        globalOffset += 256;
        offsets.set(handler, globalOffset);
        getopt.longopts = [
          ...getopt.longopts,
          ...handler.options.map(([name, code]) => ({
            name,
            hasArg: 1 as const,
            val: ch(code) + globalOffset,
          })),
        ];
        tmpl.l4proto = protonum & 0xff;
        break;
      }
      case 't':
        state.options |= O_TIMEOUT;
        tmpl.timeout = u32(atol(arg));
        break;
      case 'u': {
        state.options |= O_STATUS;
        const bad = parseStatus(arg, status, out);
        if (bad !== undefined) return exitError(out, 2, `Bad parameter \`${bad}'`);
        tmpl.status = status.value;
        if (status.mask === 0) status.mask = status.value;
        statusSet = true;
        break;
      }
      case 'e': {
        state.options |= O_EVENT_MASK;
        const bits = parseWords(arg, EVENT_WORDS, out);
        if (typeof bits === 'string') return exitError(out, 2, `Bad parameter \`${bits}'`);
        eventMask |= bits;
        break;
      }
      case 'o': {
        state.options |= O_OUTPUT;
        const bits = parseWords(arg, OUTPUT_WORDS, out);
        if (typeof bits === 'string') return exitError(out, 2, `Bad parameter \`${bits}'`);
        outputMask |= bits;
        // No /etc/xtables/connlabel.conf: each attempt to load the label map fails aloud.
        if ((outputMask & O_CL) !== 0) out.stderr += LABELMAP_ERROR;
        if (
          (outputMask & O_SAVE) !== 0 &&
          (outputMask & (O_EXT | O_TMS | O_ID_OUT | O_KTMS | O_CL | O_XML)) !== 0
        ) {
          return exitError(out, 1, 'cannot combine save output with any other output type, use -o save only');
        }
        break;
      }
      case 'z':
        state.options |= O_ZERO;
        break;
      case 'n':
      case 'g':
      case 'j': {
        state.options |= ADDRESS_OPTION_BIT[letter]!;
        const value = optionalArg();
        if (value !== undefined) error = natOption(letter, value, state);
        break;
      }
      case 'w':
        state.options |= O_ZONE;
        tmpl.zone = u32(strtoul(arg).value) & 0xffff;
        break;
      case '(':
        state.options |= O_ORIG_ZONE;
        tmpl.origZone = u32(strtoul(arg).value) & 0xffff;
        break;
      case ')':
        state.options |= O_REPL_ZONE;
        tmpl.replZone = u32(strtoul(arg).value) & 0xffff;
        break;
      case 'i':
        // 1.4.7 converts optarg without looking: `--id` without `=N` passes NULL to strtoul.
        if (getopt.optarg === null)
          return { stdout: out.stdout, stderr: 'Segmentation fault\n', exitCode: 139 };
        state.options |= O_ID;
        tmpl.id = u32(strtoul(arg).value);
        break;
      case 'c':
        state.options |= O_SECMARK;
        tmpl.secmark = u32(strtoul(arg).value);
        break;
      case 'm': {
        // 1.4.7's parse_u32_mask: strtoul for the value, and for a mask after '/'; no checks.
        state.options |= O_MARK;
        const value = strtoul(arg);
        mark.value = u32(value.value);
        mark.mask = arg[value.end] === '/' ? u32(strtoul(arg.slice(value.end + 1)).value) : 0xffff_ffff;
        break;
      }
      case 'l':
      case '<':
      case '>': {
        // Without a label map every name is unknown; 1.4.7 says so at once.
        state.options |= letter === 'l' ? O_LABEL : letter === '<' ? O_ADD_LABEL : O_DEL_LABEL;
        out.stderr += LABELMAP_ERROR;
        const value = letter === '>' ? optionalArg() : arg;
        if (value !== undefined) return exitError(out, 2, `unknown label '${value.split(',')[0]}'`);
        break;
      }
      case 'a':
        out.stderr += 'WARNING: ignoring -a, deprecated option.\n';
        break;
      case 'f':
        state.options |= O_FAMILY;
        if (arg.startsWith('ipv4')) error = setFamily(state, AF_INET);
        else if (arg.startsWith('ipv6')) error = setFamily(state, AF_INET6);
        else return exitError(out, 2, `\`${arg}' unsupported protocol`);
        break;
      case 'b':
        state.options |= O_BUFFERSIZE;
        bufferSize = atol(arg);
        break;
      case String.fromCharCode(GETOPT_MISSING):
        return exitError(out, 2, `option \`${args[getopt.optind - 1]}' requires an argument`);
      case String.fromCharCode(GETOPT_UNKNOWN):
        return exitError(out, 2, `unknown option \`${args[getopt.optind - 1]}'`);
      default: {
        // A protocol option: only the current protocol's block is parsed (h->parse_opts).
        const offset = handler === undefined ? undefined : offsets.get(handler);
        if (handler !== undefined && offset !== undefined) {
          const code = String.fromCharCode(c - offset);
          if (handler.options.some(([, optionCode]) => optionCode === code)) {
            const outcome = handler.parse(code, arg, tmpl, l4flags);
            if (!outcome.ok) return exitError(out, 2, outcome.message);
            l4flags = outcome.flags;
          }
        }
        break;
      }
    }
    if (error !== undefined) return exitError(out, 2, error);
  }

  let family = state.family;
  if (family === AF_UNSPEC) {
    const keepsUnspec = [CT_LIST, CT_UPDATE, CT_DELETE, CT_GET, CT_FLUSH, CT_EVENT].includes(command);
    if (!keepsUnspec) family = AF_INET;
  }
  const options = state.options;
  if ((options & O_ANY_NAT) !== 0 && (options & (O_SRC_NAT | O_DST_NAT)) !== 0) {
    return exitError(out, 2, "cannot specify `--src-nat' or `--dst-nat' with `--any-nat'");
  }
  const cmd = bitIndex(command);
  const check = checkOptions(options, LEGAL[cmd] ?? NO_COMMAND_ROW, OPTION_NAMES, [O_ORIG, O_REPL]);
  if (check !== undefined) {
    if ('error' in check) return exitError(out, 2, check.error);
    const which = check.partial === 1 ? "`--reply-src' and `--reply-dst'" : "`--src' and `--dst'";
    return exitError(out, 2, `you have to specify ${which}`);
  }
  if ((command & CT_HELP) === 0 && handler !== undefined && handler.names.length > 0) {
    const protoCheck = checkOptions(l4flags, handler.legal[cmd] ?? '', handler.names, handler.pairs);
    if (protoCheck !== undefined) {
      if ('error' in protoCheck) return exitError(out, 2, protoCheck.error);
      const messages = handler.pairMessages ?? ['', ''];
      return exitError(out, 2, `you have to specify ${messages[protoCheck.partial === 1 ? 1 : 0]}`);
    }
  }
  return {
    command,
    cmd,
    options,
    family,
    type,
    protonum,
    handler,
    tmpl,
    mark,
    statusFilter: statusSet ? { value: status.value, mask: status.mask } : undefined,
    eventMask,
    outputMask,
    bufferSize,
  };
}

function setFamily(state: ParseState, family: number): string | undefined {
  if (state.family === AF_UNSPEC) state.family = family;
  else if (state.family !== family) return 'mismatched address family';
  return undefined;
}

// ---- filtering (conntrack.c: nfct_filter and the kernel's dump filters) ---------------------

/** What an entry looks like to the filters at one moment (a dump, or an event message). */
interface EntryView {
  readonly index: number;
  readonly protocol: number;
  readonly status: number;
  readonly mark: number;
  /** Events carry the mark only when it is set or has just changed. */
  readonly markSet: boolean;
  readonly orig: Tuple;
  readonly reply: Tuple;
  readonly timeout: number;
  readonly id: number;
  readonly tcpState: number;
}

function viewOf(ct: Conntrack, index: number, now: number, markSet = true): EntryView {
  return {
    index,
    protocol: ct.protocol(index),
    status: ct.status(index),
    mark: ct.mark(index),
    markSet,
    orig: ct.tuple(index, DIR_ORIGINAL, createTuple()),
    reply: ct.tuple(index, DIR_REPLY, createTuple()),
    timeout: ct.timeoutSeconds(index, now),
    id: ct.id(index),
    tcpState: ct.tcpState(index),
  };
}

const addressIs = (given: Address | undefined, actual: number): boolean =>
  given === undefined || (given.family === AF_INET && given.v4 === actual);

/** filter_nat: --src-nat/--dst-nat/--any-nat, with or without an address and port. */
function natFilterPasses(p: ParsedCommand, e: EntryView): boolean {
  const options = p.options;
  const any = (options & O_ANY_NAT) !== 0;
  const checkSrc = any || (options & O_SRC_NAT) !== 0;
  const checkDst = any || (options & O_DST_NAT) !== 0;
  if (!checkSrc && !checkDst) return true;
  const nat = natView(e.status, e.orig, e.reply);
  const tmpl = p.tmpl;
  const side = (
    addr: Address | undefined,
    portWanted: number | undefined,
    isNat: boolean,
    isPat: boolean,
    actualAddr: number,
    actualPort: number,
  ): boolean => {
    let has = false;
    if (addr !== undefined) has = isNat && addr.family === AF_INET && addr.v4 === actualAddr;
    if (portWanted !== undefined) {
      const portMatches = isPat && portWanted === actualPort;
      if (addr !== undefined && has && !portMatches) has = false;
      if (addr === undefined && portMatches) has = true;
    }
    if (addr === undefined && portWanted === undefined && (isNat || isPat)) has = true;
    return has;
  };
  const hasSrc =
    checkSrc && side(tmpl.snatAddr, tmpl.snatPort, nat.snat, nat.spat, e.reply.dst, e.reply.dstPort);
  const hasDst =
    checkDst && side(tmpl.dnatAddr, tmpl.dnatPort, nat.dnat, nat.dpat, e.reply.src, e.reply.srcPort);
  if (any) return hasSrc || hasDst;
  if ((options & O_SRC_NAT) !== 0 && (options & O_DST_NAT) !== 0) return hasSrc && hasDst;
  if ((options & O_SRC_NAT) !== 0) return hasSrc;
  return hasDst;
}

/** The network filter of --mask-src/--mask-dst (or -s/-d with a prefix shorter than /32). */
function networkPasses(given: Address | undefined, netmask: Address | undefined, actual: number): boolean {
  if (netmask === undefined) return true;
  if (given === undefined || given.family !== AF_INET || netmask.family !== AF_INET) return false;
  return (actual & netmask.v4) >>> 0 === (given.v4 & netmask.v4) >>> 0;
}

/**
 * nfct_filter: NAT, mark, network, then (with any comparison option) nfct_cmp, which compares
 * only what the command line set. `withTimeout`: -D and -U also compare -t exactly.
 */
function filterPasses(p: ParsedCommand, e: EntryView, withTimeout: boolean): boolean {
  const tmpl = p.tmpl;
  if (!natFilterPasses(p, e)) return false;
  if ((p.options & O_MARK) !== 0 && !(e.markSet && (e.mark & p.mark.mask) >>> 0 === p.mark.value))
    return false;
  if ((p.options & O_MASK_SRC) !== 0 && !networkPasses(tmpl.origSrc, tmpl.maskSrc, e.orig.src)) return false;
  if ((p.options & O_MASK_DST) !== 0 && !networkPasses(tmpl.origDst, tmpl.maskDst, e.orig.dst)) return false;
  if ((p.options & O_COMPARISON) === 0) return true;
  // With a mask, the address is compared through the network filter only (nfct_network_attr_prepare).
  if ((p.options & O_MASK_SRC) === 0 && !addressIs(tmpl.origSrc, e.orig.src)) return false;
  if ((p.options & O_MASK_DST) === 0 && !addressIs(tmpl.origDst, e.orig.dst)) return false;
  if (!addressIs(tmpl.replSrc, e.reply.src) || !addressIs(tmpl.replDst, e.reply.dst)) return false;
  if (tmpl.l4proto !== undefined && tmpl.l4proto !== e.protocol) return false;
  if (tmpl.replL4proto !== undefined && tmpl.replL4proto !== e.protocol) return false;
  const ports = hasPorts(e.protocol);
  const portIs = (wanted: number | undefined, actual: number): boolean =>
    wanted === undefined || (ports && wanted === actual);
  if (!portIs(tmpl.origSport, e.orig.srcPort) || !portIs(tmpl.origDport, e.orig.dstPort)) return false;
  if (!portIs(tmpl.replSport, e.reply.srcPort) || !portIs(tmpl.replDport, e.reply.dstPort)) return false;
  if (tmpl.tcpState !== undefined && !(e.protocol === IPPROTO_TCP && e.tcpState === tmpl.tcpState))
    return false;
  const icmp = e.protocol === IPPROTO_ICMP;
  if (tmpl.icmpType !== undefined && !(icmp && e.orig.dstPort >>> 8 === tmpl.icmpType)) return false;
  if (tmpl.icmpCode !== undefined && !(icmp && (e.orig.dstPort & 0xff) === tmpl.icmpCode)) return false;
  if (tmpl.icmpId !== undefined && !(icmp && e.orig.srcPort === tmpl.icmpId)) return false;
  if (tmpl.status !== undefined && (tmpl.status & e.status) !== tmpl.status) return false;
  if (tmpl.id !== undefined && tmpl.id !== e.id) return false;
  // packetlab has one zone (0), which the kernel does not report: a non-zero zone matches nothing.
  if ((tmpl.zone ?? 0) !== 0 || (tmpl.origZone ?? 0) !== 0 || (tmpl.replZone ?? 0) !== 0) return false;
  if (withTimeout && tmpl.timeout !== undefined && tmpl.timeout !== e.timeout) return false;
  return true;
}

/** The filters the kernel applies to a dump request: family, mark, and (for -L) the status. */
function kernelPasses(p: ParsedCommand, e: EntryView, withStatus: boolean): boolean {
  if (p.family === AF_INET6) return false;
  if ((p.options & O_MARK) !== 0 && (e.mark & p.mark.mask) >>> 0 !== p.mark.value) return false;
  const status = p.statusFilter;
  if (withStatus && status !== undefined && (e.status & status.mask) !== status.value) return false;
  return true;
}

// ---- running -------------------------------------------------------------------------------

interface OutputStyle {
  readonly extended: boolean;
  readonly showId: boolean;
  readonly xml: boolean;
  readonly save: boolean;
}

function styleOf(p: ParsedCommand): OutputStyle {
  return {
    extended: (p.outputMask & O_EXT) !== 0,
    showId: (p.outputMask & O_ID_OUT) !== 0,
    xml: (p.outputMask & O_XML) !== 0,
    save: (p.outputMask & O_SAVE) !== 0,
  };
}

/** One listed entry in the chosen format (without newline). */
function entryLine(
  ct: Conntrack,
  index: number,
  now: number,
  style: OutputStyle,
  saveType: ConntrackEventType,
): string {
  if (style.save) return formatSave(ct, index, now, saveType);
  if (style.xml) return formatXml(ct, index, now, undefined);
  return formatEntry(ct, index, now, { extended: style.extended, showId: style.showId });
}

/** Pseudo process ids for the [USERSPACE] portid of events our own commands cause. */
const portids = new WeakMap<object, number>();
function nextPortid(ns: Namespace): number {
  const next = (portids.get(ns.sim) ?? 4000) + 1;
  portids.set(ns.sim, next);
  return next;
}

/** `conntrack ARGS` in `ns`. -E needs the background: use spawn(ns, 'conntrack -E'). */
export function conntrack(ns: Namespace, args: string[]): CommandResult {
  const out: Output = { stdout: '', stderr: '' };
  const parsed = parse(args, out);
  if ('exitCode' in parsed) return parsed;
  if (parsed.command === CT_EVENT || parsed.command === EXP_EVENT) {
    return {
      stdout: '',
      stderr: `${out.stderr}packetlab: conntrack -E runs until stopped: start it with spawn(ns, "conntrack -E ...")\n`,
      exitCode: 1,
    };
  }
  return run(ns, parsed, out);
}

/** `conntrack -E ... &`: an event monitor that collects lines until stop(); other commands run at once. */
export function startConntrack(ns: Namespace, args: string[]): Capture | CommandResult {
  const out: Output = { stdout: '', stderr: '' };
  const parsed = parse(args, out);
  if ('exitCode' in parsed) return parsed;
  if (parsed.command !== CT_EVENT && parsed.command !== EXP_EVENT) return run(ns, parsed, out);
  if ((parsed.options & O_MASK_SRC) !== 0 && (parsed.options & O_ORIG_SRC) === 0)
    return exitError(out, 2, "Can't use --mask-src without --src");
  if ((parsed.options & O_MASK_DST) !== 0 && (parsed.options & O_ORIG_DST) === 0)
    return exitError(out, 2, "Can't use --mask-dst without --dst");
  if ((parsed.options & O_BUFFERSIZE) !== 0) {
    // The size_t goes to SO_RCVBUFFORCE, which reads its low int, doubles it (at most INT_MAX - 1,
    // at least SOCK_MIN_RCVBUF, 2304); getsockopt writes the result back over the low 4 bytes only.
    // A negative request leaves 0 there (as seen on Linux 6.18).
    const value = parsed.bufferSize;
    const low = BigInt.asIntN(32, value);
    const doubled = low > 1_073_741_823n ? 2_147_483_646n : low * 2n;
    const rcvbuf = value < 0n || low < 0n ? 0n : doubled < 2304n ? 2304n : doubled;
    const size = ((BigInt.asUintN(64, value) >> 32n) << 32n) + rcvbuf;
    out.stderr += `NOTICE: Netlink socket buffer size has been set to ${size} bytes.\n`;
  }
  return new EventMonitor(ns, parsed, out);
}

function run(ns: Namespace, p: ParsedCommand, out: Output): CommandResult {
  const ct = ns.netfilter.conntrack;
  const now = ns.sim.now;
  const style = styleOf(p);
  let counter = 0;
  switch (p.command) {
    case CT_LIST: {
      if (p.type === TABLE_DYING || p.type === TABLE_UNCONFIRMED) break;
      if ((p.options & O_COMPARISON) !== 0 && (p.options & O_ZERO) !== 0)
        return exitError(out, 2, "Can't use -z with filtering parameters");
      const masks = checkMasks(p, out);
      if (masks !== undefined) return masks;
      if (p.statusFilter !== undefined && p.statusFilter.mask === 0)
        return exitError(out, 1, 'Operation failed: invalid parameters');
      for (const index of ct.entries(now)) {
        const e = viewOf(ct, index, now);
        if (!kernelPasses(p, e, true) || !filterPasses(p, e, false)) continue;
        if (style.xml && counter === 0) out.stdout += XML_HEADER;
        out.stdout += `${entryLine(ct, index, now, style, 'NEW')}\n`;
        counter++;
      }
      if (style.xml && counter > 0) out.stdout += XML_FOOTER;
      break;
    }
    case EXP_LIST:
      break;
    case CT_DELETE: {
      const masks = checkMasks(p, out);
      if (masks !== undefined) return masks;
      const portid = nextPortid(ns);
      for (const index of ct.entries(now)) {
        const e = viewOf(ct, index, now);
        if (!kernelPasses(p, e, false) || !filterPasses(p, e, true)) continue;
        const line = entryLine(ct, index, now, style, 'DESTROY');
        withUserspace(ct, portid, () => ct.delete(index, now));
        out.stdout += `${line}\n`;
        counter++;
      }
      break;
    }
    case CT_UPDATE: {
      const masks = checkMasks(p, out);
      if (masks !== undefined) return masks;
      const portid = nextPortid(ns);
      for (const index of ct.entries(now)) {
        const e = viewOf(ct, index, now);
        if (!updateMatches(p, e)) continue;
        if (!update(ct, p, e, now, portid)) continue;
        out.stdout += `${entryLine(ct, index, now, style, 'NEW')}\n`;
        counter++;
      }
      break;
    }
    case CT_GET: {
      const found = get(ct, p, now);
      if (typeof found === 'string') return exitError(out, 1, `Operation failed: ${found}`);
      const e = viewOf(ct, found, now);
      if (filterPasses(p, e, false)) {
        // The kernel holds a reference on the entry while it answers: use=2.
        let line = entryLine(ct, found, now, style, 'NEW');
        if (!style.save && !style.xml) line = line.replace(/ use=\d+/, ` use=${ct.use(found) + 1}`);
        out.stdout += `${line}\n`;
        counter++;
      }
      break;
    }
    case CT_FLUSH:
      if (p.family !== AF_INET6) {
        const portid = nextPortid(ns);
        withUserspace(ct, portid, () => ct.flush(now));
      }
      out.stderr += `${PREFIX}connection tracking table has been emptied.\n`;
      break;
    case EXP_FLUSH:
      out.stderr += `${PREFIX}expectation table has been emptied.\n`;
      break;
    case CT_COUNT:
      out.stdout += `${ct.count}\n`;
      break;
    case EXP_COUNT:
      out.stdout += '0\n';
      break;
    case CT_STATS:
      out.stdout += `${formatStats(ct.stats)}\n`;
      break;
    case EXP_STATS:
      out.stdout += 'cpu=0   \texpect_new=0 expect_create=0 expect_delete=0 \n';
      break;
    case CT_VERSION:
      out.stdout += 'conntrack v1.4.7 (conntrack-tools)\n';
      break;
    case CT_HELP:
      out.stdout += USAGE;
      if ((p.options & O_PROTO) !== 0 && p.handler !== undefined) {
        const name =
          p.handler === UNKNOWN
            ? (PROTOCOLS.find((e) => e[0] === p.protonum)?.[1] ?? 'unknown')
            : p.handler.name;
        out.stdout += `Proto \`${name}' help:\n${p.handler.help}`;
      }
      break;
    case 0:
      out.stdout += USAGE;
      break;
    default:
      return {
        stdout: out.stdout,
        stderr: `${out.stderr}packetlab: conntrack cannot create entries or expectations (-I, -A, expect)\n`,
        exitCode: 1,
      };
  }
  let exitCode = 0;
  const message = EXIT_MESSAGES[p.command];
  if (message !== undefined) {
    out.stderr += `${PREFIX}${counter} ${message}\n`;
    if (counter === 0 && (p.command & (CT_LIST | EXP_LIST)) === 0) exitCode = 1;
  }
  return { stdout: out.stdout, stderr: out.stderr, exitCode };
}

/** nfct_filter_init: a mask needs its address. */
function checkMasks(p: ParsedCommand, out: Output): CommandResult | undefined {
  if ((p.options & O_MASK_SRC) !== 0 && (p.options & O_ORIG_SRC) === 0)
    return exitError(out, 2, "Can't use --mask-src without --src");
  if ((p.options & O_MASK_DST) !== 0 && (p.options & O_ORIG_DST) === 0)
    return exitError(out, 2, "Can't use --mask-dst without --dst");
  return undefined;
}

/** mnl_nfct_update_cb's selection: NAT and network filters, the id, and the tuples given. -m and -u are the new values. */
function updateMatches(p: ParsedCommand, e: EntryView): boolean {
  const tmpl = p.tmpl;
  if (!natFilterPasses(p, e)) return false;
  if ((p.options & O_MASK_SRC) !== 0 && !networkPasses(tmpl.origSrc, tmpl.maskSrc, e.orig.src)) return false;
  if ((p.options & O_MASK_DST) !== 0 && !networkPasses(tmpl.origDst, tmpl.maskDst, e.orig.dst)) return false;
  if (tmpl.id !== undefined && tmpl.id !== e.id) return false;
  if ((p.options & (O_ORIG | O_PROTO)) !== 0) {
    if ((p.options & O_MASK_SRC) === 0 && !addressIs(tmpl.origSrc, e.orig.src)) return false;
    if ((p.options & O_MASK_DST) === 0 && !addressIs(tmpl.origDst, e.orig.dst)) return false;
    if (tmpl.l4proto !== undefined && tmpl.l4proto !== e.protocol) return false;
    if (tmpl.origSport !== undefined && tmpl.origSport !== e.orig.srcPort) return false;
    if (tmpl.origDport !== undefined && tmpl.origDport !== e.orig.dstPort) return false;
  }
  if ((p.options & (O_REPL | O_PROTO)) !== 0) {
    if (!addressIs(tmpl.replSrc, e.reply.src) || !addressIs(tmpl.replDst, e.reply.dst)) return false;
    if (tmpl.replSport !== undefined && tmpl.replSport !== e.reply.srcPort) return false;
    if (tmpl.replDport !== undefined && tmpl.replDport !== e.reply.dstPort) return false;
  }
  return true;
}

/**
 * -U on one entry: the mark becomes (mark & ~mask) ^ value, -u bits are added, -t sets the
 * timeout; an entry left unchanged is skipped. The change is reported at once (ctnetlink does),
 * as an UPDATE from userspace.
 */
function update(ct: Conntrack, p: ParsedCommand, e: EntryView, now: number, portid: number): boolean {
  const table = ct.table;
  let changed = false;
  let events = 0;
  if ((p.options & O_MARK) !== 0) {
    const mark = (((e.mark & ~p.mark.mask) ^ p.mark.value) >>> 0) as number;
    if (mark !== e.mark) {
      table.setMark(e.index, mark);
      events |= IPCT_MARK;
      changed = true;
    }
  }
  if ((p.options & O_STATUS) !== 0) {
    const bits = (p.tmpl.status ?? 0) & (IPS_ASSURED | IPS_SEEN_REPLY | IPS_FIXED_TIMEOUT);
    if ((e.status & bits) !== bits) {
      ct.setStatus(e.index, bits);
      changed = true;
    }
  }
  if ((p.options & O_TIMEOUT) !== 0 && p.tmpl.timeout !== undefined && p.tmpl.timeout !== e.timeout) {
    table.setExpiry(e.index, now + p.tmpl.timeout * 1_000_000_000);
    changed = true;
  }
  if (changed) hubFor(ct)?.emit('UPDATE', e.index, events, portid);
  return changed;
}

/** -G: the entry holding the original tuple given (in either direction), as ctnetlink_get_conntrack finds it. */
function get(ct: Conntrack, p: ParsedCommand, now: number): number | string {
  const tmpl = p.tmpl;
  if (tmpl.origSrc === undefined || tmpl.origDst === undefined) return 'invalid parameters';
  if (tmpl.origSrc.family !== AF_INET || tmpl.origDst.family !== AF_INET)
    return "such conntrack doesn't exist";
  const protocol = tmpl.l4proto ?? 0;
  // Without both original ports the request cannot be built, and errno is left at 0.
  if (hasPorts(protocol) && (tmpl.origSport === undefined || tmpl.origDport === undefined)) return 'Success';
  let tuple: Tuple;
  if (protocol === IPPROTO_ICMP) {
    tuple = makeTuple(
      tmpl.origSrc.v4,
      tmpl.origDst.v4,
      protocol,
      tmpl.icmpId ?? 0,
      ((tmpl.icmpType ?? 0) << 8) | (tmpl.icmpCode ?? 0),
    );
  } else {
    tuple = makeTuple(tmpl.origSrc.v4, tmpl.origDst.v4, protocol, tmpl.origSport ?? 0, tmpl.origDport ?? 0);
  }
  const ref = ct.find(tuple, now);
  return ref < 0 ? "such conntrack doesn't exist" : ref >>> 1;
}

// ---- events --------------------------------------------------------------------------------

/** The event monitors of one conntrack table, fed by its single event listener. */
class EventHub {
  readonly monitors = new Set<EventMonitor>();
  /** Set while one of our commands deletes: its DESTROY events come from userspace. */
  userspacePortid = 0;

  constructor(private readonly ct: Conntrack) {}

  attach(monitor: EventMonitor): void {
    if (this.monitors.size === 0) {
      this.ct.onEvent((type, index, events) => this.emit(type, index, events, this.userspacePortid));
    }
    this.monitors.add(monitor);
  }

  detach(monitor: EventMonitor): void {
    this.monitors.delete(monitor);
    if (this.monitors.size === 0) {
      this.ct.onEvent(null);
      hubs.delete(this.ct);
    }
  }

  emit(type: ConntrackEventType, index: number, events: number, portid: number): void {
    for (const monitor of this.monitors) monitor.onEvent(type, index, events, portid);
  }
}

const hubs = new WeakMap<Conntrack, EventHub>();

function hubFor(ct: Conntrack): EventHub | undefined {
  return hubs.get(ct);
}

/** Runs a deletion with its DESTROY events marked as coming from process `portid`. */
function withUserspace(ct: Conntrack, portid: number, action: () => unknown): void {
  const hub = hubs.get(ct);
  if (hub === undefined) {
    action();
    return;
  }
  const saved = hub.userspacePortid;
  hub.userspacePortid = portid;
  try {
    action();
  } finally {
    hub.userspacePortid = saved;
  }
}

const EVENT_BITS: Record<ConntrackEventType, number> = {
  NEW: EVENT_NEW,
  UPDATE: EVENT_UPDATE,
  DESTROY: EVENT_DESTROY,
};

/** `conntrack -E`: prints each event that passes the filters, as event_cb does. */
class EventMonitor implements Capture {
  done = false;
  stdout = '';
  private counter = 0;
  private xmlOpen = false;
  private readonly hub: EventHub | undefined;

  constructor(
    private readonly ns: Namespace,
    private readonly parsed: ParsedCommand,
    private readonly out: Output,
  ) {
    if (parsed.command === EXP_EVENT) return;
    const ct = ns.netfilter.conntrack;
    let hub = hubs.get(ct);
    if (hub === undefined) {
      hub = new EventHub(ct);
      hubs.set(ct, hub);
    }
    hub.attach(this);
    this.hub = hub;
  }

  onEvent(type: ConntrackEventType, index: number, events: number, portid: number): void {
    if (this.done) return;
    const p = this.parsed;
    const mask = (p.options & O_EVENT_MASK) !== 0 ? p.eventMask : EVENT_NEW | EVENT_UPDATE | EVENT_DESTROY;
    if ((mask & EVENT_BITS[type]) === 0) return;
    const ct = this.ns.netfilter.conntrack;
    const now = this.ns.sim.now;
    const mark = ct.mark(index);
    const e = viewOf(ct, index, now, mark !== 0 || (events & IPCT_MARK) !== 0);
    if (p.family === AF_INET6 || !filterPasses(p, e, false)) return;
    const style = styleOf(p);
    let line: string;
    if (style.save) {
      line = formatSave(ct, index, now, type, type === 'DESTROY');
    } else if (style.xml) {
      if (!this.xmlOpen) {
        this.stdout += XML_HEADER;
        this.xmlOpen = true;
      }
      line = formatXml(ct, index, now, type);
    } else {
      line = formatEvent(ct, type, index, now, { extended: style.extended, showId: style.showId });
      if ((p.outputMask & O_TMS) !== 0) {
        const seconds = Math.floor(now / 1e9);
        const micros = Math.floor((now % 1e9) / 1e3);
        line = `[${String(seconds).padStart(8, '0')}.${String(micros).padStart(6, '0')}]\t${line}`;
      }
    }
    if (portid !== 0) line += ` [USERSPACE] portid=${portid} progname=conntrack`;
    this.stdout += `${line}\n`;
    this.counter++;
  }

  stop(): CommandResult {
    if (!this.done) {
      this.done = true;
      this.hub?.detach(this);
      if (this.xmlOpen) this.stdout += XML_FOOTER;
    }
    const what = this.parsed.command === EXP_EVENT ? 'expectation events' : 'flow events';
    return {
      stdout: this.stdout,
      stderr: `${this.out.stderr}${PREFIX}${this.counter} ${what} have been shown.\n`,
      exitCode: 0,
    };
  }
}
