// host-local IPAM for one node's pod CIDR (plugins/ipam/host-local's allocator): the gateway .1 is reserved, addresses
// are handed out from .2 on, each search starting after the last one reserved (so a freed address is not reused at
// once), and a requested address (the `ips` argument; here the pod's pin) is given if it is free. One range, IPv4.

import { contains, formatAddress, mustParsePrefix, parseAddress } from '../cni/ipv4.ts';

export type IpamResult =
  | { readonly ok: true; readonly address: string }
  | { readonly ok: false; readonly error: string };

export class HostLocalIpam {
  private readonly network: number;
  private readonly prefixLength: number;
  private readonly used = new Map<number, string>();
  /** last_reserved_ip.0 */
  private lastReserved: number;

  constructor(podCidr: string) {
    const prefix = mustParsePrefix(podCidr);
    this.network = prefix.network;
    this.prefixLength = prefix.prefixLength;
    this.lastReserved = prefix.network + 1;
  }

  /** allocator.Get: the requested address, or the next free one after the last reserved, wrapping at the end. */
  allocate(owner: string, requested?: string): IpamResult {
    const first = this.network + 2;
    const last = this.network + 2 ** (32 - this.prefixLength) - 2;
    if (requested !== undefined) {
      const addr = parseAddress(requested);
      const prefix = { network: this.network, prefixLength: this.prefixLength };
      if (addr === undefined || !contains(prefix, addr) || addr < first || addr > last)
        return { ok: false, error: `requested IP address ${requested} is not in range set` };
      if (this.used.has(addr))
        return { ok: false, error: `requested IP address ${requested} is not available in range set` };
      return { ok: true, address: this.reserve(addr, owner) };
    }
    for (let step = 1; step <= last - first + 1; step++) {
      let candidate = this.lastReserved + step;
      if (candidate > last) candidate = first + ((candidate - first) % (last - first + 1));
      if (!this.used.has(candidate)) return { ok: true, address: this.reserve(candidate, owner) };
    }
    return { ok: false, error: `no IP addresses available in range set: ${this.rangeText(first, last)}` };
  }

  /** allocator.Release: every address the owner holds. */
  release(owner: string): void {
    for (const [addr, holder] of this.used) if (holder === owner) this.used.delete(addr);
  }

  private reserve(addr: number, owner: string): string {
    this.used.set(addr, owner);
    this.lastReserved = addr;
    return formatAddress(addr >>> 0);
  }

  private rangeText(first: number, last: number): string {
    return `${formatAddress(first >>> 0)}-${formatAddress(last >>> 0)}`;
  }
}
