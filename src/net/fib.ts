// The IPv4 forwarding information base of one namespace: its route tables, its policy rules, lookup, and validated route changes; no multipath, no nexthop objects, no route cache, no rp_filter.
//
// Mirrors net/ipv4/fib_frontend.c (table management, fib_add_ifaddr, inet_rtm_newroute and
// inet_rtm_delroute), fib_semantics.c (fib_create_info, fib_check_nh, fib_valid_prefsrc),
// fib_rules.c (__fib_lookup) and include/net/ip_fib.h (the fib_lookup fast path), plus the
// parts of net/ipv4/route.c that `ip route get` shows (ip_route_output_key_hash_rcu,
// ip_route_input_slow). Device state (up/down, carrier) is not modelled: every device is up.
//
// Until the first `ip rule add` or `ip rule del` the kernel merges the local table into the
// main one and skips the rules (fib_has_custom_rules is false); a route found in the local
// table is then reported as coming from table main, which is why `ip route get` prints
// `table local` only once a rule has been touched. We keep the tables apart and reproduce
// the same answers.

import type { Ipv4Addr } from '../wire/address.ts';
import {
  assertNever,
  type Errno,
  isRejectType,
  type KernelError,
  kernelError,
  LOOPBACK_IFINDEX,
  makeRoute,
  type Route,
  type RouteType,
  RT_SCOPE_HOST,
  RT_SCOPE_LINK,
  RT_SCOPE_UNIVERSE,
  RT_TABLE_DEFAULT,
  RT_TABLE_LOCAL,
  RT_TABLE_MAIN,
  RTPROT_KERNEL,
  rejectErrno,
} from './route.ts';
import {
  checkPrefix,
  type InsertFlags,
  type InsertResult,
  type RouteSelector,
  RouteTable,
} from './route-table.ts';
import {
  type Rule,
  type RuleChange,
  RuleList,
  type RuleSelector,
  type RuleSpec,
  ruleMatches,
} from './rules.ts';

/**
 * The flow a lookup is for (struct flowi4). Numbers only, 0 meaning "unset", so one object
 * can be reused for every lookup on the packet path.
 */
export interface FlowKey {
  dstAddr: Ipv4Addr;
  /** 0 when not chosen yet. */
  srcAddr: Ipv4Addr;
  /** Ingress ifindex; LOOPBACK_IFINDEX (1) for locally generated packets, as the kernel sets it. */
  iif: number;
  /** Required output ifindex (a socket bound to a device), 0 for any. */
  oif: number;
  mark: number;
  tos: number;
  /** Narrowest acceptable route scope (flowi4_scope); RT_SCOPE_UNIVERSE (0) for packets. */
  scope: number;
}

/** A fresh flow key; set the fields and reuse it. */
export function newFlowKey(init: Partial<FlowKey> = {}): FlowKey {
  return {
    dstAddr: init.dstAddr ?? 0,
    srcAddr: init.srcAddr ?? 0,
    iif: init.iif ?? 0,
    oif: init.oif ?? 0,
    mark: init.mark ?? 0,
    tos: init.tos ?? 0,
    scope: init.scope ?? RT_SCOPE_UNIVERSE,
  };
}

/**
 * How a lookup fails. An `unreachable` route gives EHOSTUNREACH (fib_props) while an
 * `unreachable` rule, no route at all, or a `throw` with nothing after it give ENETUNREACH
 * (fib4_rule_action, __fib_lookup); prohibit is EACCES and blackhole EINVAL either way.
 * `ip route get` on Linux 6.18 prints exactly these (see the iproute2 transcript fixture).
 */
export type FibErrno = 'ENETUNREACH' | 'EHOSTUNREACH' | 'EACCES' | 'EINVAL';

export interface FibHit {
  readonly ok: true;
  readonly route: Route;
  readonly type: RouteType;
  /** The table the kernel reports (main for a local-table hit before any rule change). */
  readonly table: number;
  /** The rule that selected the table; undefined on the fast path without custom rules. */
  readonly rule: Rule | undefined;
}

export interface FibMiss {
  readonly ok: false;
  readonly error: FibErrno;
  /** The reject route that ended the lookup, if a route did. */
  readonly route: Route | undefined;
  readonly table: number;
  readonly rule: Rule | undefined;
}

/** A lookup's answer. The object is reused by the next lookup: copy what you keep. */
export type FibResult = FibHit | FibMiss;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type RouteChange =
  | { readonly ok: true; readonly route: Route; readonly replaced: Route | undefined }
  | KernelError;

export class Fib {
  readonly rules = new RuleList();
  private readonly tableMap = new Map<number, RouteTable>();
  /** Creation order, for the dump order of `ip route show table all`. */
  private readonly created: RouteTable[] = [];
  private customRules = false;
  private readonly hit: Mutable<FibHit> = {
    ok: true,
    route: undefined!,
    type: 'unicast',
    table: 0,
    rule: undefined,
  };
  private readonly miss: Mutable<FibMiss> = {
    ok: false,
    error: 'ENETUNREACH',
    route: undefined,
    table: 0,
    rule: undefined,
  };
  private readonly local: RouteTable;
  private readonly main: RouteTable;

  /** ip_fib_net_init: the local and main tables exist from the start; default appears on first use. */
  constructor() {
    this.local = this.newTable(RT_TABLE_LOCAL);
    this.main = this.newTable(RT_TABLE_MAIN);
  }

  /** True once a rule was added or deleted (net->ipv4.fib_has_custom_rules). */
  get hasCustomRules(): boolean {
    return this.customRules;
  }

  /** fib_get_table: 0 means main. */
  table(id: number): RouteTable | undefined {
    return this.tableMap.get(id === 0 ? RT_TABLE_MAIN : id);
  }

  /** fib_new_table: the table, created empty if needed; 0 means main. */
  newTable(id: number): RouteTable {
    const key = id === 0 ? RT_TABLE_MAIN : id;
    let table = this.tableMap.get(key);
    if (table === undefined) {
      table = new RouteTable(key);
      this.tableMap.set(key, table);
      this.created.push(table);
    }
    return table;
  }

  /**
   * Tables in the order a full dump visits them: the kernel's table hash bucket (id & 255)
   * ascending, newest first within a bucket.
   */
  tablesInDumpOrder(): RouteTable[] {
    const order = new Map(this.created.map((table, index) => [table, index]));
    return [...this.created].sort((a, b) => (a.id & 255) - (b.id & 255) || order.get(b)! - order.get(a)!);
  }

  /**
   * fib_lookup: walks the rules (or, before any rule change, main-with-local then default)
   * and returns the route or why there is none. No allocation: the result object is reused.
   */
  lookup(flow: FlowKey): FibResult {
    if (!this.customRules) return this.lookupWithoutRules(flow);
    const rules = this.rules.all;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      if (!ruleMatches(rule, flow)) continue;
      // fib4_rule_action
      switch (rule.action) {
        case 'nop':
          continue;
        case 'unreachable':
          return this.fail('ENETUNREACH', undefined, 0, rule);
        case 'prohibit':
          return this.fail('EACCES', undefined, 0, rule);
        case 'blackhole':
          return this.fail('EINVAL', undefined, 0, rule);
        case 'table': {
          const table = this.tableMap.get(rule.table);
          if (table === undefined) continue;
          const route = table.lookup(flow.dstAddr, flow.oif, flow.scope);
          if (route === undefined || route.type === 'throw') continue; // -EAGAIN: next rule
          const errno = rejectErrno(route.type);
          if (errno !== undefined) return this.fail(errno as FibErrno, route, table.id, rule);
          return this.succeed(route, table.id, rule);
        }
        default:
          return assertNever(rule.action);
      }
    }
    return this.fail('ENETUNREACH', undefined, 0, undefined);
  }

  /**
   * include/net/ip_fib.h fib_lookup without custom rules: the merged main+local trie
   * (longest prefix across both, local first on a tie), then the default table whenever
   * that did not succeed.
   */
  private lookupWithoutRules(flow: FlowKey): FibResult {
    const fromLocal = this.local.lookup(flow.dstAddr, flow.oif, flow.scope);
    const fromMain = this.main.lookup(flow.dstAddr, flow.oif, flow.scope);
    const route =
      fromLocal === undefined || (fromMain !== undefined && fromMain.prefixLen > fromLocal.prefixLen)
        ? fromMain
        : fromLocal;
    let errno: Errno = 'EAGAIN';
    let failed = route;
    if (route !== undefined) {
      const reject = rejectErrno(route.type);
      if (reject === undefined) return this.succeed(route, RT_TABLE_MAIN, undefined);
      errno = reject;
    }
    const fallback = this.tableMap.get(RT_TABLE_DEFAULT);
    if (fallback !== undefined) {
      const other = fallback.lookup(flow.dstAddr, flow.oif, flow.scope);
      if (other === undefined) {
        errno = 'EAGAIN';
      } else {
        const reject = rejectErrno(other.type);
        if (reject === undefined) return this.succeed(other, RT_TABLE_DEFAULT, undefined);
        errno = reject;
        failed = other;
      }
    }
    return this.fail(errno === 'EAGAIN' ? 'ENETUNREACH' : (errno as FibErrno), failed, 0, undefined);
  }

  private succeed(route: Route, table: number, rule: Rule | undefined): FibHit {
    const hit = this.hit;
    hit.route = route;
    hit.type = route.type;
    hit.table = table;
    hit.rule = rule;
    return hit;
  }

  private fail(error: FibErrno, route: Route | undefined, table: number, rule: Rule | undefined): FibMiss {
    const miss = this.miss;
    miss.error = error;
    miss.route = route;
    miss.table = table;
    miss.rule = rule;
    return miss;
  }

  /**
   * inet_addr_type_table / inet_addr_type_dev_table: what `addr` is according to table
   * `tableId` (local by default). `dev`, when given, must be the route's device.
   */
  addressType(addr: Ipv4Addr, tableId: number = RT_TABLE_LOCAL, dev?: number): RouteType | 'multicast' {
    if (addr === 0 || addr >>> 0 === 0xffff_ffff) return 'broadcast';
    if (addr >>> 28 === 0xe) return 'multicast';
    const table = this.table(tableId);
    if (table === undefined) return 'broadcast';
    // The row, not the table's reused record: a caller may still hold a route this table returned.
    const row = table.find(addr, 0, RT_SCOPE_UNIVERSE);
    if (row < 0) return 'unicast';
    const type = table.typeOf(row);
    if (isRejectType(type)) return 'unicast';
    return dev === undefined || dev === table.oifOf(row) ? type : 'unicast';
  }

  /** True when `addr` is one of the namespace's own addresses (__ip_dev_find). */
  isLocalAddress(addr: Ipv4Addr): boolean {
    return this.addressType(addr) === 'local';
  }

  /**
   * inet_rtm_newroute: validates the route as fib_create_info does (filling in the output
   * device of a gateway route) and inserts it with the given netlink flags. A refused
   * change leaves everything as it was (the kernel would still have created the table).
   */
  addRoute(route: Route, flags: InsertFlags): RouteChange {
    const table = route.table === 0 ? RT_TABLE_MAIN : route.table;
    const prefixError = checkPrefix(route.dstAddr, route.prefixLen);
    if (prefixError !== undefined) return prefixError;
    const checked = this.createInfo({ ...route, table });
    if (!checked.ok) return checked;
    const result = this.newTableIfValid(table, checked.route, flags);
    if (!result.ok) return result;
    return { ok: true, route: checked.route, replaced: result.replaced };
  }

  private newTableIfValid(id: number, route: Route, flags: InsertFlags): InsertResult {
    const existing = this.tableMap.get(id);
    if (existing !== undefined) return existing.insert(route, flags);
    const fresh = new RouteTable(id);
    const result = fresh.insert(route, flags);
    if (result.ok) {
      this.tableMap.set(id, fresh);
      this.created.push(fresh);
    }
    return result;
  }

  /** inet_rtm_delroute: the table must exist (extack "FIB table does not exist"). */
  deleteRoute(tableId: number, selector: RouteSelector): RouteChange {
    const table = this.table(tableId);
    if (table === undefined) return kernelError('ESRCH', 'FIB table does not exist');
    const result = table.delete(selector);
    return result.ok ? { ok: true, route: result.deleted, replaced: undefined } : result;
  }

  /** fib_create_info + fib_check_nh + fib_valid_prefsrc. */
  private createInfo(route: Route): { readonly ok: true; readonly route: Route } | KernelError {
    if (minimumScope(route.type) > route.scope) return kernelError('EINVAL', 'Invalid scope');
    if (isRejectType(route.type)) {
      if (route.gateway !== undefined || route.oif !== undefined) {
        return kernelError(
          'EINVAL',
          'Gateway, device and multipath can not be specified for this route type',
        );
      }
      return { ok: true, route };
    }
    if (route.scope > RT_SCOPE_HOST) return kernelError('EINVAL', 'Invalid scope');
    let checked = route;
    if (route.scope === RT_SCOPE_HOST) {
      if (route.gateway !== undefined)
        return kernelError('EINVAL', 'Route with host scope can not have a gateway');
      if (route.oif === undefined) return kernelError('ENODEV');
    } else if (route.gateway !== undefined) {
      const nexthop = this.checkGateway(route);
      if (!nexthop.ok) return nexthop;
      checked = { ...route, oif: nexthop.oif };
    } else {
      if (route.onlink) {
        return kernelError('EINVAL', 'Invalid flags for nexthop - PERVASIVE and ONLINK can not be set');
      }
      if (route.oif === undefined) return kernelError('ENODEV');
    }
    if (route.prefSrc !== undefined && !this.validPrefSrc(route)) {
      return kernelError('EINVAL', 'Invalid prefsrc address');
    }
    return { ok: true, route: checked };
  }

  /** fib_check_nh_v4_gw: the gateway must be reachable through a link- or host-scope route. */
  private checkGateway(route: Route): { readonly ok: true; readonly oif: number } | KernelError {
    const gateway = route.gateway!;
    if (route.onlink) {
      if (route.scope >= RT_SCOPE_LINK) return kernelError('EINVAL', 'Nexthop has invalid scope');
      if (route.oif === undefined) return kernelError('ENODEV', 'Nexthop device required for onlink');
      if (this.addressType(gateway, RT_TABLE_LOCAL, route.oif) !== 'unicast') {
        return kernelError('EINVAL', 'Nexthop has invalid gateway');
      }
      return { ok: true, oif: route.oif };
    }
    const flow = newFlowKey({
      dstAddr: gateway,
      scope: Math.max(route.scope + 1, RT_SCOPE_LINK),
      oif: route.oif ?? 0,
      iif: LOOPBACK_IFINDEX,
    });
    let found: Route | undefined;
    let type: RouteType | undefined;
    const table = route.table !== RT_TABLE_MAIN ? this.tableMap.get(route.table) : undefined;
    const inTable = table?.lookup(flow.dstAddr, flow.oif, flow.scope);
    if (inTable !== undefined && !isRejectType(inTable.type)) {
      found = inTable;
      type = inTable.type;
    } else {
      const result = this.lookup(flow);
      if (!result.ok) return kernelError(result.error, 'Nexthop has invalid gateway');
      found = result.route;
      type = result.type;
    }
    if (type !== 'unicast' && type !== 'local') return kernelError('EINVAL', 'Nexthop has invalid gateway');
    if (found.oif === undefined) return kernelError('EINVAL', 'No egress device for nexthop gateway');
    return { ok: true, oif: found.oif };
  }

  /** fib_valid_prefsrc: `src` must be a local address (in the route's table or local). */
  private validPrefSrc(route: Route): boolean {
    if (route.type === 'local' && route.dstAddr !== 0 && route.prefSrc === route.dstAddr) return true;
    const tableId = route.table === RT_TABLE_MAIN ? RT_TABLE_LOCAL : route.table;
    let type = this.addressType(route.prefSrc!, tableId);
    if (type !== 'local' && tableId !== RT_TABLE_LOCAL) type = this.addressType(route.prefSrc!);
    return type === 'local';
  }

  /** fib_nl_newrule (+ fib4_rule_configure): the first rule change turns custom rules on. */
  addRule(spec: RuleSpec, indexOf: (name: string) => number | undefined): RuleChange {
    const result = this.rules.add(spec, indexOf, () => this.emptyTable());
    if (result.ok) this.customRules = true;
    return result;
  }

  /** fib_nl_delrule (+ fib4_rule_delete). */
  deleteRule(selector: RuleSelector): RuleChange {
    const result = this.rules.delete(selector);
    if (result.ok) this.customRules = true;
    return result;
  }

  /** fib_empty_table: the lowest unused table id from 1, created. */
  private emptyTable(): number {
    let id = 1;
    while (this.tableMap.has(id)) id++;
    return this.newTable(id).id;
  }

  /** A device appeared (NETDEV_REGISTER): rules naming it attach. */
  attachDevice(name: string, ifindex: number): void {
    this.rules.attachDevice(name, ifindex);
  }

  /** A device went away (NETDEV_UNREGISTER): its routes go (fib_flush) and rules detach. */
  detachDevice(ifindex: number): void {
    for (const table of this.created) table.deleteWhere((route) => route.oif === ifindex);
    this.rules.detachDevice(ifindex);
  }
}

/** fib_props[type].scope: the narrowest scope a route of this type may have. */
function minimumScope(type: RouteType): number {
  switch (type) {
    case 'local':
      return RT_SCOPE_HOST;
    case 'broadcast':
      return RT_SCOPE_LINK;
    case 'unicast':
    case 'blackhole':
    case 'unreachable':
    case 'prohibit':
    case 'throw':
      return RT_SCOPE_UNIVERSE;
    default:
      return assertNever(type);
  }
}

/** An address being configured on a device, as fib_add_ifaddr needs it. */
export interface IfaddrRoutes {
  readonly ifindex: number;
  readonly local: Ipv4Addr;
  readonly prefixLen: number;
  /** An explicitly configured broadcast address (`brd`), if any. */
  readonly broadcast?: Ipv4Addr;
  /** The device is a loopback: its prefix route is of type local. */
  readonly loopback?: boolean;
  /** A secondary address adds only its local route. */
  readonly secondary?: boolean;
  /** ifa_rt_priority, the metric of the prefix route. */
  readonly metric?: number;
}

/**
 * fib_add_ifaddr: the routes the kernel adds for a new address, with fib_magic's flags
 * (create, append, protocol kernel, src = the address): `local ADDR` in table local, the
 * prefix route in main (local type in table local for a loopback), and the subnet's
 * broadcast in table local. Returns the routes added.
 */
export function addInterfaceAddressRoutes(fib: Fib, ifa: IfaddrRoutes): Route[] {
  const added: Route[] = [];
  const magic = (type: RouteType, dstAddr: Ipv4Addr, prefixLen: number, metric: number): void => {
    const route = makeRoute({
      table: type === 'unicast' ? RT_TABLE_MAIN : RT_TABLE_LOCAL,
      type,
      dstAddr,
      prefixLen,
      oif: ifa.ifindex,
      prefSrc: ifa.local,
      scope: type === 'local' ? RT_SCOPE_HOST : RT_SCOPE_LINK,
      protocol: RTPROT_KERNEL,
      metric,
    });
    const result = fib
      .newTable(route.table)
      .insert(route, { create: true, exclusive: false, replace: false, append: true });
    if (result.ok) added.push(route);
  };
  const mask = ifa.prefixLen === 0 ? 0 : (0xffff_ffff << (32 - ifa.prefixLen)) >>> 0;
  const prefix = (ifa.local & mask) >>> 0;
  magic('local', ifa.local, 32, 0);
  if (ifa.broadcast !== undefined && ifa.broadcast !== 0 && ifa.broadcast >>> 0 !== 0xffff_ffff) {
    magic('broadcast', ifa.broadcast, 32, 0);
  }
  if (prefix !== 0 && !ifa.secondary && (prefix !== ifa.local || ifa.prefixLen < 32)) {
    magic(ifa.loopback ? 'local' : 'unicast', prefix, ifa.prefixLen, ifa.metric ?? 0);
    if (ifa.prefixLen < 31) magic('broadcast', (prefix | ~mask) >>> 0, 32, 0);
  }
  return added;
}

// ---- route resolution as `ip route get` shows it -------------------------------------------

/** What the routing code needs to know about the namespace's devices. */
export interface InterfaceResolver {
  nameOf(ifindex: number): string | undefined;
  indexOf(name: string): number | undefined;
  /**
   * inet_select_addr(dev, dst, scope): a primary address of the device whose scope is no
   * narrower than `scope`, preferring one in the same subnet as `dst` (0: any), else one
   * from another device. Absent: the namespace has no addresses to choose from.
   */
  selectSource?(ifindex: number, dst: Ipv4Addr, scope: number): Ipv4Addr | undefined;
  /** net.ipv4.conf.<dev>.forwarding. Absent: off, as in a new namespace. */
  forwarding?(ifindex: number): boolean;
  /**
   * IN_DEV_NET_ROUTE_LOCALNET: net.ipv4.conf.all.route_localnet or net.ipv4.conf.<dev>.route_localnet. Absent: off.
   */
  routeLocalnet?(ifindex: number): boolean;
}

/** A route request: `iif` set (non-zero) asks for an input route, as for a received packet. */
export interface RouteQuery {
  readonly dstAddr: Ipv4Addr;
  readonly srcAddr: Ipv4Addr;
  readonly iif: number;
  readonly oif: number;
  readonly mark: number;
  readonly tos: number;
  /** FLOWI_FLAG_ANYSRC (an IP_TRANSPARENT socket's flows): the source need not be a local address. */
  readonly anySrc?: boolean;
}

/** The route the kernel would build (a struct rtable), reduced to what `ip route get` prints. */
export interface RouteDecision {
  readonly ok: true;
  readonly type: 'unicast' | 'local' | 'broadcast';
  /** The source address the flow ends up with: the requested one or the one chosen. */
  readonly srcAddr: Ipv4Addr;
  readonly gateway: Ipv4Addr | undefined;
  /** Output device; the loopback for local delivery. */
  readonly dev: number;
  /** Table of the fib result (0 when the route came from no table). */
  readonly table: number;
  /** The fib route behind the decision, if one was used. */
  readonly route: Route | undefined;
  readonly input: boolean;
}

const LIMITED_BROADCAST = 0xffff_ffff;
const LOCALHOST = 0x7f00_0001;

function isMulticast(addr: Ipv4Addr): boolean {
  return addr >>> 28 === 0xe;
}

function isLoopbackNet(addr: Ipv4Addr): boolean {
  return addr >>> 24 === 127;
}

function decision(
  fib: Fib,
  type: RouteDecision['type'],
  srcAddr: Ipv4Addr,
  dev: number,
  table: number,
  route: Route | undefined,
  input: boolean,
): RouteDecision {
  // rt_set_nexthop uses the gateway only when its nexthop has link scope: a gateway that is
  // one of our own addresses resolved through a host-scope route and the path is direct.
  let gateway = type === 'unicast' ? route?.gateway : undefined;
  if (gateway !== undefined && !route!.onlink && fib.isLocalAddress(gateway)) gateway = undefined;
  return { ok: true, type, srcAddr: srcAddr >>> 0, gateway, dev, table, route, input };
}

/**
 * The flow key of a packet's route lookup, one object reused by every lookup (they never nest),
 * so resolving a packet's route does not allocate a key.
 */
const scratchFlow = newFlowKey();
function packetFlow(
  dst: Ipv4Addr,
  src: Ipv4Addr,
  iif: number,
  oif: number,
  mark: number,
  tos: number,
): FlowKey {
  scratchFlow.dstAddr = dst;
  scratchFlow.srcAddr = src;
  scratchFlow.iif = iif;
  scratchFlow.oif = oif;
  scratchFlow.mark = mark;
  scratchFlow.tos = tos;
  scratchFlow.scope = RT_SCOPE_UNIVERSE;
  return scratchFlow;
}

/** inet_select_addr through the namespace, 0 when it has no address to offer. */
function selectSource(devices: InterfaceResolver, dev: number, dst: Ipv4Addr, scope: number): Ipv4Addr {
  return devices.selectSource?.(dev, dst, scope) ?? 0;
}

/**
 * Output route for a locally generated packet (route.c: ip_route_output_key_hash_rcu and
 * __mkroute_output, without multicast, VRF or device state).
 */
export function routeOutput(
  fib: Fib,
  query: RouteQuery,
  devices: InterfaceResolver,
): RouteDecision | KernelError {
  const lo = devices.indexOf('lo') ?? LOOPBACK_IFINDEX;
  const dst = query.dstAddr >>> 0;
  let src = query.srcAddr >>> 0;
  const oif = query.oif;
  if (src !== 0) {
    if (isMulticast(src) || src === LIMITED_BROADCAST) return kernelError('EINVAL');
    if (query.anySrc !== true && !fib.isLocalAddress(src)) return kernelError('ENETUNREACH');
  }
  if (oif !== 0) {
    if (dst === LIMITED_BROADCAST) {
      if (src === 0) src = selectSource(devices, oif, 0, RT_SCOPE_LINK);
      return decision(fib, 'broadcast', src, oif, 0, undefined, false);
    }
    if (src === 0 && dst === 0) src = selectSource(devices, oif, 0, RT_SCOPE_HOST);
  }
  if (dst === 0) {
    if (src === 0) src = LOCALHOST;
    return decision(fib, 'local', src, lo, 0, undefined, false);
  }
  const flow = packetFlow(dst, src, LOOPBACK_IFINDEX, oif, query.mark, query.tos);
  const res = fib.lookup(flow);
  if (!res.ok) {
    // "Apparently, routing tables are wrong. Assume, that the destination is on link."
    if (oif === 0) return kernelError(res.error);
    if (src === 0) src = selectSource(devices, oif, 0, RT_SCOPE_LINK);
    return decision(fib, dst === LIMITED_BROADCAST ? 'broadcast' : 'unicast', src, oif, 0, undefined, false);
  }
  const route = res.route;
  if (res.type === 'local') {
    if (src === 0) src = route.prefSrc ?? dst;
    return decision(fib, 'local', src, lo, res.table, route, false);
  }
  // fib_select_path / fib_result_prefsrc
  if (src === 0) src = route.prefSrc ?? selectSource(devices, route.oif!, route.gateway ?? 0, route.scope);
  const dev = route.oif!;
  // __mkroute_output: a 127/8 source leaves only through lo, unless route_localnet is set on the way out.
  if (isLoopbackNet(src) && dev !== lo && !(devices.routeLocalnet?.(dev) ?? false))
    return kernelError('EINVAL');
  const type = dst === LIMITED_BROADCAST || res.type === 'broadcast' ? 'broadcast' : 'unicast';
  return decision(fib, type, src, dev, res.table, route, false);
}

/** Input route for a packet received on `query.iif` (route.c: ip_route_input_slow, no multicast). */
export function routeInput(
  fib: Fib,
  query: RouteQuery,
  devices: InterfaceResolver,
): RouteDecision | KernelError {
  const lo = devices.indexOf('lo') ?? LOOPBACK_IFINDEX;
  const dst = query.dstAddr >>> 0;
  const src = query.srcAddr >>> 0;
  const forwarding = devices.forwarding?.(query.iif) ?? false;
  // Martians.
  if (isMulticast(src) || src === LIMITED_BROADCAST) return kernelError('EINVAL');
  if (dst === LIMITED_BROADCAST || (src === 0 && dst === 0))
    return decision(fib, 'broadcast', src, lo, 0, undefined, true);
  if (src === 0 || dst === 0 || isMulticast(dst)) return kernelError('EINVAL');
  // A packet looped back through lo keeps the output route it was sent with (ip_rcv_finish finds
  // skb_valid_dst and looks nothing up), so 127/8 is a martian only when it arrives from outside, and then
  // only without route_localnet (ip_route_input_slow: IN_DEV_NET_ROUTE_LOCALNET for a loopback daddr or saddr).
  if (
    query.iif !== lo &&
    (isLoopbackNet(dst) || isLoopbackNet(src)) &&
    !(devices.routeLocalnet?.(query.iif) ?? false)
  )
    return kernelError('EINVAL');
  const flow = packetFlow(dst, src, query.iif, 0, query.mark, query.tos);
  const res = fib.lookup(flow);
  if (!res.ok) return kernelError(forwarding ? res.error : 'EHOSTUNREACH');
  switch (res.type) {
    case 'broadcast':
      return decision(fib, 'broadcast', src, lo, res.table, res.route, true);
    case 'local':
      return decision(fib, 'local', src, lo, res.table, res.route, true);
    case 'unicast':
      if (!forwarding) return kernelError('EHOSTUNREACH');
      return decision(fib, 'unicast', src, res.route.oif!, res.table, res.route, true);
    default:
      return kernelError('EINVAL');
  }
}
