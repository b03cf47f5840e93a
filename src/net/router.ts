// Route resolution for packets (net/ipv4/route.c): input and output lookups over the fib, with source address
// selection, and the kernel routes that follow addresses and link state (fib_frontend.c); no route cache, no multipath.

import type { Ipv4Addr } from '../wire/address.ts';
import { addInterfaceAddressRoutes, type Fib, type FibErrno, newFlowKey } from './fib.ts';
import type { AddrScope, IfAddr, InterfaceAddresses } from './ifaddr.ts';
import { LOOPBACK_IFINDEX, type RouteType, RT_SCOPE_HOST, RT_SCOPE_LINK, RTPROT_KERNEL } from './route.ts';

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
}

/** No path: the errno, and the reject route type that caused it when one did. */
export interface RouteError {
  readonly ok: false;
  readonly error: FibErrno;
  readonly type: RouteType | undefined;
}

export type RouteResult = RouteOk | RouteError;

export class Router {
  private readonly flow = newFlowKey();

  constructor(
    readonly fib: Fib,
    private readonly addresses: InterfaceAddresses,
  ) {}

  /** ip_route_input_slow: what to do with a packet received on `iif`. */
  input(dst: Ipv4Addr, src: Ipv4Addr, iif: number, mark: number): RouteResult {
    const flow = this.flow;
    flow.dstAddr = dst;
    flow.srcAddr = src;
    flow.iif = iif;
    flow.oif = 0;
    flow.mark = mark;
    flow.scope = 0;
    if (dst === 0xffff_ffff)
      return { ok: true, type: 'broadcast', ifindex: iif, gateway: 0, src: dst, dst, mtu: 0 };
    const result = this.fib.lookup(flow);
    if (!result.ok) return { ok: false, error: result.error, type: result.route?.type };
    const route = result.route;
    const type = result.type as RouteOk['type'];
    return {
      ok: true,
      type,
      ifindex: type === 'local' ? LOOPBACK_IFINDEX : (route.oif ?? iif),
      gateway: route.gateway ?? 0,
      src: route.prefSrc ?? 0,
      dst,
      mtu: route.mtu ?? 0,
    };
  }

  /** ip_route_output_key_hash_rcu: the path of a locally generated packet, with its source address. */
  output(dst: Ipv4Addr, src: Ipv4Addr, oif: number, mark: number): RouteResult {
    if (src !== 0 && !this.addresses.isLocal(src)) return { ok: false, error: 'EINVAL', type: undefined };
    const flow = this.flow;
    flow.dstAddr = dst;
    flow.srcAddr = src;
    flow.iif = LOOPBACK_IFINDEX;
    flow.oif = oif;
    flow.mark = mark;
    flow.scope = 0;
    const result = this.fib.lookup(flow);
    if (!result.ok) return { ok: false, error: result.error, type: result.route?.type };
    const route = result.route;
    if (result.type === 'local') {
      return {
        ok: true,
        type: 'local',
        ifindex: LOOPBACK_IFINDEX,
        gateway: 0,
        src: src || dst,
        dst,
        mtu: route.mtu ?? 0,
      };
    }
    const ifindex = route.oif ?? oif;
    const gateway = route.gateway ?? 0;
    const scope: AddrScope =
      route.scope >= RT_SCOPE_HOST ? 'host' : route.scope >= RT_SCOPE_LINK ? 'link' : 'global';
    const chosen = src || route.prefSrc || this.addresses.select(ifindex, gateway || dst, scope) || 0;
    return {
      ok: true,
      type: result.type as RouteOk['type'],
      ifindex,
      gateway,
      src: chosen,
      dst,
      mtu: route.mtu ?? 0,
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
