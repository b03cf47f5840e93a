// The one rule representation both front ends compile to (iptables and nft), shaped like nftables' own model:
// tables of chains of rules, each rule a list of expressions evaluated left to right, sets and maps.
//
// iptables-nft really stores iptables rules as nftables expressions, which is why `nft list
// ruleset` and `nft monitor trace` show iptables rules in nft syntax. packetlab does the same:
// the iptables front end translates to these expressions (keeping its own parsed form in
// `Rule.iptables` for iptables-save), and one printer renders any rule in nft syntax.
// This file holds data only; evaluation is in eval.ts, one file per expression under expr/.

/**
 * nftables families; iptables-nft tables are family `ip`. The IPv4 hooks run ip and inet tables, the bridge path
 * bridge tables, a device's receive and transmit netdev (and inet ingress) chains, ARP arp tables; ip6 tables
 * load and list but no IPv6 packet exists to meet them (nft/families.ts).
 */
export type Family = 'ip' | 'inet' | 'ip6' | 'arp' | 'bridge' | 'netdev';

/** The hooks of every family: ingress and egress are the netdev family's (and inet's ingress). */
export type HookName = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting' | 'ingress' | 'egress';

export type ChainType = 'filter' | 'nat' | 'route';

/** Named priorities (nft) and the kernel's numbers (include/uapi/linux/netfilter_ipv4.h). */
export const PRIORITY = {
  raw: -300,
  mangle: -150,
  dstnat: -100,
  filter: 0,
  security: 50,
  srcnat: 100,
} as const;

/** NF_IP_PRI_CONNTRACK and NF_IP_PRI_CONNTRACK_CONFIRM, NF_IP_PRI_CONNTRACK_DEFRAG. */
export const CONNTRACK_PRIORITY = -200;
export const CONNTRACK_CONFIRM_PRIORITY = 2147483647;
export const DEFRAG_PRIORITY = -400;

/** XT_JUMP_STACK_MAX / NFT_JUMP_STACK_SIZE: how deep jumps may nest. */
export const JUMP_STACK_MAX = 16;

import type { ExtMatchOptions, ExtTargetOptions } from './xt/ext-options.ts';

// ---- values read from the packet --------------------------------------------------------

/** Header fields by their nft names. `th` is the transport header whatever the protocol. */
export type PayloadField =
  | 'ether saddr'
  | 'ether daddr'
  | 'ip saddr'
  | 'ip daddr'
  | 'ip protocol'
  | 'ip length'
  | 'ip ttl'
  | 'ip id'
  /** The 16-bit flags and fragment offset word (`ip frag-off & 8191 != 0` for a non-first fragment). */
  | 'ip frag-off'
  | 'ip dscp'
  | 'ip ecn'
  | 'tcp sport'
  | 'tcp dport'
  | 'tcp flags'
  | 'udp sport'
  | 'udp dport'
  | 'th sport'
  | 'th dport'
  | 'icmp type'
  | 'icmp code'
  | 'icmp id'
  | 'ip version'
  | 'ip hdrlength'
  | 'ip checksum'
  | 'tcp sequence'
  | 'tcp ackseq'
  | 'tcp doff'
  | 'tcp window'
  | 'tcp checksum'
  | 'tcp urgptr'
  | 'udp length'
  | 'udp checksum'
  | 'icmp checksum'
  | 'icmp sequence'
  | 'icmp gateway'
  | 'icmp mtu';

export type MetaKey =
  | 'mark'
  | 'iifname'
  | 'oifname'
  | 'iif'
  | 'oif'
  | 'l4proto'
  | 'nfproto'
  | 'protocol'
  | 'length'
  | 'pkttype'
  | 'nftrace'
  | 'cpu'
  | 'skuid'
  | 'skgid'
  | 'rtclassid'
  | 'iiftype'
  | 'oiftype'
  | 'iifgroup'
  | 'oifgroup'
  | 'cgroup'
  /** skb->secmark: 0 in packetlab, which has no LSM labelling (nft refuses comparing it with a constant). */
  | 'secmark'
  | 'random'
  | 'ipsec'
  | 'iifkind'
  | 'oifkind'
  | 'sdif'
  | 'sdifname'
  | 'ibrname'
  | 'obrname'
  | 'ibrpvid'
  | 'ibrvproto'
  /** The wall clock (nft_meta_get_eval_time). */
  | 'time'
  | 'day'
  | 'hour'
  | 'priority';

export type CtKey =
  | 'state'
  | 'status'
  | 'mark'
  | 'direction'
  | 'expiration'
  | 'protocol'
  | 'saddr'
  | 'daddr'
  | 'proto-src'
  | 'proto-dst'
  | 'l3proto'
  | 'zone'
  | 'id'
  /** The connection's helper's name (nf_conn_help); packetlab has no helpers, so no connection has one. */
  | 'helper';

/** `fib daddr type`, `fib saddr . iif oif`... as nft_fib evaluates them. */
export interface FibSelector {
  readonly kind: 'fib';
  readonly flags: readonly ('saddr' | 'daddr' | 'mark' | 'iif' | 'oif')[];
  readonly result: 'type' | 'oif' | 'oifname';
  /** NFTA_FIB_F_PRESENT: the result is 1 if a route exists, else 0 (`fib saddr . iif oif missing`). */
  readonly present?: boolean;
}

/**
 * Header fields and metadata of the families beyond ip and inet, by their nft names (expr/family-fields.ts reads
 * them): the Ethernet type, 802.1Q tags, ARP headers, the bridge names of the ports, IPv6 and ICMPv6.
 */
export type FamilyField =
  | 'ether type'
  | 'vlan id'
  | 'vlan pcp'
  | 'vlan dei'
  | 'vlan type'
  | 'arp htype'
  | 'arp ptype'
  | 'arp hlen'
  | 'arp plen'
  | 'arp operation'
  | 'arp saddr ether'
  | 'arp saddr ip'
  | 'arp daddr ether'
  | 'arp daddr ip'
  | 'meta ibrname'
  | 'meta obrname'
  | 'ip6 saddr'
  | 'ip6 daddr'
  | 'ip6 nexthdr'
  | 'ip6 hoplimit'
  | 'icmpv6 type'
  | 'icmpv6 code';

export type Selector =
  | { readonly kind: 'payload'; readonly field: PayloadField }
  | { readonly kind: 'family-field'; readonly field: FamilyField }
  | { readonly kind: 'meta'; readonly key: MetaKey }
  | { readonly kind: 'ct'; readonly key: CtKey; readonly dir?: 'original' | 'reply' }
  | FibSelector
  | {
      readonly kind: 'numgen';
      readonly mode: 'random' | 'inc';
      readonly mod: number;
      readonly offset: number;
    }
  | HashSelector
  | { readonly kind: 'rt'; readonly key: 'nexthop' | 'mtu' | 'classid' }
  | { readonly kind: 'socket'; readonly key: 'transparent' | 'mark' | 'wildcard' };

/** `jhash ip saddr . tcp dport mod 4 seed 0x1 offset 100`, `symhash mod 2` (nft_hash). */
export interface HashSelector {
  readonly kind: 'hash';
  readonly mode: 'jhash' | 'symhash';
  /** What jhash hashes (a concatenation); empty for symhash. */
  readonly inputs: readonly Value[];
  /** Each input's size in bytes as it sits in its register. */
  readonly sizes: readonly number[];
  readonly mod: number;
  /** undefined: the kernel draws one at random (here: the simulation's rng). */
  readonly seed: number | undefined;
  readonly offset: number;
}

/**
 * A value: a selector, optionally transformed as nft_bitwise does, `(x & mask) ^ xor`
 * (`meta mark & 0x4000`, `mark and 0xffffbfff or 0x100`), or shifted.
 */
export interface Value {
  readonly selector: Selector;
  readonly mask?: number;
  readonly xor?: number;
}

// ---- constants and sets -----------------------------------------------------------------

/** One element of a comparison's right-hand side or of a set. Numbers are unsigned 32-bit. */
export type Constant =
  | { readonly kind: 'number'; readonly value: number }
  /** Interface names; `wildcard` for `eth*` (nft) or `eth+` (iptables). */
  | { readonly kind: 'string'; readonly value: string; readonly wildcard: boolean }
  | { readonly kind: 'prefix'; readonly addr: number; readonly len: number }
  | { readonly kind: 'range'; readonly low: number; readonly high: number }
  /** A concatenation element `10.96.0.10 . tcp . 53`. */
  | { readonly kind: 'concat'; readonly parts: readonly Constant[] };

/** The type of a set's keys or a map's data, for printing and validation (nft's datatypes). */
export type DataType =
  | 'ipv4_addr'
  | 'inet_proto'
  | 'inet_service'
  | 'mark'
  | 'ifname'
  | 'ether_addr'
  | 'ct_state'
  | 'ct_status'
  | 'integer'
  | 'verdict';

/** A named set or map (`set service-ips { type ipv4_addr . inet_proto . inet_service : verdict; }`). */
export interface NamedSet {
  readonly name: string;
  readonly keyType: readonly DataType[];
  /** Maps only: the data type (verdict for a vmap). */
  readonly dataType: DataType | undefined;
  readonly flags: readonly ('interval' | 'constant' | 'timeout' | 'dynamic')[];
  readonly elements: SetElement[];
  readonly comment: string | undefined;
  /** The handle `nft -a list` shows (set by the nft front end; optional so other producers may omit it). */
  readonly handle?: number;
  /** The default timeout of its elements, in ms (`timeout 3h`); undefined for none. */
  readonly timeout?: number | undefined;
  /** `size N`: given, or 65535 once a rule updates the set from the packet path (nft_dynset_init). */
  size?: number | undefined;
  /** `policy memory` (performance, the default, is not listed). */
  readonly policy?: 'memory' | undefined;
  /** `gc-interval 10s`, in ms. */
  readonly gcInterval?: number | undefined;
  /** `auto-merge`: nft merges overlapping intervals as it adds them. */
  readonly autoMerge?: boolean | undefined;
  /** `counter`: every element counts the packets that find it (NFT_SET_EXPR counter). */
  readonly counter?: boolean | undefined;
  /** The kernel's element limit where the listing shows no size: a constant set holds what it was declared with. */
  readonly capacity?: number | undefined;
  /** `typeof ...` as nft lists it, when the set was declared by expressions rather than types. */
  readonly typeofText?: { readonly key: string; readonly data: string | undefined } | undefined;
}

/** The per-element counter of a set with `counter`: updated in place by lookups. */
export interface ElementCounter {
  packets: number;
  bytes: number;
}

export interface SetElement {
  readonly key: Constant;
  /** Map data: a verdict for vmaps, a constant for data maps. */
  readonly data: Verdict | Constant | undefined;
  readonly comment?: string | undefined;
  /** The element's own timeout in ms, when it has one other than the set's. */
  readonly timeout?: number | undefined;
  /** When it expires, in virtual ns (elements of sets with timeouts); undefined for never. */
  readonly expires?: number | undefined;
  /** Sets with `counter`: the packets and bytes that found this element. */
  readonly counter?: ElementCounter | undefined;
}

/** Where a lookup finds its set: a named one in the same table, or an anonymous one inline. */
export type SetRef =
  | { readonly kind: 'named'; readonly name: string }
  | {
      readonly kind: 'anonymous';
      readonly elements: readonly SetElement[];
      readonly keyType: readonly DataType[];
    };

// ---- verdicts and expressions ------------------------------------------------------------

export type Verdict =
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop' }
  | { readonly kind: 'continue' }
  | { readonly kind: 'return' }
  | { readonly kind: 'jump'; readonly chain: string }
  | { readonly kind: 'goto'; readonly chain: string }
  | { readonly kind: 'queue' };

export type CmpOp = 'eq' | 'ne' | 'lt' | 'gt' | 'le' | 'ge';

/** A value to store (`meta mark set ...`): a constant or another value (with its bitwise). */
export type Source =
  | { readonly kind: 'constant'; readonly value: number }
  | { readonly kind: 'value'; readonly value: Value }
  /**
   * Added by the iptables front end: `value ^ other`, each with its own bitwise, for CONNMARK with distinct
   * masks (xt_CONNMARK: ctmark = (ctmark & ~ctmask) ^ (mark & nfmask), and the reverse for --restore-mark).
   */
  | { readonly kind: 'xor'; readonly value: Value; readonly other: Value };

export interface NatRange {
  readonly addrLow: number | undefined;
  readonly addrHigh: number | undefined;
  readonly portLow: number | undefined;
  readonly portHigh: number | undefined;
  /** issue 12, ipt-b: DNAT's `PORT-PORT/BASE` (NF_NAT_RANGE_PROTO_OFFSET): ports shift by their distance from BASE. */
  readonly portBase?: number;
}

/** The key and map of a nat statement that reads its address (and port) from a map. */
export interface NatMap {
  readonly key: readonly Value[];
  readonly map: SetRef;
  /** The data is `address . port` (nft then lists `dnat ip to ...`). */
  readonly withPort: boolean;
}

export interface NatFlags {
  readonly random: boolean;
  readonly fullyRandom: boolean;
  readonly persistent: boolean;
}

/**
 * One expression of a rule. Matches (`cmp`, `lookup`, `match`) end the rule when they fail;
 * statements act; `verdict` and `vmap` decide. The order is the rule's order.
 */
export type Expr =
  /** `left op right`; several values make a concatenation, compared element-wise. */
  | { readonly kind: 'cmp'; readonly left: readonly Value[]; readonly op: CmpOp; readonly right: Constant }
  /** `left [!=] { ... }` or `left @set`. */
  | {
      readonly kind: 'lookup';
      readonly left: readonly Value[];
      readonly set: SetRef;
      readonly negate: boolean;
    }
  /** Verdict map: `left vmap { key : verdict, ... }` or `vmap @name`; no match continues. */
  | { readonly kind: 'vmap'; readonly left: readonly Value[]; readonly map: SetRef }
  /** A match nftables has no native expression for (iptables-nft's xt compat: statistic, recent...). */
  | { readonly kind: 'match'; readonly name: XtMatchName; readonly options: XtMatchOptions }
  | { readonly kind: 'counter' }
  | { readonly kind: 'meta-set'; readonly key: 'mark' | 'nftrace' | 'pkttype'; readonly source: Source }
  | { readonly kind: 'ct-set'; readonly key: 'mark'; readonly source: Source }
  /** `connmark --save-mark/--restore-mark` with masks (ct mark set mark and M...). */
  | {
      readonly kind: 'nat';
      readonly type: 'snat' | 'dnat' | 'masquerade' | 'redirect';
      readonly range: NatRange;
      readonly flags: NatFlags;
      /** `dnat to KEY map { K : ADDR [. PORT] }` / `map @m`: the range comes from the element (expr/nat-map.ts). */
      readonly map?: NatMap;
    }
  | { readonly kind: 'reject'; readonly with: RejectWith }
  | {
      readonly kind: 'log';
      readonly prefix: string | undefined;
      /** syslog level 0-7, or 8 for nft's `level audit` (to the audit log, not the kernel log). */
      readonly level: number;
      readonly flags: readonly string[];
      /** `group N`: to NFLOG group N (nobody listens here: nothing is logged); with its snaplen and threshold. */
      readonly group?: number;
      readonly snaplen?: number | undefined;
      readonly queueThreshold?: number | undefined;
    }
  | { readonly kind: 'notrack' }
  /**
   * The TPROXY target (xt_TPROXY tproxy_tg4): the packet goes to the transparent socket on `addr` (0: the in
   * device's address) and `port` (0: its own), its mark becoming (mark & ~markMask) ^ markValue; no socket drops.
   */
  | {
      readonly kind: 'tproxy';
      readonly addr: number;
      readonly port: number;
      readonly markValue: number;
      readonly markMask: number;
      /** nft's tproxy statement: no socket ends the rule (NFT_BREAK), a socket continues it; the mark is left. */
      readonly nft?: boolean;
    }
  /** The TCPMSS target (xt_TCPMSS): a SYN's MSS option lowered to `mss`, or to the path MTU's ('pmtu'). */
  | { readonly kind: 'tcpmss'; readonly mss: number | 'pmtu' }
  /**
   * `update @set { ip saddr }` / `add @set { ... }` / `delete @set { ... }` (nft_dynset): adds the packet's key,
   * `update` refreshing its timeout, `delete` taking it out.
   */
  | {
      readonly kind: 'set-update';
      readonly op: 'add' | 'update' | 'delete';
      readonly set: string;
      readonly key: readonly Value[];
      /** `timeout 10s` in the statement, in ms: the new element's timeout instead of the set's. */
      readonly timeout?: number | undefined;
      /** `counter` in the statement: new elements carry a counter, and every update counts the packet. */
      readonly counter?: boolean | undefined;
    }
  /** `flow add @ft` (nft_flow_offload): the packet's established connection into the flowtable's fast path. */
  | { readonly kind: 'flow-offload'; readonly flowtable: string }
  /** The SET target (xt_SET): the packet's element added to and/or deleted from named ipsets; it continues. */
  | {
      readonly kind: 'ipset-update';
      readonly add: { readonly setName: string; readonly directions: readonly IpsetDirection[] } | undefined;
      readonly del: { readonly setName: string; readonly directions: readonly IpsetDirection[] } | undefined;
      readonly exist: boolean;
      readonly timeout: number | undefined;
    }
  | LimitExpr
  | QuotaExpr
  /** `counter name c1`, `quota name q1`, `limit name l1` (nft_objref): the table's named object acts on the packet. */
  | { readonly kind: 'objref'; readonly type: NamedObjectType; readonly name: string }
  | { readonly kind: 'verdict'; readonly verdict: Verdict }
  /** issue 12, ipt-b: the xt targets NFLOG, NFQUEUE, CHECKSUM, NETMAP, ECN, TOS, DSCP (xt/ext-targets.ts). */
  | { readonly kind: 'xt-target'; readonly options: ExtTargetOptions };

/** nft_limit's token bucket, in ns of credit; `last` is -1 until the first packet (the bucket starts full). */
export interface LimitBucket {
  tokens: number;
  last: number;
}

/** `limit rate [over] R/UNIT [burst B packets]` or `R BYTES/UNIT [burst B bytes]` (nft_limit). */
export interface LimitExpr {
  readonly kind: 'limit';
  readonly mode: 'packets' | 'bytes';
  /** Packets or bytes per `unit` seconds. */
  readonly rate: number;
  readonly unit: number;
  /** Packets (0 means nft's default 5) or bytes. */
  readonly burst: number;
  /** `over`: matches when the rate is exceeded (NFT_LIMIT_F_INV). */
  readonly invert: boolean;
  readonly bucket: LimitBucket;
}

/** `quota [over|until] N bytes [used M bytes]` (nft_quota): the bytes it counted so far live in `consumed`. */
export interface QuotaExpr {
  readonly kind: 'quota';
  readonly bytes: number;
  readonly invert: boolean;
  readonly consumed: { bytes: number };
}

/** How REJECT answers: an ICMP unreachable code, or a TCP reset. */
export type RejectWith =
  /** `abstract`: nft's icmpx (NFT_REJECT_ICMPX_UNREACH), given here as the ICMPv4 code it sends. */
  | { readonly kind: 'icmp'; readonly code: number; readonly abstract?: boolean }
  /** inet's `reject with icmpv6`: for IPv6 packets only, which are not modelled. */
  | { readonly kind: 'icmpv6'; readonly code: number }
  | { readonly kind: 'tcp-reset' };

export type XtMatchName =
  | 'statistic'
  | 'recent'
  | 'comment'
  | 'conntrack'
  | 'icmp'
  | 'multiport'
  | 'set'
  | 'owner'
  | 'socket'
  | 'physdev'
  // issue 12, ipt-b: the matches of xt/ext-options.ts
  | ExtMatchOptions['name'];

/** Which address or port of the packet each dimension of an ipset element takes (`src,dst`). */
export type IpsetDirection = 'src' | 'dst';

/** A packet counter comparison of the set match (`--packets-gt 5`, `! --bytes-eq 0`). */
export interface IpsetCounterTest {
  readonly op: 'eq' | 'lt' | 'gt';
  readonly value: number;
  readonly invert: boolean;
}

/** The options of the xt matches packetlab models, as iptables parses them. */
export type XtMatchOptions =
  /** `invert` (added by the iptables front end): `--probability` or `--every` preceded by `!`. */
  | {
      readonly name: 'statistic';
      readonly mode: 'random';
      readonly probability: number;
      readonly invert?: boolean;
    }
  | {
      readonly name: 'statistic';
      readonly mode: 'nth';
      readonly every: number;
      readonly packet: number;
      readonly invert?: boolean;
    }
  /** `hitcount`, `rttl` and `invert` (`! --rcheck`) added by the iptables front end. */
  | {
      readonly name: 'recent';
      readonly command: 'set' | 'rcheck' | 'update' | 'remove';
      readonly listName: string;
      readonly side: 'source' | 'dest';
      readonly seconds: number | undefined;
      readonly reap: boolean;
      readonly mask: number;
      readonly hitcount?: number;
      readonly rttl?: boolean;
      readonly invert?: boolean;
    }
  | { readonly name: 'comment'; readonly comment: string }
  /**
   * Added by the iptables front end for what nft expressions cannot say: `--ctstate` with the virtual SNAT/DNAT
   * states (xt_conntrack: ((ct state bit | SNAT 0x100 if IPS_SRC_NAT | DNAT 0x200 if IPS_DST_NAT) & mask) != 0,
   * xor invert; evaluated by iptables/match-conntrack.ts: conntrackStateMatches).
   */
  | { readonly name: 'conntrack'; readonly stateMask: number; readonly invert: boolean }
  /** `! --icmp-type TYPE/CODE` (ipt_icmp: type and code range both match, xor invert): icmpMatches. */
  | {
      readonly name: 'icmp';
      readonly type: number;
      readonly codeMin: number;
      readonly codeMax: number;
      readonly invert: boolean;
    }
  /** The set match (xt_set rev 4): the packet's element in the named ipset, xor invert; ipset/match.ts. */
  | {
      readonly name: 'set';
      readonly setName: string;
      readonly directions: readonly IpsetDirection[];
      readonly invert: boolean;
      readonly returnNomatch: boolean;
      readonly updateCounters: boolean;
      /** For list:set: whether the member sets' counters count too (`! --update-subcounters` turns it off). */
      readonly updateSubcounters: boolean;
      readonly packets: IpsetCounterTest | undefined;
      readonly bytes: IpsetCounterTest | undefined;
    }
  /**
   * The owner match (xt_owner rev 1): `match` and `invert` are XT_OWNER_* bits (uid 1, gid 2, socket 4, supplementary
   * groups 8), the ranges inclusive; iptables/match-owner.ts: ownerMatches.
   */
  | {
      readonly name: 'owner';
      readonly match: number;
      readonly invert: number;
      readonly uidMin: number;
      readonly uidMax: number;
      readonly gidMin: number;
      readonly gidMax: number;
    }
  /** The socket match (xt_socket rev 3): XT_SOCKET_* flags (transparent 1, nowildcard 2, restore-skmark 4). */
  | { readonly name: 'socket'; readonly flags: number }
  /**
   * The physdev match (xt_physdev): XT_PHYSDEV_OP_* bits in `bitmask` and `invert` (in 1, out 2, bridged 4,
   * is-in 8, is-out 16) and the port names (a trailing `+` for a prefix); iptables/match-physdev.ts.
   */
  | {
      readonly name: 'physdev';
      readonly bitmask: number;
      readonly invert: number;
      readonly physIn: string;
      readonly physOut: string;
    }
  /** multiport `--ports` (source or destination port in the list), xor invert: multiportMatches. */
  | {
      readonly name: 'multiport';
      readonly side: 'source' | 'destination' | 'either';
      readonly ranges: readonly (readonly [number, number])[];
      readonly invert: boolean;
    }
  // issue 12, ipt-b: sctp, limit, hashlimit, connlimit, helper, rpfilter, u32, string, time, policy, ah, esp...
  | ExtMatchOptions;

// ---- rules, chains, tables ---------------------------------------------------------------

/** The iptables form of a rule, kept so iptables-save and -S print what was loaded. */
export interface IptablesSpec {
  /**
   * The rule's arguments in iptables-save's canonical order, without `-A CHAIN` and counters, each word
   * as iptables-save prints it (quoted where it quotes: `"kubernetes service portals"`): join with spaces.
   */
  readonly args: readonly string[];
  /**
   * Added by the iptables front end. iptables-nft hands the extensions it cannot translate to the kernel as
   * xt matches and targets (`[ match name conntrack rev 3 ]`, `[ target name MARK rev 2 ]`), and `nft list
   * ruleset` prints each through the extension's own translation: `exprs[at, at + count)` print as `text`
   * ('' for `-m comment`, so the rule shows two spaces; `xt match recent` for an extension without one).
   * The statements around the span still print one by one, joined by single spaces. In expression order.
   */
  readonly nft?: readonly NftTextSpan[];
}

/** A run of a rule's expressions that nft prints as one piece of text (see IptablesSpec.nft). */
export interface NftTextSpan {
  readonly at: number;
  readonly count: number;
  readonly text: string;
  /**
   * True for an xt extension's translation; false for native expressions nft shows merged (`tcp sport != 7
   * tcp dport != 80` from one 4-byte comparison). nft's payload-dependency removal (dropping `meta l4proto tcp`
   * before `tcp dport`) sees through native spans only.
   */
  readonly xt: boolean;
}

export interface Rule {
  readonly handle: number;
  readonly exprs: readonly Expr[];
  /** nft's rule comment (`comment "..."`); iptables' `-m comment` lands here too. */
  readonly comment: string | undefined;
  /** Set when the rule came from iptables. */
  readonly iptables: IptablesSpec | undefined;
  /** The rule's counter, moved by its `counter` expression (iptables-nft always adds one). */
  packets: number;
  bytes: number;
}

export interface BaseChainSpec {
  readonly type: ChainType;
  readonly hook: HookName;
  readonly priority: number;
  readonly policy: 'accept' | 'drop';
  /** The devices an ingress or egress chain is bound to (`device eth0`, `devices = { a, b }`); else undefined. */
  readonly devices?: readonly string[] | undefined;
}

export interface Chain {
  readonly name: string;
  readonly handle: number;
  /** Set for base chains; regular chains are only reached by jump/goto. */
  base: BaseChainSpec | undefined;
  rules: Rule[];
  /** Packets and bytes that met the policy (iptables -L's policy counters). */
  policyPackets: number;
  policyBytes: number;
  /**
   * Whether the base chain has counters at all (NFTA_CHAIN_COUNTERS at creation, or sent since):
   * iptables-nft creates its built-in chains without them when a command other than -P, -Z or
   * iptables-restore makes them, and their policy counters then stay 0.
   */
  policyCounters: boolean;
  /** nft's chain comment (`comment "..."` in the chain's block), set when the chain is created. */
  readonly comment?: string;
}

/** A flowtable (`flowtable ft { hook ingress priority 0; devices = { a, b }; }`): the fast path's devices. */
export interface Flowtable {
  readonly name: string;
  readonly handle: number;
  readonly priority: number;
  readonly devices: readonly string[];
  /** `counter`: the flows' conntrack entries count the fast path's packets. */
  readonly counter: boolean;
}

/** The stateful object types nft names (NFT_OBJECT_COUNTER, _QUOTA, _LIMIT). */
export type NamedObjectType = 'counter' | 'quota' | 'limit';

/**
 * A named stateful object (`counter c1 { packets 0 bytes 0 }`, `quota q1 { 10 mbytes }`, `limit l1 { rate 10/second
 * }`): its state is shared by every rule that names it, and by a transaction's copy of the table.
 */
export type NamedObject =
  | {
      readonly type: 'counter';
      readonly name: string;
      readonly handle: number;
      readonly comment: string | undefined;
      readonly counter: ElementCounter;
    }
  | {
      readonly type: 'quota';
      readonly name: string;
      readonly handle: number;
      readonly comment: string | undefined;
      readonly quota: QuotaExpr;
    }
  | {
      readonly type: 'limit';
      readonly name: string;
      readonly handle: number;
      readonly comment: string | undefined;
      readonly limit: LimitExpr;
    };

export interface Table {
  readonly family: Family;
  readonly name: string;
  readonly handle: number;
  readonly chains: Map<string, Chain>;
  readonly sets: Map<string, NamedSet>;
  /** Tables iptables-nft created (`table ip nat`, `table ip filter`...), for iptables-save. */
  readonly iptables: boolean;
  /** nft's table comment (`comment "rules for kube-proxy"`), printed by `nft list`. */
  readonly comment?: string;
  /** The table's flowtables (replaced as a whole on change, so a transaction's copy never shares a change). */
  flowtables?: readonly Flowtable[];
  /** The table's named counters, quotas and limits in the order they were added (replaced as a whole on change). */
  objects?: readonly NamedObject[];
  /** The table's handle generator (nft_table's hgenerator): chains, rules and sets are numbered per table. */
  nextHandle: number;
}

/** Every table of one namespace, with the namespace's table handle counter (nft_net->table_handle). */
export interface Ruleset {
  readonly tables: Table[];
  nextHandle: number;
}
