// The API server's two allocators: Service ClusterIPs from the service CIDR (10.96.0.0/12 on kind) and NodePorts
// from 30000-32767, each a bitmap split into a static band (tried last by dynamic allocation, so addresses and ports
// people pin rarely collide) and a dynamic band, with random starts from the simulation's rng. IPv4 only; no
// IPAddress objects (the MultiCIDRServiceAllocator gate is off in v1.31), no repair loops.
//
// mirrors pkg/registry/core/service/allocator/bitmap.go (randomScanStrategyWithOffset), ipallocator/bitmap.go
// (NewAllocatorCIDRRange: base = network + 1, max = size - 2; calculateRangeOffset min 16, max 256, step 16) and
// portallocator/allocator.go (calculateRangeOffset min 16, max 128, step 32; ErrNotInRange, ErrAllocated).

import ipaddr from 'ipaddr.js';
import type { Rng } from '../../core/rng.ts';

/** What an allocation that failed says (the text the API server puts after `Invalid value: V: `). */
export type AllocationResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

const OK: AllocationResult = { ok: true };

/** allocator.AllocationBitmap with randomScanStrategyWithOffset: offsets [0, max), the band [0, offset) last. */
export class BandedBitmap {
  private readonly taken = new Set<number>();

  constructor(
    readonly max: number,
    readonly staticBand: number,
    private readonly rng: Rng,
  ) {}

  get used(): number {
    return this.taken.size;
  }

  has(offset: number): boolean {
    return this.taken.has(offset);
  }

  /** False when already taken. */
  allocate(offset: number): boolean {
    if (this.taken.has(offset)) return false;
    this.taken.add(offset);
    return true;
  }

  /** The dynamic band from a random start (wrapping), then the static band from a random start; undefined when full. */
  allocateNext(): number | undefined {
    if (this.taken.size >= this.max) return undefined;
    const dynamicSize = this.max - this.staticBand;
    let start = this.rng.int(dynamicSize);
    for (let i = 0; i < dynamicSize; i++) {
      const at = this.staticBand + ((start + i) % dynamicSize);
      if (!this.taken.has(at)) return this.take(at);
    }
    if (this.staticBand > 0) {
      start = this.rng.int(this.staticBand);
      for (let i = 0; i < this.staticBand; i++) {
        const at = (start + i) % this.staticBand;
        if (!this.taken.has(at)) return this.take(at);
      }
    }
    return undefined;
  }

  release(offset: number): void {
    this.taken.delete(offset);
  }

  private take(offset: number): number {
    this.taken.add(offset);
    return offset;
  }
}

/** ipallocator's calculateRangeOffset: min(max(16, size/16), 256), 0 for ranges of 16 addresses or fewer. */
export function ipRangeOffset(size: number): number {
  if (size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 16)), 256);
}

/** portallocator's calculateRangeOffset: min(max(16, size/32), 128), 0 for ranges of 16 ports or fewer. */
export function portRangeOffset(size: number): number {
  if (size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 32)), 128);
}

function toUint32(address: string): number | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return undefined;
  const bytes = ipaddr.IPv4.parse(address).toByteArray();
  return ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
}

function fromUint32(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** Service ClusterIPs out of one IPv4 CIDR. */
export class ClusterIpAllocator {
  readonly cidr: string;
  private readonly base: number;
  private readonly bitmap: BandedBitmap;

  constructor(cidr: string, rng: Rng) {
    const [network, prefix] = ipaddr.IPv4.parseCIDR(cidr);
    const size = 2 ** (32 - prefix);
    const bytes = network.toByteArray();
    const first =
      (((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0) & ~(size - 1);
    this.cidr = `${fromUint32(first >>> 0)}/${prefix}`;
    this.base = (first >>> 0) + 1;
    this.bitmap = new BandedBitmap(Math.max(0, size - 2), ipRangeOffset(size), rng);
  }

  /** The n-th address of the range (1 = the `kubernetes` Service's, 10 = kube-dns's on kind). */
  nth(n: number): string {
    return fromUint32(this.base - 1 + n);
  }

  /** Whether an address was handed out. */
  has(ip: string): boolean {
    const offset = this.offsetOf(ip);
    return offset !== undefined && this.bitmap.has(offset);
  }

  get used(): number {
    return this.bitmap.used;
  }

  /** Reserves a given address (`Range.Allocate`). */
  allocate(ip: string): AllocationResult {
    const offset = this.offsetOf(ip);
    if (offset === undefined) {
      return {
        ok: false,
        error: `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.cidr}`,
      };
    }
    return this.bitmap.allocate(offset) ? OK : { ok: false, error: 'provided IP is already allocated' };
  }

  /** A free address, the dynamic band first; undefined when the range is full. */
  allocateNext(): string | undefined {
    const offset = this.bitmap.allocateNext();
    return offset === undefined ? undefined : fromUint32(this.base + offset);
  }

  release(ip: string): void {
    const offset = this.offsetOf(ip);
    if (offset !== undefined) this.bitmap.release(offset);
  }

  private offsetOf(ip: string): number | undefined {
    const value = toUint32(ip);
    if (value === undefined) return undefined;
    const offset = value - this.base;
    return offset >= 0 && offset < this.bitmap.max ? offset : undefined;
  }
}

/** NodePorts (and healthCheckNodePorts) out of one port range. */
export class NodePortAllocator {
  private readonly bitmap: BandedBitmap;

  constructor(
    readonly first: number,
    readonly last: number,
    rng: Rng,
  ) {
    const size = last - first + 1;
    this.bitmap = new BandedBitmap(size, portRangeOffset(size), rng);
  }

  /** `30000-32767`, as net.PortRange.String() prints it. */
  get range(): string {
    return `${this.first}-${this.last}`;
  }

  has(port: number): boolean {
    return this.contains(port) && this.bitmap.has(port - this.first);
  }

  get used(): number {
    return this.bitmap.used;
  }

  allocate(port: number): AllocationResult {
    if (!this.contains(port)) {
      return {
        ok: false,
        error: `provided port is not in the valid range. The range of valid ports is ${this.range}`,
      };
    }
    return this.bitmap.allocate(port - this.first)
      ? OK
      : { ok: false, error: 'provided port is already allocated' };
  }

  allocateNext(): number | undefined {
    const offset = this.bitmap.allocateNext();
    return offset === undefined ? undefined : this.first + offset;
  }

  release(port: number): void {
    if (this.contains(port)) this.bitmap.release(port - this.first);
  }

  private contains(port: number): boolean {
    return Number.isInteger(port) && port >= this.first && port <= this.last;
  }
}
