// `ip route` as iproute2 6.1 parses and prints it: show/list, add, del, replace, change, append, prepend, get, flush; no multipath, encap, metrics other than mtu and congctl, IPv6 or JSON output.
//
// Parsing follows ip/iproute.c (iproute_modify, iproute_list_flush_or_save, iproute_get) and
// lib/utils.c (get_prefix, get_addr, get_unsigned) keyword by keyword, in the same order,
// with the same abbreviations (`ip r a` is `ip route add`, `metric` may be `m` or `pri`).
// Messages, exit codes (1 for a bad address or device, 2 when the kernel refuses, 255 for
// usage errors) and spacing (every printed field is followed by one space) are what
// iproute2 6.1.0 printed against Linux 6.18 in a throw-away namespace (captured in
// test/tools/ip/transcript.fixture.ts, replayed by transcript.test.ts). Keywords iproute2
// accepts but packetlab does not model are refused with a message saying so. A failed
// command changes nothing.

import { strerror } from '../../core/errno.ts';
import type { Fib, InterfaceResolver, RouteDecision } from '../../net/fib.ts';
import { routeInput, routeOutput } from '../../net/fib.ts';
import {
  type CongestionAlgorithm,
  defaultScope,
  defaultTable,
  isCongestionAlgorithm,
  type KernelError,
  kernelError,
  makeRoute,
  matchesKeyword as matches,
  parseCUnsigned,
  parseProtocol,
  parseRouteType,
  parseScope,
  parseTableId,
  protocolName,
  type Route,
  type RouteType,
  RT_SCOPE_NOWHERE,
  RT_TABLE_MAIN,
  RTPROT_BOOT,
  scopeName,
  tableName,
} from '../../net/route.ts';
import {
  INSERT_FLAGS,
  type InsertFlags,
  type RouteSelector,
  type RouteTable,
} from '../../net/route-table.ts';
import { formatIpv4, type Ipv4Addr, prefixMask } from '../../wire/address.ts';
import type { CommandResult } from '../result.ts';

export type { CommandResult };

// ---- shared with rule-command.ts: argument cursor, failures, address parsing --------------

/** A command that stopped: what iproute2 would have printed before exiting. */
export class Failure {
  constructor(readonly result: CommandResult) {}
}

export function fail(stderr: string, exitCode: number, stdout = ''): Failure {
  return new Failure({ stdout, stderr, exitCode });
}

/** invarg(): `Error: argument "ARG" is wrong: MSG` (MSG often ends in its own newline). */
export function invarg(msg: string, arg: string): Failure {
  return fail(`Error: argument "${arg}" is wrong: ${msg}\n`, 255);
}

/** NEXT_ARG() at the end of the line. */
export function incomplete(): Failure {
  return fail('Command line is not complete. Try option "help"\n', 255);
}

export function noDevice(name: string): Failure {
  return fail(`Cannot find device "${name}"\n`, 1);
}

export function unsupported(keyword: string): Failure {
  return fail(`Error: "${keyword}" is not supported by packetlab.\n`, 255);
}

/** How iproute2 reports a refusal from the kernel (rtnl_talk with extended ack). */
export function kernelFailure(error: KernelError): Failure {
  const text =
    error.extack !== undefined ? `Error: ${error.extack}.` : `RTNETLINK answers: ${strerror(error.errno)}`;
  return fail(`${text}\n`, 2);
}

/** Walks argv the way iproute2's NEXT_ARG() does. */
export class Args {
  private index = 0;
  constructor(private readonly argv: readonly string[]) {}
  get done(): boolean {
    return this.index >= this.argv.length;
  }
  /** The current argument. */
  get current(): string {
    return this.argv[this.index]!;
  }
  /** Moves to the following argument; a Failure when there is none. */
  next(): string | Failure {
    this.index++;
    return this.done ? incomplete() : this.current;
  }
  advance(): void {
    this.index++;
  }
}

/** AF_UNSPEC until an address has been parsed, then AF_INET: the word in error messages. */
export type Family = 'any valid' | 'inet';

/**
 * get_addr_ipv4 (lib/utils.c): one to four parts, each a C number (decimal, 0x hex, 0
 * octal) up to 255; missing trailing parts are zero (`10.1` is 10.1.0.0).
 */
export function parseLooseIpv4(text: string): Ipv4Addr | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  let addr = 0;
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    const octet = part === undefined ? 0 : parseCUnsigned(part, 255);
    if (octet === undefined) return undefined;
    addr = addr * 256 + octet;
  }
  return addr;
}

export interface Prefix {
  readonly addr: Ipv4Addr;
  readonly len: number;
}

/** get_prefix_1 for IPv4: `default`/`all`/`any`, ADDR, ADDR/LEN or ADDR/MASK. */
export function parsePrefix(text: string): Prefix | undefined {
  const slash = text.indexOf('/');
  const head = slash < 0 ? text : text.slice(0, slash);
  if (head === 'default' || head === 'all' || head === 'any') {
    return slash < 0 ? { addr: 0, len: 0 } : undefined;
  }
  const addr = parseLooseIpv4(head);
  if (addr === undefined) return undefined;
  if (slash < 0) return { addr, len: 32 };
  const lenText = text.slice(slash + 1);
  const len = parseCUnsigned(lenText, 32) ?? maskLength(lenText);
  return len === undefined ? undefined : { addr, len };
}

/** get_netmask's dotted form: a contiguous mask such as 255.255.0.0. */
function maskLength(text: string): number | undefined {
  const mask = parseLooseIpv4(text);
  if (mask === undefined) return undefined;
  for (let len = 0; len <= 32; len++) if (prefixMask(len) === mask) return len;
  return undefined;
}

/** get_prefix(): a Failure naming the family, exit 1. */
export function prefixArg(text: string, family: Family): Prefix | Failure {
  return parsePrefix(text) ?? fail(`Error: ${family} prefix is expected rather than "${text}".\n`, 1);
}

/** get_addr(): an address (or `default`, `all`, `any` for 0.0.0.0); a Failure naming the family, exit 1. */
export function addressArg(text: string, family: Family): Ipv4Addr | Failure {
  if (text === 'default' || text === 'all' || text === 'any') return 0;
  return parseLooseIpv4(text) ?? fail(`Error: ${family} address is expected rather than "${text}".\n`, 1);
}

export function formatPrefix(addr: Ipv4Addr, len: number): string {
  return len === 32 ? formatIpv4(addr) : `${formatIpv4(addr)}/${len}`;
}

/** The device name as ll_index_to_name prints it (`if7` for an unknown index). */
export function deviceName(devices: InterfaceResolver, ifindex: number): string {
  return devices.nameOf(ifindex) ?? `if${ifindex}`;
}

function result(stdout: string): CommandResult {
  return { stdout, stderr: '', exitCode: 0 };
}

/** /etc/iproute2/rt_dsfield names, then a hex number up to 0xff (rtnl_dsfield_a2n). */
const DSFIELD_NAMES: ReadonlyMap<string, number> = new Map([
  ['default', 0x00],
  ['AF11', 0x28],
  ['AF12', 0x30],
  ['AF13', 0x38],
  ['AF21', 0x48],
  ['AF22', 0x50],
  ['AF23', 0x58],
  ['AF31', 0x68],
  ['AF32', 0x70],
  ['AF33', 0x78],
  ['AF41', 0x88],
  ['AF42', 0x90],
  ['AF43', 0x98],
  ['CS1', 0x20],
  ['CS2', 0x40],
  ['CS3', 0x60],
  ['CS4', 0x80],
  ['CS5', 0xa0],
  ['CS6', 0xc0],
  ['CS7', 0xe0],
  ['EF', 0xb8],
]);

export function parseDsfield(text: string): number | undefined {
  const named = DSFIELD_NAMES.get(text);
  if (named !== undefined) return named;
  if (!/^(0[xX])?[0-9a-fA-F]+$/.test(text)) return undefined;
  const value = Number.parseInt(text, 16);
  return value <= 255 ? value : undefined;
}

/** rtnl_dsfield_n2a. */
export function dsfieldName(value: number): string {
  for (const [name, id] of DSFIELD_NAMES) if (id === value) return name;
  return `0x${value.toString(16).padStart(2, '0')}`;
}

// ---- ip route ---------------------------------------------------------------------------------

const USAGE = `Usage: ip route { list | flush } SELECTOR
       ip route save SELECTOR
       ip route restore
       ip route showdump
       ip route get [ ROUTE_GET_FLAGS ] ADDRESS
                            [ from ADDRESS iif STRING ]
                            [ oif STRING ] [ tos TOS ]
                            [ mark NUMBER ] [ vrf NAME ]
                            [ uid NUMBER ] [ ipproto PROTOCOL ]
                            [ sport NUMBER ] [ dport NUMBER ]
       ip route { add | del | change | append | replace } ROUTE
SELECTOR := [ root PREFIX ] [ match PREFIX ] [ exact PREFIX ]
            [ table TABLE_ID ] [ vrf NAME ] [ proto RTPROTO ]
            [ type TYPE ] [ scope SCOPE ]
ROUTE := NODE_SPEC [ INFO_SPEC ]
NODE_SPEC := [ TYPE ] PREFIX [ tos TOS ]
             [ table TABLE_ID ] [ proto RTPROTO ]
             [ scope SCOPE ] [ metric METRIC ]
             [ ttl-propagate { enabled | disabled } ]
INFO_SPEC := { NH | nhid ID } OPTIONS FLAGS [ nexthop NH ]...
NH := [ encap ENCAPTYPE ENCAPHDR ] [ via [ FAMILY ] ADDRESS ]
      [ dev STRING ] [ weight NUMBER ] NHFLAGS
FAMILY := [ inet | inet6 | mpls | bridge | link ]
OPTIONS := FLAGS [ mtu NUMBER ] [ advmss NUMBER ] [ as [ to ] ADDRESS ]
           [ rtt TIME ] [ rttvar TIME ] [ reordering NUMBER ]
           [ window NUMBER ] [ cwnd NUMBER ] [ initcwnd NUMBER ]
           [ ssthresh NUMBER ] [ realms REALM ] [ src ADDRESS ]
           [ rto_min TIME ] [ hoplimit NUMBER ] [ initrwnd NUMBER ]
           [ features FEATURES ] [ quickack BOOL ] [ congctl NAME ]
           [ pref PREF ] [ expires TIME ] [ fastopen_no_cookie BOOL ]
TYPE := { unicast | local | broadcast | multicast | throw |
          unreachable | prohibit | blackhole | nat }
TABLE_ID := [ local | main | default | all | NUMBER ]
SCOPE := [ host | link | global | NUMBER ]
NHFLAGS := [ onlink | pervasive ]
RTPROTO := [ kernel | boot | static | NUMBER ]
PREF := [ low | medium | high ]
TIME := NUMBER[s|ms]
BOOL := [1|0]
FEATURES := ecn
ENCAPTYPE := [ mpls | ip | ip6 | seg6 | seg6local | rpl | ioam6 | xfrm ]
ENCAPHDR := [ MPLSLABEL | SEG6HDR | SEG6LOCAL | IOAM6HDR | XFRMINFO ]
SEG6HDR := [ mode SEGMODE ] segs ADDR1,ADDRi,ADDRn [hmac HMACKEYID] [cleanup]
SEGMODE := [ encap | encap.red | inline | l2encap | l2encap.red ]
SEG6LOCAL := action ACTION [ OPTIONS ] [ count ]
ACTION := { End | End.X | End.T | End.DX2 | End.DX6 | End.DX4 |
            End.DT6 | End.DT4 | End.DT46 | End.B6 | End.B6.Encaps |
            End.BM | End.S | End.AS | End.AM | End.BPF }
OPTIONS := OPTION [ OPTIONS ]
OPTION := { flavors FLAVORS | srh SEG6HDR | nh4 ADDR | nh6 ADDR | iif DEV | oif DEV |
            table TABLEID | vrftable TABLEID | endpoint PROGNAME }
FLAVORS := { FLAVOR[,FLAVOR] }
FLAVOR := { psp | usp | usd | next-csid }
IOAM6HDR := trace prealloc type IOAM6_TRACE_TYPE ns IOAM6_NAMESPACE size IOAM6_TRACE_SIZE
XFRMINFO := if_id IF_ID [ link_dev LINK ]
ROUTE_GET_FLAGS := [ fibmatch ]
`;

function usage(): Failure {
  return fail(USAGE, 255);
}

/** Route exceptions the IPv4 layer learned (fib_nh_exception): a path MTU and the time it has left. */
export interface RouteExceptions {
  pmtu(dst: Ipv4Addr): { readonly mtu: number; readonly remainingNs: number } | undefined;
}

/**
 * Runs `ip route ARGV...` (argv without the leading `ip route`) against `fib`, resolving
 * device names with `devices`; `ip route get` shows the PMTU `exceptions` knows of.
 */
export function routeCommand(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  exceptions?: RouteExceptions,
): CommandResult {
  const outcome = dispatch(argv, devices, fib, exceptions);
  return outcome instanceof Failure ? outcome.result : outcome;
}

/** do_iproute: the verb and its abbreviations, tried in iproute2's order. */
function dispatch(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  exceptions: RouteExceptions | undefined,
): CommandResult | Failure {
  if (argv.length === 0) return list([], devices, fib, 'list');
  const [verb, ...rest] = argv as [string, ...string[]];
  if (matches(verb, 'add')) return modify(rest, devices, fib, 'add');
  if (matches(verb, 'change') || verb === 'chg') return modify(rest, devices, fib, 'change');
  if (matches(verb, 'replace')) return modify(rest, devices, fib, 'replace');
  if (matches(verb, 'prepend')) return modify(rest, devices, fib, 'prepend');
  if (matches(verb, 'append')) return modify(rest, devices, fib, 'append');
  if (matches(verb, 'test')) return modify(rest, devices, fib, 'test');
  if (matches(verb, 'delete')) return modify(rest, devices, fib, 'delete');
  if (matches(verb, 'list') || matches(verb, 'show') || matches(verb, 'lst')) {
    return list(rest, devices, fib, 'list');
  }
  if (matches(verb, 'get')) return get(rest, devices, fib, exceptions);
  if (matches(verb, 'flush')) return list(rest, devices, fib, 'flush');
  if (matches(verb, 'save') || matches(verb, 'restore') || matches(verb, 'showdump'))
    return unsupported(verb);
  if (matches(verb, 'help')) return usage();
  return fail(`Command "${verb}" is unknown, try "ip route help".\n`, 255);
}

type ModifyVerb = keyof typeof INSERT_FLAGS | 'delete';

/** Metric keywords iproute2 knows and packetlab does not model: [keyword, exact match only]. */
const UNSUPPORTED_OPTIONS: readonly (readonly [string, boolean])[] = [
  ['hoplimit', true],
  ['advmss', true],
  ['reordering', false],
  ['rtt', true],
  ['rto_min', true],
  ['window', false],
  ['cwnd', false],
  ['initcwnd', false],
  ['initrwnd', false],
  ['features', false],
  ['quickack', false],
  ['rttvar', false],
  ['ssthresh', false],
  ['realms', false],
];

/** iproute_modify. */
function modify(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  verb: ModifyVerb,
): CommandResult | Failure {
  const args = new Args(argv);
  let family: Family = 'any valid';
  let dst: Prefix | undefined;
  let type: RouteType | undefined;
  let table: number | undefined;
  let gateway: Ipv4Addr | undefined;
  let devName: string | undefined;
  let prefSrc: Ipv4Addr | undefined;
  let protocol: number | undefined;
  let scope: number | undefined;
  let metric: number | undefined;
  let mtu: number | undefined;
  let mtuLock = false;
  let congctl: string | undefined;
  let congctlLock = false;
  let onlink = false;
  while (!args.done) {
    const arg = args.current;
    if (arg === 'src') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const addr = addressArg(value, family);
      if (addr instanceof Failure) return addr;
      prefSrc = addr;
      family = 'inet';
    } else if (
      arg === 'as' ||
      arg === 'from' ||
      arg === 'tos' ||
      matches(arg, 'dsfield') ||
      arg === 'expires'
    ) {
      return unsupported(arg);
    } else if (arg === 'via') {
      if (gateway !== undefined) return invarg('use nexthop syntax to specify multiple via\n', arg);
      let value = args.next();
      if (value instanceof Failure) return value;
      if (value === 'inet') {
        value = args.next();
        if (value instanceof Failure) return value;
      } else if (['inet6', 'mpls', 'bridge', 'link'].includes(value)) {
        return unsupported(`via ${value}`);
      }
      const addr = addressArg(value, family);
      if (addr instanceof Failure) return addr;
      gateway = addr;
      family = 'inet';
    } else if (matches(arg, 'metric') || matches(arg, 'priority') || arg === 'preference') {
      const value = args.next();
      if (value instanceof Failure) return value;
      metric = parseCUnsigned(value, 0xffff_ffff);
      if (metric === undefined) return invarg('"metric" value is invalid\n', value);
    } else if (arg === 'scope') {
      const value = args.next();
      if (value instanceof Failure) return value;
      scope = parseScope(value);
      if (scope === undefined) return invarg('invalid "scope" value\n', value);
    } else if (arg === 'mtu') {
      let value = args.next();
      if (value instanceof Failure) return value;
      if (value === 'lock') {
        mtuLock = true;
        value = args.next();
        if (value instanceof Failure) return value;
      }
      mtu = parseCUnsigned(value, 0xffff_ffff);
      if (mtu === undefined) return invarg('"mtu" value is invalid\n', value);
    } else if (matches(arg, 'congctl')) {
      // iproute_modify: an optional `lock` (mxlock bit RTAX_CC_ALGO), then the name as a string metric.
      let value = args.next();
      if (value instanceof Failure) return value;
      if (value === 'lock') {
        congctlLock = true;
        value = args.next();
        if (value instanceof Failure) return value;
      }
      congctl = value;
    } else if (UNSUPPORTED_OPTIONS.some(([word, exact]) => (exact ? arg === word : matches(arg, word)))) {
      return unsupported(arg);
    } else if (arg === 'onlink') {
      onlink = true;
    } else if (arg === 'nexthop' || arg === 'nhid') {
      return unsupported(arg);
    } else if (matches(arg, 'protocol')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      protocol = parseProtocol(value);
      if (protocol === undefined) return invarg('"protocol" value is invalid\n', value);
    } else if (matches(arg, 'table')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      table = parseTableId(value);
      if (table === undefined) return invarg('"table" value is invalid\n', value);
    } else if (matches(arg, 'vrf')) {
      return unsupported(arg);
    } else if (arg === 'dev' || arg === 'oif') {
      const value = args.next();
      if (value instanceof Failure) return value;
      devName = value;
    } else if (matches(arg, 'pref') || arg === 'encap' || arg === 'ttl-propagate') {
      return unsupported(arg);
    } else if (matches(arg, 'fastopen_no_cookie')) {
      return unsupported(arg);
    } else {
      let value = arg;
      if (value === 'to') {
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      if (!/^[0-9]/.test(value)) {
        const parsed = parseRouteType(value);
        if (parsed === 'unsupported') return unsupported(value);
        if (parsed !== undefined) {
          type = parsed;
          const next = args.next();
          if (next instanceof Failure) return next;
          value = next;
        }
      }
      if (matches(value, 'help')) return usage();
      if (dst !== undefined)
        return fail(`Error: either "to" is duplicate, or "${value}" is a garbage.\n`, 255);
      const prefix = prefixArg(value, family);
      if (prefix instanceof Failure) return prefix;
      dst = prefix;
      family = 'inet';
    }
    args.advance();
  }
  if (dst === undefined) return usage();
  let oif: number | undefined;
  if (devName !== undefined) {
    oif = devices.indexOf(devName);
    if (oif === undefined || oif === 0) return noDevice(devName);
  }
  const routeType = type ?? 'unicast';
  const tableId = table ?? defaultTable(routeType);
  const algorithm = congctl === undefined ? undefined : congestionKey(congctl);
  if (algorithm instanceof Failure) return algorithm;
  if (verb === 'delete') {
    const selector: Mutable<RouteSelector> = { dstAddr: dst.addr, prefixLen: dst.len };
    if (type !== undefined) selector.type = type;
    const impliedScope =
      type === 'local' || type === 'broadcast' ? defaultScope(type, false) : RT_SCOPE_NOWHERE;
    const selectorScope = scope ?? impliedScope;
    if (selectorScope !== RT_SCOPE_NOWHERE) selector.scope = selectorScope;
    if (prefSrc !== undefined) selector.prefSrc = prefSrc;
    if (protocol !== undefined) selector.protocol = protocol;
    if (metric !== undefined) selector.metric = metric;
    if (oif !== undefined) selector.oif = oif;
    if (gateway !== undefined) selector.gateway = gateway;
    if (mtu !== undefined) selector.mtu = mtu;
    if (algorithm !== undefined) selector.congctl = algorithm;
    const outcome = fib.deleteRoute(tableId, selector);
    return outcome.ok ? result('') : kernelFailure(outcome);
  }
  const route: Route = makeRoute({
    table: tableId,
    dstAddr: dst.addr,
    prefixLen: dst.len,
    type: routeType,
    ...(oif !== undefined ? { oif } : {}),
    ...(gateway !== undefined ? { gateway } : {}),
    onlink,
    ...(prefSrc !== undefined ? { prefSrc } : {}),
    scope: scope ?? defaultScope(routeType, gateway !== undefined),
    protocol: protocol ?? RTPROT_BOOT,
    metric: metric ?? 0,
    ...(mtu !== undefined ? { mtu } : {}),
    mtuLock,
    ...(algorithm !== undefined ? { congctl: algorithm } : {}),
    congctlLock,
  });
  const flags: InsertFlags = INSERT_FLAGS[verb];
  const outcome = fib.addRoute(route, flags);
  return outcome.ok ? result('') : kernelFailure(outcome);
}

/**
 * ip_metrics_convert's RTAX_CC_ALGO: tcp_ca_get_key_by_name, case-sensitive; a name the kernel does not know
 * is refused with its extack. The kernel also has bbr, which packetlab's TCP does not model.
 */
function congestionKey(name: string): CongestionAlgorithm | Failure {
  if (isCongestionAlgorithm(name)) return name;
  if (name === 'bbr') return unsupported('congctl bbr');
  return kernelFailure(kernelError('EINVAL', 'Unknown tcp congestion algorithm'));
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** iproute_list_flush_or_save's filter. */
interface ShowFilter {
  /** 0: all tables. */
  table: number;
  protocol: number | undefined;
  scope: number | undefined;
  type: RouteType | 'none' | undefined;
  oif: number | undefined;
  metric: number | undefined;
  via: Prefix | undefined;
  src: Prefix | undefined;
  /** `root`: routes inside this prefix. */
  root: Prefix | undefined;
  /** `match`: routes containing this prefix. */
  match: Prefix | undefined;
}

function list(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  action: 'list' | 'flush',
): CommandResult | Failure {
  if (action === 'flush' && argv.length === 0) return fail('"ip route flush" requires arguments.\n', 1);
  const filter: ShowFilter = {
    table: RT_TABLE_MAIN,
    protocol: undefined,
    scope: undefined,
    type: undefined,
    oif: undefined,
    metric: undefined,
    via: undefined,
    src: undefined,
    root: undefined,
    match: undefined,
  };
  const args = new Args(argv);
  let devName: string | undefined;
  while (!args.done) {
    const arg = args.current;
    if (matches(arg, 'table')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const id = parseTableId(value);
      if (id !== undefined) filter.table = id;
      else if (value === 'all') filter.table = 0;
      else if (value === 'cache') return unsupported('table cache');
      else if (value === 'help') return usage();
      else return invarg('table id value is invalid\n', value);
    } else if (matches(arg, 'vrf') || matches(arg, 'cached') || matches(arg, 'cloned')) {
      return unsupported(arg);
    } else if (arg === 'tos' || matches(arg, 'dsfield')) {
      return unsupported(arg);
    } else if (matches(arg, 'protocol')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const protocol = parseProtocol(value);
      if (protocol === undefined && value !== 'all') return invarg('invalid "protocol"\n', value);
      filter.protocol = protocol;
    } else if (matches(arg, 'scope')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const scope = parseScope(value);
      if (scope === undefined && value !== 'all') return invarg('invalid "scope"\n', value);
      filter.scope = scope;
    } else if (matches(arg, 'type')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const type = parseRouteType(value);
      if (type === undefined) return invarg('node type value is invalid\n', value);
      filter.type = type === 'unsupported' ? 'none' : type;
    } else if (arg === 'dev' || arg === 'oif') {
      const value = args.next();
      if (value instanceof Failure) return value;
      devName = value;
    } else if (arg === 'iif' || arg === 'mark' || matches(arg, 'realms') || matches(arg, 'from')) {
      return unsupported(arg);
    } else if (matches(arg, 'metric') || matches(arg, 'priority') || arg === 'preference') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const metric = parseCUnsigned(value, 0xffff_ffff);
      if (metric === undefined) return invarg('"metric" value is invalid\n', value);
      filter.metric = metric;
    } else if (arg === 'via' || arg === 'src') {
      let value = args.next();
      if (value instanceof Failure) return value;
      if (arg === 'via' && value === 'inet') {
        value = args.next();
        if (value instanceof Failure) return value;
      }
      const prefix = prefixArg(value, 'any valid');
      if (prefix instanceof Failure) return prefix;
      if (arg === 'via') filter.via = prefix;
      else filter.src = prefix;
    } else {
      let value = arg;
      if (matches(value, 'to')) {
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      let mode: 'root' | 'match' | 'exact' = 'exact';
      if (matches(value, 'root') || matches(value, 'match') || matches(value, 'exact')) {
        mode = matches(value, 'root') ? 'root' : matches(value, 'match') ? 'match' : 'exact';
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      const prefix = prefixArg(value, 'any valid');
      if (prefix instanceof Failure) return prefix;
      if (mode !== 'match') filter.root = prefix;
      if (mode !== 'root') filter.match = prefix;
    }
    args.advance();
  }
  if (devName !== undefined) {
    filter.oif = devices.indexOf(devName);
    if (filter.oif === undefined || filter.oif === 0) return noDevice(devName);
  }
  let tables: RouteTable[];
  if (filter.table === 0) {
    tables = fib.tablesInDumpOrder();
  } else {
    const table = fib.table(filter.table);
    // The kernel refuses the dump of a table that does not exist; iproute2 says which dump ended (iproute_flush:
    // "Flush terminated", iproute_list_flush_or_save: "Dump terminated").
    if (table === undefined)
      return fail(
        `Error: ipv4: FIB table does not exist.\n${action === 'flush' ? 'Flush' : 'Dump'} terminated\n`,
        2,
      );
    tables = [table];
  }
  const selected = tables.flatMap((table) => table.routes().filter((route) => keep(route, filter)));
  if (action === 'flush') {
    for (const table of tables) table.deleteWhere((route) => keep(route, filter));
    return result('');
  }
  return result(selected.map((route) => `${formatRoute(route, filter, devices)}\n`).join(''));
}

function within(addr: Ipv4Addr, prefix: Prefix, len: number): boolean {
  return ((addr ^ prefix.addr) & prefixMask(len)) === 0;
}

/** filter_nlmsg. */
function keep(route: Route, filter: ShowFilter): boolean {
  if (filter.protocol !== undefined && route.protocol !== filter.protocol) return false;
  if (filter.scope !== undefined && route.scope !== filter.scope) return false;
  if (filter.type !== undefined && route.type !== filter.type) return false;
  if (
    filter.root !== undefined &&
    (filter.root.len > route.prefixLen || !within(route.dstAddr, filter.root, filter.root.len))
  ) {
    return false;
  }
  if (
    filter.match !== undefined &&
    (filter.match.len < route.prefixLen || !within(route.dstAddr, filter.match, route.prefixLen))
  ) {
    return false;
  }
  if (filter.via !== undefined && !within(route.gateway ?? 0, filter.via, filter.via.len)) return false;
  if (filter.src !== undefined && !within(route.prefSrc ?? 0, filter.src, filter.src.len)) return false;
  if (filter.oif !== undefined && route.oif !== filter.oif) return false;
  if (filter.metric !== undefined && route.metric !== filter.metric) return false;
  return true;
}

/** print_rta_metrics' RTAX_CC_ALGO, after the mtu (metrics print in RTAX order). */
function formatCongctl(route: Route): string {
  if (route.congctl === undefined) return '';
  return `congctl ${route.congctlLock ? 'lock ' : ''}${route.congctl} `;
}

/** print_route for a fib entry (not RTM_F_CLONED); fields the filter pins are not repeated. */
export function formatRoute(route: Route, filter: Partial<ShowFilter>, devices: InterfaceResolver): string {
  let line = '';
  if (route.type !== 'unicast') line += `${route.type} `;
  line +=
    route.prefixLen === 0 && route.dstAddr === 0
      ? 'default '
      : `${formatPrefix(route.dstAddr, route.prefixLen)} `;
  if (route.gateway !== undefined && filter.via?.len !== 32) line += `via ${formatIpv4(route.gateway)} `;
  if (route.oif !== undefined && filter.oif === undefined) line += `dev ${deviceName(devices, route.oif)} `;
  if (route.table !== RT_TABLE_MAIN && !filter.table) line += `table ${tableName(route.table)} `;
  if (route.protocol !== RTPROT_BOOT && filter.protocol === undefined)
    line += `proto ${protocolName(route.protocol)} `;
  if (route.scope !== 0 && filter.scope === undefined) line += `scope ${scopeName(route.scope)} `;
  if (route.prefSrc !== undefined && filter.src?.len !== 32) line += `src ${formatIpv4(route.prefSrc)} `;
  if (route.metric !== 0 && filter.metric === undefined) line += `metric ${route.metric} `;
  if (route.onlink) line += 'onlink ';
  if (route.mtu !== undefined) line += `mtu ${route.mtuLock ? 'lock ' : ''}${route.mtu} `;
  line += formatCongctl(route);
  return line;
}

/** iproute_get. */
function get(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  exceptions: RouteExceptions | undefined,
): CommandResult | Failure {
  const args = new Args(argv);
  let family: Family = 'any valid';
  let dst: Ipv4Addr | undefined;
  let src: Prefix | undefined;
  let iifName: string | undefined;
  let oifName: string | undefined;
  let mark = 0;
  let tos = 0;
  let uid = 0;
  let fibMatch = false;
  let warnings = '';
  while (!args.done) {
    const arg = args.current;
    if (arg === 'tos' || matches(arg, 'dsfield')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const parsed = parseDsfield(value);
      if (parsed === undefined) return invarg('TOS value is invalid\n', value);
      tos = parsed;
    } else if (matches(arg, 'from')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      if (matches(value, 'help')) return usage();
      const prefix = prefixArg(value, family);
      if (prefix instanceof Failure) return prefix;
      src = prefix;
      family = 'inet';
    } else if (matches(arg, 'iif')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      iifName = value;
    } else if (matches(arg, 'mark')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const parsed = parseCUnsigned(value, 0xffff_ffff);
      if (parsed === undefined) return invarg('invalid mark value', value);
      mark = parsed;
    } else if (matches(arg, 'oif') || arg === 'dev') {
      const value = args.next();
      if (value instanceof Failure) return value;
      oifName = value;
    } else if (matches(arg, 'notify')) {
      // RTM_F_NOTIFY only adds the "notify" flag to the answer of a cached route.
    } else if (matches(arg, 'connected') || matches(arg, 'vrf') || arg === 'as') {
      return unsupported(arg);
    } else if (matches(arg, 'uid')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const parsed = parseCUnsigned(value, 0xffff_ffff);
      if (parsed === undefined) return invarg('invalid UID\n', value);
      uid = parsed;
    } else if (matches(arg, 'fibmatch')) {
      fibMatch = true;
    } else if (matches(arg, 'sport') || matches(arg, 'dport')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      if (parseCUnsigned(value, 0xffff) === undefined) {
        return invarg(`invalid ${matches(arg, 'sport') ? 'sport' : 'dport'}\n`, value);
      }
    } else if (matches(arg, 'ipproto')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      if (!['tcp', 'udp', 'icmp', 'sctp'].includes(value) && parseCUnsigned(value, 255) === undefined) {
        return invarg('Invalid "ipproto" value\n', value);
      }
    } else {
      let value = arg;
      if (value === 'to') {
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      if (matches(value, 'help')) return usage();
      const prefix = prefixArg(value, family);
      if (prefix instanceof Failure) return prefix;
      family = 'inet';
      if (prefix.len !== 32) {
        warnings += `Warning: /${prefix.len} as prefix is invalid, only /32 (or none) is supported.\n`;
      }
      dst = prefix.addr;
    }
    args.advance();
  }
  if (dst === undefined) return fail('need at least a destination address\n', 1);
  let iif = 0;
  let oif = 0;
  if (iifName !== undefined) {
    iif = devices.indexOf(iifName) ?? 0;
    if (iif === 0) return noDevice(iifName);
  }
  if (oifName !== undefined) {
    oif = devices.indexOf(oifName) ?? 0;
    if (oif === 0) return noDevice(oifName);
  }
  // inet_rtm_valid_getroute_req
  if (src !== undefined && src.len !== 0 && src.len !== 32) {
    return fail(`${warnings}Error: ipv4: Invalid values in header for route get request.\n`, 2);
  }
  const srcAddr = src !== undefined && src.len === 32 ? src.addr : 0;
  const query = { dstAddr: dst, srcAddr, iif, oif, mark, tos };
  const answer = iif !== 0 ? routeInput(fib, query, devices) : routeOutput(fib, query, devices);
  if (!answer.ok) {
    const failure = kernelFailure(answer);
    return fail(warnings + failure.result.stderr, failure.result.exitCode);
  }
  const text =
    fibMatch && answer.route !== undefined
      ? `${formatRoute({ ...answer.route, table: answer.table }, {}, devices)}\n`
      : formatDecision(answer, query, uid, devices, answer.input ? undefined : exceptions?.pmtu(dst));
  return { stdout: text, stderr: warnings, exitCode: 0 };
}

/** print_route for the RTM_F_CLONED answer of RTM_GETROUTE (rt_fill_info's attributes). */
function formatDecision(
  answer: RouteDecision,
  query: {
    readonly dstAddr: Ipv4Addr;
    readonly srcAddr: Ipv4Addr;
    readonly iif: number;
    readonly mark: number;
  },
  uid: number,
  devices: InterfaceResolver,
  exception: { readonly mtu: number; readonly remainingNs: number } | undefined,
): string {
  let line = '';
  if (answer.type !== 'unicast') line += `${answer.type} `;
  line += `${formatIpv4(query.dstAddr)} `;
  if (query.srcAddr !== 0) line += `from ${formatIpv4(query.srcAddr)} `;
  if (answer.gateway !== undefined) line += `via ${formatIpv4(answer.gateway)} `;
  line += `dev ${deviceName(devices, answer.dev)} `;
  if (answer.table !== 0 && answer.table !== RT_TABLE_MAIN) line += `table ${tableName(answer.table)} `;
  if (!answer.input && answer.srcAddr !== query.srcAddr) line += `src ${formatIpv4(answer.srcAddr)} `;
  if (query.mark !== 0)
    line += query.mark >= 16 ? `mark 0x${query.mark.toString(16)} ` : `mark ${query.mark} `;
  if (!answer.input) line += `uid ${uid} `;
  line += '\n    cache ';
  if (answer.type === 'local') line += '<local> ';
  else if (answer.type === 'broadcast') line += '<local,brd> ';
  // rt_fill_info: a nexthop exception adds its expiry (rta_cacheinfo, whole seconds) and its PMTU replaces the mtu metric.
  if (exception !== undefined) line += `expires ${Math.floor(exception.remainingNs / 1e9)}sec `;
  const route = answer.route;
  const mtu = exception?.mtu ?? route?.mtu;
  if (mtu !== undefined) line += `mtu ${route?.mtuLock ? 'lock ' : ''}${mtu} `;
  if (route !== undefined) line += formatCongctl(route);
  if (answer.input) line += `iif ${deviceName(devices, query.iif)} `;
  return `${line}\n`;
}
