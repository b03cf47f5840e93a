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

/**
 * The keys a namespace defined, their specs and default values, shared by every namespace that defined the same keys
 * with the same specs in the same order (all of them, in practice): a namespace keeps only what it wrote. Like V8's
 * hidden classes, each define from a schema leads to one child schema, remembered.
 */
class Schema {
  readonly slots: Map<string, number>;
  readonly keys: string[];
  readonly specs: SysctlSpec[];
  readonly defaults: string[];
  readonly defaultNumbers: number[];
  private readonly transitions = new Map<string, Schema[]>();

  constructor(from?: Schema) {
    this.slots = new Map(from?.slots);
    this.keys = from === undefined ? [] : [...from.keys];
    this.specs = from === undefined ? [] : [...from.specs];
    this.defaults = from === undefined ? [] : [...from.defaults];
    this.defaultNumbers = from === undefined ? [] : [...from.defaultNumbers];
  }

  /** This schema with `key` (re)defined as `spec`. */
  with(key: string, spec: SysctlSpec): Schema {
    let known = this.transitions.get(key);
    if (known === undefined) {
      known = [];
      this.transitions.set(key, known);
    }
    for (const next of known) if (sameSpec(next.specs[next.slots.get(key)!]!, spec)) return next;
    const next = new Schema(this);
    let slot = next.slots.get(key);
    if (slot === undefined) {
      slot = next.keys.length;
      next.slots.set(key, slot);
      next.keys.push(key);
    }
    next.specs[slot] = spec;
    next.defaults[slot] = spec.defaultValue;
    next.defaultNumbers[slot] = Number.parseInt(spec.defaultValue, 10);
    known.push(next);
    return next;
  }
}

function sameSpec(a: SysctlSpec, b: SysctlSpec): boolean {
  return (
    a.defaultValue === b.defaultValue &&
    a.min === b.min &&
    a.max === b.max &&
    a.fields === b.fields &&
    a.readOnly === b.readOnly &&
    a.parse === b.parse
  );
}

/** GLOBAL_KEYS, the schema every namespace starts from. */
let rootSchema: Schema | undefined;

function globalSchema(): Schema {
  if (rootSchema === undefined) {
    let schema = new Schema();
    for (const [key, spec] of Object.entries(GLOBAL_KEYS)) schema = schema.with(key, spec);
    rootSchema = schema;
  }
  return rootSchema;
}

const DEVICE_NAMES = Object.keys(DEVICE_KEYS);
const DEVICE_SPECS = Object.values(DEVICE_KEYS);
const NEIGH_NAMES = Object.keys(NEIGH_KEYS);
const NEIGH_SPECS = Object.values(NEIGH_KEYS);
const CONF_PREFIX = 'net.ipv4.conf.';
const NEIGH_PREFIX = 'net.ipv4.neigh.';

/** One device's conf keys (and neigh keys, but for `all` and `default`), as texts and numbers by index. */
interface DeviceValues {
  readonly conf: string[];
  readonly confNumbers: number[];
  readonly neigh: string[] | undefined;
  readonly neighNumbers: number[] | undefined;
}

/** Where a per-device key's value lives. */
interface DeviceSlot {
  readonly texts: string[];
  readonly numbers: number[];
  readonly index: number;
  readonly spec: SysctlSpec;
}

const NEIGH_DEFAULTS = NEIGH_SPECS.map((spec) => spec.defaultValue);

export class Sysctls {
  private schema = globalSchema();
  /** Values written since the key was defined, by key (most namespaces write a handful, pods none). */
  private readonly written = new Map<string, string>();
  private readonly writtenNumbers = new Map<string, number>();
  private readonly devices = new Map<string, DeviceValues>();
  /** Per-device keys already resolved (the stack's per-packet reads), cleared when a device goes. */
  private readonly deviceSlots = new Map<string, DeviceSlot>();
  /** `net.ipv4.conf.<dev>.<name>` strings, built once per device and name rather than per packet. */
  private readonly confKeys = new Map<string, Map<string, string>>();
  private readonly bindings = new Map<string, SysctlBinding>();

  constructor() {
    this.addConf('all', false);
    this.addConf('default', false);
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
    this.schema = this.schema.with(key, { fields: 1, ...spec });
    this.written.delete(key);
    this.writtenNumbers.delete(key);
    if (binding !== undefined) this.bindings.set(key, binding);
    else this.bindings.delete(key);
  }

  /** Creates `net.ipv4.conf.<dev>.*` and `net.ipv4.neigh.<dev>.*` for a new device (conf copies `default`, as Linux does). */
  addDevice(dev: string): void {
    this.addConf(dev, true);
  }

  private addConf(dev: string, neigh: boolean): void {
    const inherited = this.devices.get('default');
    this.dropSlots(dev);
    this.devices.set(dev, {
      conf: inherited === undefined ? DEVICE_SPECS.map((spec) => spec.defaultValue) : [...inherited.conf],
      confNumbers:
        inherited === undefined
          ? DEVICE_SPECS.map((spec) => Number.parseInt(spec.defaultValue, 10))
          : [...inherited.confNumbers],
      neigh: neigh ? [...NEIGH_DEFAULTS] : undefined,
      neighNumbers: neigh ? NEIGH_DEFAULTS.map((text) => Number.parseInt(text, 10)) : undefined,
    });
  }

  removeDevice(dev: string): void {
    this.devices.delete(dev);
    this.dropSlots(dev);
  }

  private dropSlots(dev: string): void {
    if (this.deviceSlots.size === 0) return;
    for (const name of DEVICE_NAMES) this.deviceSlots.delete(`${CONF_PREFIX}${dev}.${name}`);
    for (const name of NEIGH_NAMES) this.deviceSlots.delete(`${NEIGH_PREFIX}${dev}.${name}`);
  }

  /** A device's neighbour parameter (net.ipv4.neigh.<dev>.<name>), the kernel default if the device is gone. */
  neigh(dev: string | undefined, name: keyof typeof NEIGH_KEYS): number {
    const values = dev === undefined ? undefined : this.devices.get(dev)?.neigh;
    const index = NEIGH_NAMES.indexOf(name);
    return Number.parseInt(values?.[index] ?? NEIGH_KEYS[name]!.defaultValue, 10);
  }

  /** Where a `net.ipv4.conf.<dev>.<name>` or `net.ipv4.neigh.<dev>.<name>` key's value is; undefined for others. */
  private deviceSlot(key: string): DeviceSlot | undefined {
    const known = this.deviceSlots.get(key);
    if (known !== undefined) return known;
    const conf = key.startsWith(CONF_PREFIX);
    if (!conf && !key.startsWith(NEIGH_PREFIX)) return undefined;
    const rest = key.slice(conf ? CONF_PREFIX.length : NEIGH_PREFIX.length);
    const dot = rest.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const values = this.devices.get(rest.slice(0, dot));
    if (values === undefined) return undefined;
    const name = rest.slice(dot + 1);
    const index = (conf ? DEVICE_NAMES : NEIGH_NAMES).indexOf(name);
    if (index < 0) return undefined;
    const texts = conf ? values.conf : values.neigh;
    const numbers = conf ? values.confNumbers : values.neighNumbers;
    if (texts === undefined || numbers === undefined) return undefined;
    const slot: DeviceSlot = { texts, numbers, index, spec: (conf ? DEVICE_SPECS : NEIGH_SPECS)[index]! };
    this.deviceSlots.set(key, slot);
    return slot;
  }

  private store(key: string, value: string): void {
    const device = this.deviceSlot(key);
    if (device !== undefined) {
      device.texts[device.index] = value;
      // A multi-field value reads as its first field, as before.
      device.numbers[device.index] = Number.parseInt(value, 10);
      return;
    }
    this.written.set(key, value);
    this.writtenNumbers.set(key, Number.parseInt(value, 10));
  }

  /** The stored text of a key (before any binding's read), undefined when there is no such key. */
  private stored(key: string): string | undefined {
    const slot = this.schema.slots.get(key);
    if (slot !== undefined)
      return this.written.size === 0
        ? this.schema.defaults[slot]
        : (this.written.get(key) ?? this.schema.defaults[slot]);
    const device = this.deviceSlot(key);
    return device === undefined ? undefined : device.texts[device.index];
  }

  private spec(key: string): SysctlSpec | undefined {
    const slot = this.schema.slots.get(key);
    if (slot !== undefined) return this.schema.specs[slot];
    return this.deviceSlot(key)?.spec;
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
      key = `${CONF_PREFIX}${dev}.${name}`;
      keys.set(name, key);
    }
    return key;
  }

  has(key: string): boolean {
    return this.stored(normalize(key)) !== undefined;
  }

  get(key: string): SysctlResult {
    const name = normalize(key);
    const value = this.stored(name);
    if (value === undefined) return { ok: false, error: 'ENOENT' };
    const read = this.bindings.get(name)?.read;
    return { ok: true, value: read === undefined ? value : String(read()) };
  }

  /** The text of a key the stack reads by its exact dotted name (no result record, no name normalising); undefined when absent. */
  text(key: string): string | undefined {
    const value = this.stored(key);
    if (value === undefined) return undefined;
    const read = this.bindings.size === 0 ? undefined : this.bindings.get(key)?.read;
    return read === undefined ? value : String(read());
  }

  /** The integer value of a key the stack reads; a programmer error when the key does not exist. */
  int(key: string): number {
    const slot = this.schema.slots.get(key);
    let value: number | undefined;
    if (slot !== undefined)
      value =
        this.writtenNumbers.size === 0
          ? this.schema.defaultNumbers[slot]
          : (this.writtenNumbers.get(key) ?? this.schema.defaultNumbers[slot]);
    else {
      const device = this.deviceSlot(key);
      value = device?.numbers[device.index];
    }
    if (value === undefined) throw new Error(`unknown sysctl ${key}`);
    const read = this.bindings.size === 0 ? undefined : this.bindings.get(key)?.read;
    return read === undefined ? value : read();
  }

  /** Writes a value after validating it as the kernel's proc_dointvec_minmax would. */
  set(key: string, text: string): SysctlResult {
    const name = normalize(key);
    const spec = this.spec(name);
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
    const keys = this.schema.keys.filter((key) => key.startsWith(prefix));
    for (const [dev, values] of this.devices) {
      for (const name of DEVICE_NAMES) {
        const key = `${CONF_PREFIX}${dev}.${name}`;
        if (key.startsWith(prefix)) keys.push(key);
      }
      if (values.neigh === undefined) continue;
      for (const name of NEIGH_NAMES) {
        const key = `${NEIGH_PREFIX}${dev}.${name}`;
        if (key.startsWith(prefix)) keys.push(key);
      }
    }
    return keys.sort();
  }

  /** Writing ip_forward sets conf.all/default/<every dev>.forwarding too (devinet.c: devinet_sysctl_forward). */
  private propagateForwarding(value: string): void {
    const index = DEVICE_NAMES.indexOf('forwarding');
    const number = Number.parseInt(value, 10);
    for (const values of this.devices.values()) {
      values.conf[index] = value;
      values.confNumbers[index] = number;
    }
  }
}

/** `sysctl` accepts slashes as separators too (net/ipv4/ip_forward). */
function normalize(key: string): string {
  return key.includes('/') ? key.replaceAll('/', '.') : key;
}
