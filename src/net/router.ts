// Route resolution for packets: the fib's input and output decisions (fib.ts: routeInput/routeOutput, mirroring
// route.c) reduced to what the IPv4 path needs, and the kernel routes that follow addresses and link state
// (fib_frontend.c); no route cache, no multipath.

import type { Ipv4Addr } from '../wire/address.ts';
import {
  addInterfaceAddressRoutes,
  type Fib,
  type InterfaceResolver,
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

function routeErrno(errno: Errno): RouteErrno {
  return errno === 'EHOSTUNREACH' || errno === 'EACCES' || errno === 'EINVAL' ? errno : 'ENETUNREACH';
}

export class Router {
  constructor(
    readonly fib: Fib,
    private readonly interfaces: InterfaceResolver,
  ) {}

  /** ip_route_input_slow: what to do with a packet received on `iif`. */
  input(dst: Ipv4Addr, src: Ipv4Addr, iif: number, mark: number): RouteResult {
    const decision = routeInput(
      this.fib,
      { dstAddr: dst, srcAddr: src, iif, oif: 0, mark, tos: 0 },
      this.interfaces,
    );
    if (!decision.ok) return { ok: false, error: routeErrno(decision.errno) };
    return {
      ok: true,
      type: decision.type,
      ifindex: decision.dev,
      gateway: decision.gateway ?? 0,
      src: decision.srcAddr,
      dst,
      mtu: decision.route?.mtu ?? 0,
      congctl: decision.route?.congctl,
    };
  }

  /** ip_route_output_key_hash_rcu: the path of a locally generated packet, with its source address. */
  output(dst: Ipv4Addr, src: Ipv4Addr, oif: number, mark: number, anySrc = false): RouteResult {
    const decision = routeOutput(
      this.fib,
      { dstAddr: dst, srcAddr: src, iif: 0, oif, mark, tos: 0, anySrc },
      this.interfaces,
    );
    if (!decision.ok) return { ok: false, error: routeErrno(decision.errno) };
    return {
      ok: true,
      type: decision.type,
      ifindex: decision.dev,
      gateway: decision.gateway ?? 0,
      src: decision.srcAddr,
      dst,
      mtu: decision.route?.mtu ?? 0,
      congctl: decision.route?.congctl,
    };
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
