// IPv4 addresses configured on a namespace's interfaces, and source address selection (net/ipv4/devinet.c).

import { type Ipv4Addr, prefixMask } from '../wire/address.ts';

export type AddrScope = 'host' | 'link' | 'global';

/** The numeric scope values of rtnetlink (RT_SCOPE_*): smaller is wider. */
export const SCOPE_VALUE: Record<AddrScope, number> = { global: 0, link: 253, host: 254 };

export interface IfAddr {
  readonly ifindex: number;
  readonly addr: Ipv4Addr;
  readonly prefixLen: number;
  readonly broadcast: Ipv4Addr | undefined;
  readonly scope: AddrScope;
  readonly label: string;
  /** False for a secondary address (a second address in an already-covered subnet). */
  readonly primary: boolean;
}

export class InterfaceAddresses {
  private readonly list: IfAddr[] = [];

  all(): readonly IfAddr[] {
    return this.list;
  }

  onDevice(ifindex: number): IfAddr[] {
    return this.list.filter((ifa) => ifa.ifindex === ifindex);
  }

  find(ifindex: number, addr: Ipv4Addr, prefixLen: number): IfAddr | undefined {
    return this.list.find(
      (ifa) => ifa.ifindex === ifindex && ifa.addr === addr && ifa.prefixLen === prefixLen,
    );
  }

  /** inet_insert_ifa: secondaries are addresses inside a subnet a primary of the device already covers. */
  add(ifa: Omit<IfAddr, 'primary'>): IfAddr {
    const mask = prefixMask(ifa.prefixLen);
    const covered = this.list.some(
      (other) =>
        other.ifindex === ifa.ifindex &&
        other.primary &&
        other.prefixLen === ifa.prefixLen &&
        ((other.addr ^ ifa.addr) & mask) === 0,
    );
    const added: IfAddr = { ...ifa, primary: !covered };
    this.list.push(added);
    return added;
  }

  remove(ifa: IfAddr): void {
    const index = this.list.indexOf(ifa);
    if (index >= 0) this.list.splice(index, 1);
  }

  removeDevice(ifindex: number): IfAddr[] {
    const removed = this.onDevice(ifindex);
    for (const ifa of removed) this.remove(ifa);
    return removed;
  }

  /** True when `addr` is configured on any interface of the namespace. */
  isLocal(addr: Ipv4Addr): boolean {
    return this.list.some((ifa) => ifa.addr === addr);
  }

  /**
   * inet_select_addr: a primary address of `ifindex` whose scope is no narrower than
   * `maxScope`, preferring one whose subnet holds `dst`; otherwise a global address of
   * any other interface. Undefined when the namespace has none.
   */
  select(ifindex: number, dst: Ipv4Addr, maxScope: AddrScope): Ipv4Addr | undefined {
    const limit = SCOPE_VALUE[maxScope];
    let first: Ipv4Addr | undefined;
    for (const ifa of this.list) {
      if (ifa.ifindex !== ifindex || !ifa.primary || SCOPE_VALUE[ifa.scope] > limit) continue;
      if (((ifa.addr ^ dst) & prefixMask(ifa.prefixLen)) === 0) return ifa.addr;
      first ??= ifa.addr;
    }
    if (first !== undefined) return first;
    for (const ifa of this.list) {
      if (ifa.primary && ifa.scope !== 'host' && SCOPE_VALUE[ifa.scope] <= limit) return ifa.addr;
    }
    return undefined;
  }
}
