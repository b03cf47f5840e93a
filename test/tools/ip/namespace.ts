// A namespace like the one the iproute2 fixtures were captured in: lo, peer0, eth0, cni0, vethq, vethp, with 127.0.0.1/8, 172.18.0.2/16 and 10.244.1.1/24.

import { addInterfaceAddressRoutes, Fib, type InterfaceResolver } from '../../../src/net/fib.ts';
import { RT_SCOPE_HOST, RT_SCOPE_UNIVERSE } from '../../../src/net/route.ts';
import { type Ipv4Addr, parseIpv4, prefixMask } from '../../../src/wire/address.ts';

export const IFINDEX = { lo: 1, peer0: 2, eth0: 3, cni0: 4, vethq: 5, vethp: 6 } as const;

interface TestAddress {
  readonly ifindex: number;
  readonly local: Ipv4Addr;
  readonly prefixLen: number;
  readonly scope: number;
}

export const ADDRESSES: readonly TestAddress[] = [
  { ifindex: IFINDEX.lo, local: ip('127.0.0.1'), prefixLen: 8, scope: RT_SCOPE_HOST },
  { ifindex: IFINDEX.eth0, local: ip('172.18.0.2'), prefixLen: 16, scope: RT_SCOPE_UNIVERSE },
  { ifindex: IFINDEX.cni0, local: ip('10.244.1.1'), prefixLen: 24, scope: RT_SCOPE_UNIVERSE },
];

export function ip(text: string): Ipv4Addr {
  const addr = parseIpv4(text);
  if (addr === undefined) throw new Error(`bad test address ${text}`);
  return addr;
}

/** The resolver with a settable forwarding switch (net.ipv4.ip_forward for every device). */
export interface TestDevices extends InterfaceResolver {
  forwardingOn: boolean;
}

/**
 * inet_select_addr over ADDRESSES: a primary address of the device with a wide enough
 * scope, preferring the subnet of `dst`; else the first suitable non-link-scope address of
 * any device, loopback first.
 */
export function testDevices(): TestDevices {
  const names = new Map<number, string>(Object.entries(IFINDEX).map(([name, index]) => [index, name]));
  const devices: TestDevices = {
    forwardingOn: false,
    nameOf: (ifindex) => names.get(ifindex),
    indexOf: (name) => (IFINDEX as Record<string, number>)[name],
    selectSource(ifindex, dst, scope) {
      let first: Ipv4Addr | undefined;
      for (const ifa of ADDRESSES) {
        if (ifa.ifindex !== ifindex || ifa.scope > scope) continue;
        if (dst === 0 || ((dst ^ ifa.local) & prefixMask(ifa.prefixLen)) === 0) return ifa.local;
        first ??= ifa.local;
      }
      if (first !== undefined) return first;
      for (const ifa of ADDRESSES) if (ifa.scope !== 253 && ifa.scope <= scope) return ifa.local;
      return undefined;
    },
    forwarding: () => devices.forwardingOn,
  };
  return devices;
}

/** A fib holding the routes the kernel adds for ADDRESSES (fib_add_ifaddr). */
export function testFib(): Fib {
  const fib = new Fib();
  for (const ifa of ADDRESSES) {
    addInterfaceAddressRoutes(fib, {
      ifindex: ifa.ifindex,
      local: ifa.local,
      prefixLen: ifa.prefixLen,
      loopback: ifa.ifindex === IFINDEX.lo,
    });
  }
  return fib;
}
