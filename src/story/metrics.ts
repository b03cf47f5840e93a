// `packetlab run --metrics`: every namespace's counters over virtual time in the Prometheus text exposition format,
// with node_exporter's names and HELP texts (collector/conntrack_linux.go, collector/netdev_common.go with its
// legacy /proc/net/dev keys), a `node` label naming the namespace, plus SNAT port use per egress address.
//
// Sampling never schedules an event (that would change what the simulation does): a sample is taken at attach, at
// the first frame or story step of each new virtual second, and at the end, stamped with the virtual millisecond
// it was taken at (a later one in the same millisecond replaces it). A second without any frame or step has no
// sample. Not exported: fifo, frame, compressed, colls and carrier counters (always 0 on the virtual devices
// packetlab models), conntrack's `ignore` (no longer counted by Linux 6.18: always 0).

import { IPS_SRC_NAT } from '../netfilter/conntrack/table.ts';
import { createTuple } from '../netfilter/conntrack/tuple.ts';
import type { Simulation } from '../netns/simulation.ts';
import { formatIpv4 } from '../wire/address.ts';

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
  /** label text (`device="eth0",node="w1"`) → samples in time order */
  readonly series: Map<string, { value: number; stamp: number }[]>;
}

const NETDEV_KEYS = [
  'receive_bytes',
  'receive_drop',
  'receive_errs',
  'receive_multicast',
  'receive_packets',
  'transmit_bytes',
  'transmit_drop',
  'transmit_errs',
  'transmit_packets',
] as const;

const CONNTRACK_STATS = [
  ['found', 'Number of searched entries which were successful.'],
  ['invalid', 'Number of packets seen which can not be tracked.'],
  ['ignore', 'Number of packets seen which are already connected to a conntrack entry.'],
  ['insert', 'Number of entries inserted into the list.'],
  ['insert_failed', 'Number of entries for which list insertion was attempted but failed.'],
  ['drop', 'Number of packets dropped due to conntrack failure.'],
  [
    'early_drop',
    'Number of dropped conntrack entries to make room for new ones, if maximum table size was reached.',
  ],
  ['search_restart', 'Number of conntrack table lookups which had to be restarted due to hashtable resizes.'],
] as const;

const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'icmp', 6: 'tcp', 17: 'udp' };

export class MetricsSampler {
  private readonly families = new Map<string, Family>();
  private lastSecond = -1;
  private readonly tuple = createTuple();

  constructor(private readonly sim: Simulation) {
    this.family(
      'node_nf_conntrack_entries',
      'Number of currently allocated flow entries for connection tracking.',
    );
    this.family('node_nf_conntrack_entries_limit', 'Maximum size of connection tracking table.');
    for (const [key, help] of CONNTRACK_STATS) this.family(`node_nf_conntrack_stat_${key}`, help);
    for (const key of NETDEV_KEYS)
      this.family(`node_network_${key}_total`, `Network device statistic ${key}.`, 'counter');
    this.family(
      'packetlab_nat_ports_in_use',
      'Source ports held by SNAT/masquerade conntrack entries, per egress address and protocol.',
    );
  }

  /** Samples when virtual time has entered a second not sampled yet. */
  observe(): void {
    if (Math.floor(this.sim.now / 1e9) > this.lastSecond) this.sampleNow();
  }

  /** Samples every namespace now; a second sample in one millisecond replaces the first. */
  sampleNow(): void {
    const now = this.sim.now;
    this.lastSecond = Math.floor(now / 1e9);
    const stamp = Math.floor(now / 1e6);
    for (const ns of this.sim.allNamespaces()) {
      const node = `node="${escapeLabel(ns.name)}"`;
      const ct = ns.netfilter.conntrack;
      this.add('node_nf_conntrack_entries', node, ct.count, stamp);
      this.add('node_nf_conntrack_entries_limit', node, ct.max, stamp);
      const stats = ct.stats;
      const values: Record<(typeof CONNTRACK_STATS)[number][0], number> = {
        found: stats.found,
        invalid: stats.invalid,
        ignore: 0,
        insert: stats.insert,
        insert_failed: stats.insert_failed,
        drop: stats.drop,
        early_drop: stats.early_drop,
        search_restart: stats.search_restart,
      };
      for (const [key] of CONNTRACK_STATS)
        this.add(`node_nf_conntrack_stat_${key}`, node, values[key], stamp);
      for (const dev of ns.all()) {
        const labels = `device="${escapeLabel(dev.name)}",${node}`;
        const s = dev.stats;
        const counters: Record<(typeof NETDEV_KEYS)[number], number> = {
          receive_bytes: s.rxBytes,
          receive_drop: s.rxDropped,
          receive_errs: s.rxErrors,
          receive_multicast: s.rxMulticast,
          receive_packets: s.rxPackets,
          transmit_bytes: s.txBytes,
          transmit_drop: s.txDropped,
          transmit_errs: s.txErrors,
          transmit_packets: s.txPackets,
        };
        for (const key of NETDEV_KEYS) this.add(`node_network_${key}_total`, labels, counters[key], stamp);
      }
      // SNAT port use: the reply tuple's destination is the egress address and port an entry holds.
      const held = new Map<string, number>();
      for (const index of ct.entries(now)) {
        if (!ct.hasStatus(index, IPS_SRC_NAT)) continue;
        const reply = ct.tuple(index, 1, this.tuple);
        const key = `address="${formatIpv4(reply.dst)}",${node},protocol="${PROTOCOLS[reply.protocol] ?? reply.protocol}"`;
        held.set(key, (held.get(key) ?? 0) + 1);
      }
      for (const [labels, count] of held) this.add('packetlab_nat_ports_in_use', labels, count, stamp);
    }
  }

  /** The text exposition: per family its HELP and TYPE lines, then each series' samples in time order. */
  exposition(): string {
    const lines: string[] = [];
    for (const family of this.families.values()) {
      if (family.series.size === 0) continue;
      lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
      for (const [labels, samples] of family.series)
        for (const { value, stamp } of samples) lines.push(`${family.name}{${labels}} ${value} ${stamp}`);
    }
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  private family(name: string, help: string, type: 'gauge' | 'counter' = 'gauge'): void {
    this.families.set(name, { name, help, type, series: new Map() });
  }

  private add(name: string, labels: string, value: number, stamp: number): void {
    const series = this.families.get(name)!.series;
    let samples = series.get(labels);
    if (samples === undefined) {
      samples = [];
      series.set(labels, samples);
    }
    const last = samples.at(-1);
    if (last !== undefined && last.stamp === stamp) last.value = value;
    else samples.push({ value, stamp });
  }
}

/** Label values escape backslash, double quote and newline (exposition format). */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
