// A forwarding database: MAC → port, learned with an ageing time or installed static (net/bridge/br_fdb.c); no VLANs.

import type { MacAddr } from '../wire/address.ts';

/** The kernel's default ageing time, 300 s (BR_DEFAULT_AGEING_TIME), in ns. */
export const DEFAULT_AGEING_NS = 300e9;

export interface FdbEntry {
  /** ifindex of the port the MAC sits behind. */
  port: number;
  /** Virtual time of the last frame seen from this MAC, in ns. */
  updatedNs: number;
  /** A MAC of the bridge itself or of one of its ports ("permanent"): frames to it are for the host. */
  local: boolean;
  /** Installed by hand ("static"): never ages. */
  static: boolean;
}

export class Fdb {
  private readonly entries = new Map<MacAddr, FdbEntry>();

  constructor(public ageingNs = DEFAULT_AGEING_NS) {}

  /** br_fdb_update: learn or refresh `mac` behind `port`; static and local entries are not moved. */
  learn(mac: MacAddr, port: number, nowNs: number): void {
    const entry = this.entries.get(mac);
    if (entry === undefined) {
      this.entries.set(mac, { port, updatedNs: nowNs, local: false, static: false });
      return;
    }
    if (entry.local || entry.static) return;
    entry.port = port;
    entry.updatedNs = nowNs;
  }

  /** Installs a permanent (local) or static entry. */
  install(mac: MacAddr, port: number, kind: { local: boolean }): void {
    this.entries.set(mac, { port, updatedNs: 0, local: kind.local, static: !kind.local });
  }

  remove(mac: MacAddr): boolean {
    return this.entries.delete(mac);
  }

  /** br_fdb_find: the live entry for `mac`; an aged-out learned entry is removed and not returned. */
  lookup(mac: MacAddr, nowNs: number): FdbEntry | undefined {
    const entry = this.entries.get(mac);
    if (entry === undefined) return undefined;
    if (!entry.local && !entry.static && nowNs - entry.updatedNs > this.ageingNs) {
      this.entries.delete(mac);
      return undefined;
    }
    return entry;
  }

  /** Removes every entry pointing at `port` (a port leaving the bridge). */
  flushPort(port: number): void {
    for (const [mac, entry] of this.entries) if (entry.port === port) this.entries.delete(mac);
  }

  /** Live entries, aged ones removed first, in insertion order. */
  list(nowNs: number): [MacAddr, FdbEntry][] {
    const live: [MacAddr, FdbEntry][] = [];
    for (const [mac] of this.entries) {
      const entry = this.lookup(mac, nowNs);
      if (entry !== undefined) live.push([mac, entry]);
    }
    return live;
  }
}
