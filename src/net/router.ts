// Route resolution for packets: the fib's input and output decisions (fib.ts: routeInput/routeOutput, mirroring
// route.c) reduced to what the IPv4 path needs, and the kernel routes that follow addresses and link state
// (fib_frontend.c); no route cache, no multipath.

import type { Ipv4Addr } from '../wire/address.ts';
import {
  addInterfaceAddressRoutes,
  type Fib,
  type InterfaceResolver,
  type RouteDecision,
  routeInput,
  routeOutput,
} from './fib.ts';
import type { IfAddr } from './ifaddr.ts';
import { type CongestionAlgorithm, type Errno, RTPROT_KERNEL } from './route.ts';

/** A usable path: where the packet goes next and with which source address. */
export interface RouteOk {
  readonly ok: true;
  readonly type: 'unicast' | 'local' | 'broadcast';
  /** Output device; `lo` for local destinations. */
  readonly ifindex: number;
  /** Next-hop gateway, 0 when the destination is on the link. */
  readonly gateway: Ipv4Addr;
  /** Source address chosen for locally generated packets (prefsrc or inet_select_addr). */
  readonly src: Ipv4Addr;
  readonly dst: Ipv4Addr;
  /** The route's mtu metric, 0 when unset. */
  readonly mtu: number;
  /** The route's congctl metric (RTAX_CC_ALGO), undefined when unset. */
  readonly congctl: CongestionAlgorithm | undefined;
}

/** The errors a route lookup can end with. */
export type RouteErrno = 'ENETUNREACH' | 'EHOSTUNREACH' | 'EACCES' | 'EINVAL';

/** No path, and why. */
export interface RouteError {
  readonly ok: false;
  readonly error: RouteErrno;
}

export type RouteResult = RouteOk | RouteError;

/** The four failures, shared: a failed lookup allocates nothing. */
const ROUTE_ERRORS: Readonly<Record<RouteErrno, RouteError>> = {
  ENETUNREACH: Object.freeze({ ok: false, error: 'ENETUNREACH' }),
  EHOSTUNREACH: Object.freeze({ ok: false, error: 'EHOSTUNREACH' }),
  EACCES: Object.freeze({ ok: false, error: 'EACCES' }),
  EINVAL: Object.freeze({ ok: false, error: 'EINVAL' }),
};

function routeError(errno: Errno): RouteError {
  return ROUTE_ERRORS[
    errno === 'EHOSTUNREACH' || errno === 'EACCES' || errno === 'EINVAL' ? errno : 'ENETUNREACH'
  ];
}

/**
 * A route result a hot caller owns and lookups fill in place (the packet path's one per lookup site), so a lookup
 * allocates no result. The caller reads it before its next lookup into the same scratch; a result kept longer is
 * copied (`copyRoute`).
 */
export class RouteScratch implements RouteOk {
  readonly ok = true;
  type: RouteOk['type'] = 'unicast';
  ifindex = 0;
  gateway: Ipv4Addr = 0;
  src: Ipv4Addr = 0;
  dst: Ipv4Addr = 0;
  mtu = 0;
  congctl: CongestionAlgorithm | undefined = undefined;
}

/** The lookup's key, one per router (fib.ts reads it during the call and keeps nothing). */
interface MutableQuery {
  dstAddr: Ipv4Addr;
  srcAddr: Ipv4Addr;
  iif: number;
  oif: number;
  mark: number;
  tos: number;
  anySrc: boolean;
}

function fill(into: RouteScratch, decision: RouteDecision, dst: Ipv4Addr): RouteScratch {
  into.type = decision.type;
  into.ifindex = decision.dev;
  into.gateway = decision.gateway ?? 0;
  into.src = decision.srcAddr;
  into.dst = dst;
  into.mtu = decision.route?.mtu ?? 0;
  into.congctl = decision.route?.congctl;
  return into;
}

export class Router {
  private readonly query: MutableQuery = {
    dstAddr: 0,
    srcAddr: 0,
    iif: 0,
    oif: 0,
    mark: 0,
    tos: 0,
    anySrc: false,
  };

  constructor(
    readonly fib: Fib,
    private readonly interfaces: InterfaceResolver,
  ) {}

  /**
   * ip_route_input_slow: what to do with a packet received on `iif`. With `into`, the result is written there (and
   * returned) instead of into a new object.
   */
  input(dst: Ipv4Addr, src: Ipv4Addr, iif: number, mark: number, into?: RouteScratch): RouteResult {
    const query = this.query;
    query.dstAddr = dst;
    query.srcAddr = src;
    query.iif = iif;
    query.oif = 0;
    query.mark = mark;
    query.tos = 0;
    query.anySrc = false;
    const decision = routeInput(this.fib, query, this.interfaces);
    if (!decision.ok) return routeError(decision.errno);
    return fill(into ?? new RouteScratch(), decision, dst);
  }

  /** ip_route_output_key_hash_rcu: the path of a locally generated packet, with its source address (see `input` for `into`). */
  output(
    dst: Ipv4Addr,
    src: Ipv4Addr,
    oif: number,
    mark: number,
    anySrc = false,
    into?: RouteScratch,
  ): RouteResult {
    const query = this.query;
    query.dstAddr = dst;
    query.srcAddr = src;
    query.iif = 0;
    query.oif = oif;
    query.mark = mark;
    query.tos = 0;
    query.anySrc = anySrc;
    const decision = routeOutput(this.fib, query, this.interfaces);
    if (!decision.ok) return routeError(decision.errno);
    return fill(into ?? new RouteScratch(), decision, dst);
  }

  /** fib_add_ifaddr, when an address is added on an up device or its device comes up. */
  addKernelRoutes(ifa: IfAddr, loopback: boolean): void {
    addInterfaceAddressRoutes(this.fib, {
      ifindex: ifa.ifindex,
      local: ifa.addr,
      prefixLen: ifa.prefixLen,
      ...(ifa.broadcast !== undefined ? { broadcast: ifa.broadcast } : {}),
      loopback,
      secondary: !ifa.primary,
    });
  }

  /** fib_del_ifaddr: the kernel routes whose preferred source is the address go with it. */
  removeKernelRoutes(ifa: IfAddr): void {
    for (const table of this.fib.tablesInDumpOrder())
      table.deleteWhere(
        (route) =>
          route.protocol === RTPROT_KERNEL && route.oif === ifa.ifindex && route.prefSrc === ifa.addr,
      );
  }

  /** fib_disable_ip on NETDEV_DOWN: every route through the device goes. */
  removeDeviceRoutes(ifindex: number): void {
    for (const table of this.fib.tablesInDumpOrder()) table.deleteWhere((route) => route.oif === ifindex);
  }
}
