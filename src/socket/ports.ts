// A namespace's local port searches: connect()'s (inet_hashtables.c:__inet_hash_connect, RFC 6056's algorithm 4
// with the kernel's perturbation table) and bind(addr, 0)'s (inet_connection_sock.c:inet_csk_find_open_port), over
// net.ipv4.ip_local_port_range minus net.ipv4.ip_local_reserved_ports. The sockets' own rules (which port is free)
// come from the caller; no per-socket IP_LOCAL_PORT_RANGE, no SO_BINDTODEVICE/l3mdev, no ip_autobind_reuse.

import type { Rng } from '../core/rng.ts';
import type { Sysctls } from '../net/sysctl.ts';
import type { Ipv4Addr } from '../wire/address.ts';

/** INET_TABLE_PERTURB_SIZE with CONFIG_INET_TABLE_PERTURB_ORDER's default of 16. */
export const INET_TABLE_PERTURB_SIZE = 1 << 16;

/** A 32-bit mix (murmur3's finaliser) of a value with a key: our stand-in for siphash, not cryptographic. */
function mix(key: number, value: number): number {
  let h = (key ^ Math.imul(value, 0xcc9e2d51)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class LocalPorts {
  /** table_perturb: entries are drawn lazily (the kernel fills the whole table with random words once). */
  private readonly perturb = new Map<number, number>();
  private readonly perturbKey: number;
  /** The keys of our secure_ipv4_port_ephemeral (net_secret in Linux). */
  private readonly offsetKeys: readonly [number, number];
  private reservedText = '';
  private reserved: Uint8Array | undefined;

  constructor(
    private readonly sysctls: Sysctls,
    private readonly rng: Rng,
  ) {
    const secrets = rng.fork('port-secrets');
    this.offsetKeys = [secrets.u32(), secrets.u32()];
    this.perturbKey = secrets.u32();
  }

  /** net.ipv4.ip_local_port_range, both ends included. */
  range(): [number, number] {
    const value = this.sysctls.get('net.ipv4.ip_local_port_range');
    const [low, high] = (value.ok ? value.value : '32768\t60999').split('\t').map(Number);
    return [low ?? 32768, high ?? 60999];
  }

  /** inet_is_local_reserved_port. */
  isReserved(port: number): boolean {
    return this.reservedPorts()?.[port] === 1;
  }

  /** ip_local_reserved_ports as one byte per port (1: reserved), undefined when none is; read once per search. */
  reservedPorts(): Uint8Array | undefined {
    const value = this.sysctls.get('net.ipv4.ip_local_reserved_ports');
    const text = value.ok ? value.value : '';
    if (text === '') return undefined;
    if (text !== this.reservedText || this.reserved === undefined) {
      const bitmap = new Uint8Array(65536);
      for (const item of text.split(',')) {
        const [first, last] = item.split('-').map(Number);
        bitmap.fill(1, first ?? 0, (last ?? first ?? 0) + 1);
      }
      this.reserved = bitmap;
      this.reservedText = text;
    }
    return this.reserved;
  }

  /**
   * inet_sk_port_offset → secure_ipv4_port_ephemeral: a keyed 64-bit hash of (saddr, daddr, dport);
   * its low bits index the perturbation table, its high 32 bits are added to the entry.
   */
  private portOffset(saddr: Ipv4Addr, daddr: Ipv4Addr, dport: number): { index: number; high: number } {
    const [k0, k1] = this.offsetKeys;
    const h0 = mix(mix(mix(k0, saddr), daddr), dport);
    const h1 = mix(mix(mix(k1, daddr), saddr), dport ^ h0);
    return { index: h0 & (INET_TABLE_PERTURB_SIZE - 1), high: h1 };
  }

  private perturbAt(index: number): number {
    return this.perturb.get(index) ?? mix(this.perturbKey, index);
  }

  /**
   * mirrors inet_hashtables.c:__inet_hash_connect for a socket without a port: an offset from the
   * hash and the perturbation entry, ports of the range's low parity first in steps of 2, then the
   * other parity; reserved ports are skipped; `usable` says whether a port can carry this connection
   * (and takes it). On success the entry advances by the steps scanned plus a random 0–14.
   */
  connectSearch(
    saddr: Ipv4Addr,
    daddr: Ipv4Addr,
    dport: number,
    usable: (port: number) => boolean,
  ): number | undefined {
    const [low, last] = this.range();
    const high = last + 1;
    let remaining = high - low;
    if (remaining > 1) remaining &= ~1;
    const { index, high: offsetHigh } = this.portOffset(saddr, daddr, dport);
    let offset = ((this.perturbAt(index) + offsetHigh) >>> 0) % remaining;
    offset &= ~1;
    const reserved = this.reservedPorts();
    for (;;) {
      let port = low + offset;
      for (let i = 0; i < remaining; i += 2, port += 2) {
        if (port >= high) port -= remaining;
        if (reserved !== undefined && reserved[port] === 1) continue;
        if (!usable(port)) continue;
        // "a little bit of randomness to the next source port": max(i, get_random_u32_below(8) * 2).
        const advance = Math.max(i, this.rng.int(8) * 2) + 2;
        this.perturb.set(index, (this.perturbAt(index) + advance) >>> 0);
        return port;
      }
      offset++;
      if ((offset & 1) === 0 || remaining <= 1) return undefined;
    }
  }

  /**
   * mirrors inet_connection_sock.c:inet_csk_find_open_port: a random odd offset (connect() favours
   * the even ports), odd ports then even ones; with SO_REUSEADDR the lower half of the range first,
   * then the upper half. `conflicts` is inet_csk_bind_conflict with relax off.
   */
  bindSearch(reuseAddr: boolean, conflicts: (port: number) => boolean): number | undefined {
    let attemptHalf = reuseAddr ? 1 : 0;
    for (;;) {
      const [rangeLow, last] = this.range();
      let low = rangeLow;
      let high = last + 1;
      if (high - low < 4) attemptHalf = 0;
      if (attemptHalf !== 0) {
        const half = low + (((high - low) >> 2) << 1);
        if (attemptHalf === 1) high = half;
        else low = half;
      }
      let remaining = high - low;
      if (remaining > 1) remaining &= ~1;
      let offset = this.rng.int(remaining) | 1;
      const reserved = this.reservedPorts();
      for (;;) {
        let port = low + offset;
        for (let i = 0; i < remaining; i += 2, port += 2) {
          if (port >= high) port -= remaining;
          if (reserved !== undefined && reserved[port] === 1) continue;
          if (!conflicts(port)) return port;
        }
        offset--;
        if ((offset & 1) !== 0) break;
      }
      if (attemptHalf !== 1) return undefined;
      attemptHalf = 2;
    }
  }
}
