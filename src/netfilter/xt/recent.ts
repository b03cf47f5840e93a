// The recent match (xt_recent.c) as kube-proxy uses it for session affinity: named lists of source (or
// destination) addresses with the times they were seen; --set, --rcheck, --update, --remove, --seconds, --reap.

import type { XtMatchOptions } from '../ir.ts';

type Recent = Extract<XtMatchOptions, { name: 'recent' }>;

/** ip_pkt_list_tot: the kernel keeps the 20 most recent hits per address. */
const HITS_PER_ENTRY = 20;

export class RecentLists {
  private readonly lists = new Map<string, Map<number, number[]>>();
  /** The TTL each address was last seen with, for --rttl. */
  private readonly ttls = new Map<string, Map<number, number>>();

  /** recent_mt: whether the rule matches (`!` inverts), updating the list as the command says. */
  matches(options: Recent, srcAddr: number, dstAddr: number, nowNs: number, ttl: number): boolean {
    return this.evaluate(options, srcAddr, dstAddr, nowNs, ttl) !== (options.invert ?? false);
  }

  private evaluate(options: Recent, srcAddr: number, dstAddr: number, nowNs: number, ttl: number): boolean {
    const addr = ((options.side === 'source' ? srcAddr : dstAddr) & options.mask) >>> 0;
    let list = this.lists.get(options.listName);
    if (list === undefined) {
      list = new Map();
      this.lists.set(options.listName, list);
    }
    const hits = list.get(addr);
    switch (options.command) {
      case 'set': {
        this.ttlsOf(options.listName).set(addr, ttl);
        const updated = hits ?? [];
        updated.push(nowNs);
        if (updated.length > HITS_PER_ENTRY) updated.shift();
        list.set(addr, updated);
        return true;
      }
      case 'remove':
        return list.delete(addr);
      case 'rcheck':
      case 'update': {
        if (hits === undefined) return false;
        const windowNs = options.seconds === undefined ? undefined : options.seconds * 1e9;
        if (options.reap && windowNs !== undefined) {
          const fresh = hits.filter((time) => nowNs - time <= windowNs);
          if (fresh.length === 0) list.delete(addr);
          else list.set(addr, fresh);
        }
        // --seconds and --hitcount: at least hitcount hits (1 by default) inside the window; --rttl: same TTL as at --set.
        const inWindow = hits.filter((time) => windowNs === undefined || nowNs - time <= windowNs).length;
        const ttlOk = !options.rttl || this.ttlsOf(options.listName).get(addr) === ttl;
        const matched = inWindow >= (options.hitcount ?? 1) && ttlOk;
        if (matched && options.command === 'update') {
          const updated = list.get(addr) ?? [];
          updated.push(nowNs);
          if (updated.length > HITS_PER_ENTRY) updated.shift();
          list.set(addr, updated);
        }
        return matched;
      }
    }
  }

  private ttlsOf(listName: string): Map<number, number> {
    let ttls = this.ttls.get(listName);
    if (ttls === undefined) {
      ttls = new Map();
      this.ttls.set(listName, ttls);
    }
    return ttls;
  }

  /** The addresses of a list, as /proc/net/xt_recent/NAME shows them. */
  entries(listName: string): [number, number[]][] {
    return [...(this.lists.get(listName) ?? new Map<number, number[]>())];
  }
}
