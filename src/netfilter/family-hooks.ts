// The base chains of the families that do not hook the IPv4 path: bridge chains on bridged frames (NF_BR_* hooks:
// br_handle_frame, br_pass_frame_up, __br_forward, br_forward_finish), netdev chains on a device's receive and
// transmit (nf_ingress in __netif_receive_skb_core, nf_hook_egress in __dev_queue_xmit; inet ingress chains too,
// for IPv4), and arp chains on ARP packets (arp_rcv, arp_xmit). Each hook runs its chains by priority, newest
// first among equals, as nf_hook_entries_grow orders them. Not modelled: conntrack in the bridge family
// (nf_conntrack_bridge), VLAN tags out of band, netdev chains on devices renamed after the chain was added.

import type { Packet } from '../core/packet.ts';
import type { BridgeHookPoint } from '../link/bridge.ts';
import type { DeviceNetfilterHooks, NetDevice } from '../link/device.ts';
import { runBaseChain, type StatementRunner, type TraceSink } from './chain.ts';
import type { Conntrack } from './conntrack/conntrack.ts';
import { type FlowOffloads, flowtableId } from './flowtable.ts';
import type { NetfilterHost } from './host.ts';
import type { Chain, Family, HookName, Ruleset, Table } from './ir.ts';
import { PacketState } from './packet-state.ts';

const ETH_HLEN = 14;
const ETH_P_IP = 0x0800;
const ETH_P_8021Q = 0x8100;

/**
 * NF_BR_PRI_BRNF: br_netfilter's prerouting and forward functions (link/bridge.ts: BridgeHookPoint); the chains at
 * 0 or below run before them (nft chains are registered after br_netfilter, so first among equals), the others
 * after (`-late`); in postrouting br_netfilter runs last (NF_BR_PRI_LAST).
 */
const BRNF_PRIORITY = 0;

interface Entry {
  readonly priority: number;
  readonly order: number;
  readonly table: Table;
  readonly chain: Chain;
  /** Set for a flowtable's ingress hook (nf_flow_offload_ip_hook) instead of a chain: its flowtableId. */
  readonly flowtable?: string;
}

type BridgeHook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';

function byPriority(a: Entry, b: Entry): number {
  return a.priority - b.priority || b.order - a.order;
}

export class FamilyHooks implements DeviceNetfilterHooks {
  private bridgeEntries: Record<BridgeHook, Entry[]> = emptyBridge();
  private arpEntries: { input: Entry[]; output: Entry[] } = { input: [], output: [] };
  /** Ingress and egress chains by the device name they are bound to. */
  private ingressEntries = new Map<string, Entry[]>();
  private egressEntries = new Map<string, Entry[]>();
  private readonly state: PacketState;
  private frameProtocol = 0;
  private frameLink = -1;
  private frameLengthFrom = -1;

  constructor(
    host: NetfilterHost,
    conntrack: Conntrack,
    private readonly statements: StatementRunner,
    private readonly flows: FlowOffloads,
    private readonly trace: () => TraceSink | undefined,
  ) {
    this.state = new PacketState(host, conntrack);
  }

  /** Whether any ingress or egress chain exists (devices skip their hook calls otherwise). */
  deviceActive = false;

  /** Whether any bridge chain exists (the bridge skips its hook calls otherwise). */
  get bridgeActive(): boolean {
    const e = this.bridgeEntries;
    return (
      e.prerouting.length + e.input.length + e.forward.length + e.output.length + e.postrouting.length > 0
    );
  }

  /** Rebuilds the hook lists after a commit (nf_register_net_hook for each base chain of these families). */
  register(ruleset: Ruleset): void {
    const bridge = emptyBridge();
    const arp: { input: Entry[]; output: Entry[] } = { input: [], output: [] };
    const ingress = new Map<string, Entry[]>();
    const egress = new Map<string, Entry[]>();
    let order = 0;
    const flowtables = new Set<string>();
    for (const table of ruleset.tables) {
      // A flowtable registers nf_flow_offload_ip_hook at the ingress of each of its devices.
      for (const flowtable of table.flowtables ?? []) {
        const id = flowtableId(table, flowtable.name);
        flowtables.add(id);
        const entry: Entry = {
          priority: flowtable.priority,
          order: ++order,
          table,
          chain: NO_CHAIN,
          flowtable: id,
        };
        for (const device of flowtable.devices) {
          const list = ingress.get(device) ?? [];
          list.push(entry);
          ingress.set(device, list);
        }
      }
      for (const chain of table.chains.values()) {
        const base = chain.base;
        if (base === undefined) continue;
        order++;
        const entry: Entry = { priority: base.priority, order, table, chain };
        if (table.family === 'bridge' && isBridgeHook(base.hook)) bridge[base.hook].push(entry);
        else if (table.family === 'arp' && (base.hook === 'input' || base.hook === 'output'))
          arp[base.hook].push(entry);
        else if (base.hook === 'ingress' || base.hook === 'egress') {
          const byDevice = base.hook === 'ingress' ? ingress : egress;
          for (const device of base.devices ?? []) {
            const list = byDevice.get(device) ?? [];
            list.push(entry);
            byDevice.set(device, list);
          }
        }
      }
    }
    this.flows.prune(flowtables);
    for (const list of Object.values(bridge)) list.sort(byPriority);
    arp.input.sort(byPriority);
    arp.output.sort(byPriority);
    for (const list of ingress.values()) list.sort(byPriority);
    for (const list of egress.values()) list.sort(byPriority);
    this.bridgeEntries = bridge;
    this.arpEntries = arp;
    this.ingressEntries = ingress;
    this.egressEntries = egress;
    this.deviceActive = ingress.size + egress.size > 0;
  }

  /**
   * A bridge hook on a frame whose Ethernet header starts at pkt.start (nft_do_chain_bridge); false to drop.
   * Counters count the frame without its Ethernet header, as skb->len is at every bridge hook.
   */
  bridge(
    point: BridgeHookPoint,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    const hook = bridgeHookOf(point);
    const entries = this.bridgeEntries[hook];
    if (entries.length === 0) return true;
    const from = point === 'prerouting-late' || point === 'forward-late' ? 'late' : 'early';
    const split =
      point === 'postrouting' || point === 'input' || point === 'output' ? undefined : BRNF_PRIORITY;
    const saved = pkt.network;
    const type = pkt.length >= ETH_HLEN ? (pkt.buf[pkt.start + 12]! << 8) | pkt.buf[pkt.start + 13]! : 0;
    const tagged = type === ETH_P_8021Q && pkt.length >= ETH_HLEN + 4;
    pkt.network = pkt.start + ETH_HLEN + (tagged ? 4 : 0);
    const protocol = tagged ? (pkt.buf[pkt.start + 16]! << 8) | pkt.buf[pkt.start + 17]! : type;
    let accepted = true;
    for (const entry of entries) {
      if (split !== undefined && (from === 'early') !== entry.priority <= split) continue;
      this.frame(protocol, pkt.start, -1);
      if (!this.runEntry(entry, 'bridge', hook, pkt, inDev, outDev)) {
        accepted = false;
        break;
      }
    }
    pkt.network = saved;
    return accepted;
  }

  /** nf_ingress: the chains bound to `dev` (netdev, and inet ingress for IPv4), after the taps; false to drop. */
  ingress(dev: NetDevice, pkt: Packet): 'continue' | 'drop' | 'stolen' {
    const entries = this.ingressEntries.get(dev.name);
    if (entries === undefined || pkt.length < ETH_HLEN) return 'continue';
    return this.device(entries, 'ingress', dev, pkt);
  }

  /** nf_hook_egress: the egress chains bound to `dev`, before its qdisc; counters count the whole frame. */
  egress(dev: NetDevice, pkt: Packet): boolean {
    const entries = this.egressEntries.get(dev.name);
    if (entries === undefined || pkt.length < ETH_HLEN) return true;
    return this.device(entries, 'egress', dev, pkt) === 'continue';
  }

  /** arp_rcv's NF_ARP_IN and arp_xmit's NF_ARP_OUT, with pkt.network at the ARP header; false to drop. */
  arp(
    hook: 'input' | 'output',
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    const entries = this.arpEntries[hook];
    if (entries.length === 0) return true;
    // arp_xmit hands the whole frame (dev_hard_header pushed the Ethernet header); arp_rcv has it pulled.
    const lengthFrom = hook === 'output' ? pkt.network - ETH_HLEN : -1;
    // The trace dumps the link header of a received ARP packet (it names the input device).
    const link = hook === 'input' ? pkt.network - ETH_HLEN : -1;
    for (const entry of entries) {
      this.frame(0x0806, link, lengthFrom);
      if (!this.runEntry(entry, 'arp', hook, pkt, inDev, outDev)) return false;
    }
    return true;
  }

  private device(
    entries: readonly Entry[],
    hook: 'ingress' | 'egress',
    dev: NetDevice,
    pkt: Packet,
  ): 'continue' | 'drop' | 'stolen' {
    const saved = pkt.network;
    const type = (pkt.buf[pkt.start + 12]! << 8) | pkt.buf[pkt.start + 13]!;
    pkt.network = pkt.start + ETH_HLEN;
    const inDev = hook === 'ingress' ? dev : undefined;
    const outDev = hook === 'egress' ? dev : undefined;
    let verdict: 'continue' | 'drop' = 'continue';
    for (const entry of entries) {
      if (entry.flowtable !== undefined) {
        if (hook !== 'ingress') continue;
        pkt.network = saved;
        if (this.flows.fastPath(entry.flowtable, dev, pkt)) return 'stolen';
        pkt.network = pkt.start + ETH_HLEN;
        continue;
      }
      // nft_do_chain_inet_ingress: an inet ingress chain sees IPv4 (and IPv6) only.
      if (entry.table.family === 'inet' && type !== ETH_P_IP) continue;
      this.frame(type, pkt.start, hook === 'egress' ? pkt.start : -1);
      if (!this.runEntry(entry, entry.table.family, hook, pkt, inDev, outDev)) {
        verdict = 'drop';
        break;
      }
    }
    pkt.network = saved;
    return verdict;
  }

  /** What the next runEntry tells the chain about the frame (fields, not an object: no allocation per packet). */
  private frame(protocol: number, link: number, lengthFrom: number): void {
    this.frameProtocol = protocol;
    this.frameLink = link;
    this.frameLengthFrom = lengthFrom;
  }

  private runEntry(
    entry: Entry,
    family: Family,
    hook: HookName,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    const state = this.state;
    state.reset(pkt, hook, inDev, outDev);
    state.family = family;
    state.l2Protocol = this.frameProtocol;
    state.linkOffset = this.frameLink;
    state.lengthFrom = this.frameLengthFrom;
    return runBaseChain(state, entry.table, entry.chain, this.statements, this.trace()) === 'accept';
  }
}

/** The chain slot of a flowtable's entry, never run. */
const NO_CHAIN: Chain = {
  name: '',
  handle: 0,
  base: undefined,
  rules: [],
  policyPackets: 0,
  policyBytes: 0,
  policyCounters: false,
};

function emptyBridge(): Record<BridgeHook, Entry[]> {
  return { prerouting: [], input: [], forward: [], output: [], postrouting: [] };
}

function isBridgeHook(hook: HookName): hook is BridgeHook {
  return hook !== 'ingress' && hook !== 'egress';
}

function bridgeHookOf(point: BridgeHookPoint): BridgeHook {
  switch (point) {
    case 'prerouting':
    case 'prerouting-late':
      return 'prerouting';
    case 'forward':
    case 'forward-late':
      return 'forward';
    case 'input':
    case 'output':
    case 'postrouting':
      return point;
  }
}
