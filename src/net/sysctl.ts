// The per-namespace sysctl tree packetlab models: names, Linux defaults, and integer validation; no /proc.
//
// Keys are the dotted names `sysctl` prints (net.ipv4.ip_forward). Per-device keys use the
// `conf.<dev>.` form; `conf.all` and `conf.default` exist as in Linux. Values are kept as
// the text the kernel would print (`32768\t60999` for the port range).

import { parseReservedPorts } from './reserved-ports.ts';

/** A value's shape: one integer in [min, max], or several separated by tabs. */
interface SysctlSpec {
  readonly defaultValue: string;
  readonly min: number;
  readonly max: number;
  readonly fields: number;
  /** Mode 0444 (nf_conntrack_count): writing fails with EACCES. */
  readonly readOnly?: boolean;
  /**
   * A value that is not integers (ip_local_reserved_ports' port list) or whose fields depend on each
   * other (ip_local_port_range): the text to store, or undefined for EINVAL, or another errno the
   * handler returns (tcp_congestion_control's ENOENT for an unknown name). Replaces the integer check.
   */
  readonly parse?: SysctlParse;
}

/** A text key's validation: the text to store, undefined for EINVAL, or the handler's own errno. */
export type SysctlParse = (
  text: string,
  sysctls: Sysctls,
) => string | undefined | { readonly errno: 'ENOENT' };

/**
 * A key whose value lives in a layer above (the conntrack table's live count, its limit, its
 * timeouts): read and written through these functions instead of the stored text. Single-field
 * keys only.
 */
export interface SysctlBinding {
  /** The current value, read at every access (`sysctl -a`, `sysctl -n`, int()). */
  readonly read?: () => number;
  /** Applies a value once it passed validation (and was stored). */
  readonly write?: (value: number) => void;
}

const int = (defaultValue: number, min = 0, max = 2147483647): SysctlSpec => ({
  defaultValue: String(defaultValue),
  min,
  max,
  fields: 1,
});
const bool = (defaultValue: 0 | 1): SysctlSpec => int(defaultValue, 0, 1);

/** Namespace-wide keys and their defaults in a new network namespace on Linux 6.x. */
const GLOBAL_KEYS: Record<string, SysctlSpec> = {
  /** devinet_sysctl_forward takes any integer (proc_dointvec), 0 meaning off. */
  'net.ipv4.ip_forward': int(0, -2147483648),
  'net.ipv4.ip_default_ttl': int(64, 1, 255),
  'net.ipv4.ip_local_port_range': {
    defaultValue: '32768\t60999',
    min: 1,
    max: 65535,
    fields: 2,
    // ipv4_local_port_range: low <= high, and low not below ip_unprivileged_port_start.
    parse: (text, sysctls) => {
      const fields = text.trim().split(/\s+/);
      if (fields.length !== 2 || !fields.every((field) => /^[0-9]+$/.test(field))) return undefined;
      const [low, high] = fields.map(Number) as [number, number];
      if (high > 65535 || high < low || low < sysctls.int('net.ipv4.ip_unprivileged_port_start'))
        return undefined;
      return `${low}\t${high}`;
    },
  },
  /** A port list (proc_do_large_bitmap), read back sorted with ranges merged: `8080,9000-9100`. */
  'net.ipv4.ip_local_reserved_ports': {
    defaultValue: '',
    min: 0,
    max: 65535,
    fields: 1,
    parse: parseReservedPorts,
  },
  'net.ipv4.ip_unprivileged_port_start': int(1024, 0, 65535),
  'net.ipv4.ip_no_pmtu_disc': int(0, 0, 3),
  'net.ipv4.icmp_echo_ignore_all': bool(0),
  'net.ipv4.icmp_ratelimit': int(1000),
  'net.ipv4.icmp_ratemask': int(6168),
  'net.ipv4.icmp_msgs_per_sec': int(1000),
  'net.ipv4.icmp_msgs_burst': int(50),
  'net.ipv4.icmp_errors_use_inbound_ifaddr': bool(0),
  'net.ipv4.ipfrag_time': int(30),
  'net.ipv4.ipfrag_high_thresh': int(4194304),
  'net.ipv4.ipfrag_low_thresh': int(3145728),
  'net.ipv4.tcp_tw_reuse': int(2, 0, 2),
  /** Milliseconds a TIME_WAIT must have lasted before tcp_tw_reuse lets connect() take its port (6.12+). */
  'net.ipv4.tcp_tw_reuse_delay': int(1000, 1),
  /** packetlab: drops every ICMP error this namespace would send, to reproduce a PMTU black hole. */
  'net.packetlab.icmp_errors_blackhole': bool(0),
};

/**
 * Per-device neighbour keys (under net.ipv4.neigh.<dev>.). A namespace other than the initial
 * one has no net.ipv4.neigh.default: each device carries its own copy of the defaults.
 */
const NEIGH_KEYS: Record<string, SysctlSpec> = {
  base_reachable_time_ms: int(30000),
  delay_first_probe_time: int(5),
  gc_stale_time: int(60),
  retrans_time_ms: int(1000),
  mcast_solicit: int(3),
  ucast_solicit: int(3),
  unres_qlen_bytes: int(212992),
};

/** Per-device keys (under net.ipv4.conf.<dev>.) and their defaults. */
const DEVICE_KEYS: Record<string, SysctlSpec> = {
  forwarding: bool(0),
  rp_filter: int(0, 0, 2),
  arp_ignore: int(0, 0, 8),
  arp_announce: int(0, 0, 2),
  arp_accept: int(0, 0, 2),
  proxy_arp: bool(0),
  accept_local: bool(0),
  route_localnet: bool(0),
};

export type SysctlResult = { ok: true; value: string } | { ok: false; error: 'ENOENT' | 'EINVAL' | 'EACCES' };

/** One key's number and, when bound, the function that reads its live value. */
interface IntSlot {
  value: number;
  read: (() => number) | undefined;
}

export class Sysctls {
  private readonly values = new Map<string, string>();
  /**
   * Values as numbers (a multi-field one by its first field) with the key's live reader if it is bound, so a
   * per-packet read parses nothing and looks up one map.
   */
  private readonly numbers = new Map<string, IntSlot>();
  /** `net.ipv4.conf.<dev>.<name>` strings, built once per device and name rather than per packet. */
  private readonly confKeys = new Map<string, Map<string, string>>();
  private readonly specs = new Map<string, SysctlSpec>();
  private readonly bindings = new Map<string, SysctlBinding>();

  constructor() {
    for (const [key, spec] of Object.entries(GLOBAL_KEYS)) this.define(key, spec);
    this.addConf('all');
    this.addConf('default');
  }

  /**
   * Adds keys defined by a layer above (netfilter's nf_conntrack_max, the bridge's
   * bridge-nf-call-iptables); `binding` ties the key to live state there.
   */
  define(
    key: string,
    spec: {
      defaultValue: string;
      min: number;
      max: number;
      fields?: number;
      readOnly?: boolean;
      parse?: SysctlParse;
    },
    binding?: SysctlBinding,
  ): void {
    this.specs.set(key, { fields: 1, ...spec });
    this.store(key, spec.defaultValue);
    if (binding !== undefined) this.bindings.set(key, binding);
    else this.bindings.delete(key);
    this.numbers.get(key)!.read = binding?.read;
  }

  /** Creates `net.ipv4.conf.<dev>.*` and `net.ipv4.neigh.<dev>.*` for a new device (conf copies `default`, as Linux does). */
  addDevice(dev: string): void {
    this.addConf(dev);
    for (const [name, spec] of Object.entries(NEIGH_KEYS)) {
      this.specs.set(`net.ipv4.neigh.${dev}.${name}`, spec);
      this.store(`net.ipv4.neigh.${dev}.${name}`, spec.defaultValue);
    }
  }

  private addConf(dev: string): void {
    for (const [name, spec] of Object.entries(DEVICE_KEYS)) {
      const inherited = this.values.get(`net.ipv4.conf.default.${name}`);
      this.specs.set(`net.ipv4.conf.${dev}.${name}`, spec);
      this.store(`net.ipv4.conf.${dev}.${name}`, inherited ?? spec.defaultValue);
    }
  }

  removeDevice(dev: string): void {
    for (const name of Object.keys(DEVICE_KEYS)) {
      this.specs.delete(`net.ipv4.conf.${dev}.${name}`);
      this.erase(`net.ipv4.conf.${dev}.${name}`);
    }
    for (const name of Object.keys(NEIGH_KEYS)) {
      this.specs.delete(`net.ipv4.neigh.${dev}.${name}`);
      this.erase(`net.ipv4.neigh.${dev}.${name}`);
    }
  }

  /** A device's neighbour parameter (net.ipv4.neigh.<dev>.<name>), the kernel default if the device is gone. */
  neigh(dev: string | undefined, name: keyof typeof NEIGH_KEYS): number {
    const value = dev === undefined ? undefined : this.values.get(`net.ipv4.neigh.${dev}.${name}`);
    return Number.parseInt(value ?? NEIGH_KEYS[name]!.defaultValue, 10);
  }

  private store(key: string, value: string): void {
    this.values.set(key, value);
    // A multi-field value reads as its first field, as before.
    const number = Number.parseInt(value, 10);
    const slot = this.numbers.get(key);
    if (slot === undefined) this.numbers.set(key, { value: number, read: this.bindings.get(key)?.read });
    else slot.value = number;
  }

  private erase(key: string): void {
    this.values.delete(key);
    this.numbers.delete(key);
  }

  /** The key of a per-device conf value (`net.ipv4.conf.eth0.forwarding`), without building a string per call. */
  confKey(dev: string, name: string): string {
    let keys = this.confKeys.get(dev);
    if (keys === undefined) {
      keys = new Map();
      this.confKeys.set(dev, keys);
    }
    let key = keys.get(name);
    if (key === undefined) {
      key = `net.ipv4.conf.${dev}.${name}`;
      keys.set(name, key);
    }
    return key;
  }

  has(key: string): boolean {
    return this.values.has(normalize(key));
  }

  get(key: string): SysctlResult {
    const name = normalize(key);
    const value = this.values.get(name);
    if (value === undefined) return { ok: false, error: 'ENOENT' };
    const read = this.bindings.get(name)?.read;
    return { ok: true, value: read === undefined ? value : String(read()) };
  }

  /** The text of a key the stack reads by its exact dotted name (no result record, no name normalising); undefined when absent. */
  text(key: string): string | undefined {
    const read = this.bindings.size === 0 ? undefined : this.bindings.get(key)?.read;
    return read === undefined ? this.values.get(key) : String(read());
  }

  /** The integer value of a key the stack reads; a programmer error when the key does not exist. */
  int(key: string): number {
    const slot = this.numbers.get(key);
    if (slot === undefined) throw new Error(`unknown sysctl ${key}`);
    return slot.read === undefined ? slot.value : slot.read();
  }

  /** Writes a value after validating it as the kernel's proc_dointvec_minmax would. */
  set(key: string, text: string): SysctlResult {
    const name = normalize(key);
    const spec = this.specs.get(name);
    if (spec === undefined) return { ok: false, error: 'ENOENT' };
    if (spec.readOnly === true) return { ok: false, error: 'EACCES' };
    if (spec.parse !== undefined) {
      const parsed = spec.parse(text, this);
      if (parsed === undefined) return { ok: false, error: 'EINVAL' };
      if (typeof parsed !== 'string') return { ok: false, error: parsed.errno };
      this.store(name, parsed);
      return { ok: true, value: parsed };
    }
    const fields = text.trim().split(/\s+/);
    if (fields.length !== spec.fields) return { ok: false, error: 'EINVAL' };
    const numbers = fields.map((field) => (/^-?[0-9]+$/.test(field) ? Number(field) : Number.NaN));
    if (numbers.some((n) => Number.isNaN(n) || n < spec.min || n > spec.max))
      return { ok: false, error: 'EINVAL' };
    const value = numbers.join('\t');
    this.store(name, value);
    if (name === 'net.ipv4.ip_forward') this.propagateForwarding(value);
    this.bindings.get(name)?.write?.(numbers[0]!);
    return { ok: true, value };
  }

  /** Keys under a prefix, sorted, as `sysctl -a` lists them. */
  keys(prefix = ''): string[] {
    return [...this.values.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  /** Writing ip_forward sets conf.all/default/<every dev>.forwarding too (devinet.c: devinet_sysctl_forward). */
  private propagateForwarding(value: string): void {
    for (const key of this.values.keys()) if (key.endsWith('.forwarding')) this.store(key, value);
  }
}

/** `sysctl` accepts slashes as separators too (net/ipv4/ip_forward). */
function normalize(key: string): string {
  return key.includes('/') ? key.replaceAll('/', '.') : key;
}
