// The statements and xt matches a rule runs besides comparisons: marks (nft_meta_set, nft_ct set, xt_MARK,
// xt_CONNMARK), nftrace, notrack, LOG, the statistic/recent/comment matches, and the terminal NAT and REJECT.

import type { PacketType } from '../core/packet.ts';
import type { StatementRunner } from './chain.ts';
import type { Conntrack } from './conntrack/conntrack.ts';
import { setUntracked } from './conntrack/conntrack.ts';
import { updateSet } from './expr/compare.ts';
import { limitMatches, quotaMatches } from './expr/limit.ts';
import { natFromMap } from './expr/nat-map.ts';
import { objrefMatches } from './expr/objref.ts';
import { readValue } from './expr/selectors.ts';
import type { NetfilterHost } from './host.ts';
import { ipsetChange, ipsetTest, type PacketFields } from './ipset/match.ts';
import type { IpSets } from './ipset/sets.ts';
import { conntrackStateMatches } from './iptables/match-conntrack.ts';
import { icmpMatches } from './iptables/match-icmp.ts';
import { multiportMatches } from './iptables/match-multiport.ts';
import { ownerMatches } from './iptables/match-owner.ts';
import { physdevMatches } from './iptables/match-physdev.ts';
import { socketMatches } from './iptables/match-socket.ts';
import { tcpmssMangle } from './iptables/target-tcpmss.ts';
import { tproxyDecide } from './iptables/target-tproxy.ts';
import type { Expr, Rule, Source, Table, Value, Verdict, XtMatchOptions } from './ir.ts';
import { formatLogLine } from './log.ts';
import type { NatEngine } from './nat-engine.ts';
import type { PacketState } from './packet-state.ts';
import { packetSocket } from './socket-of.ts';
import { ExtMatches } from './xt/ext-matches.ts';
import { runExtTarget } from './xt/ext-targets.ts';
import { RecentLists } from './xt/recent.ts';
import { statisticMatches } from './xt/statistic.ts';

const ACCEPT: Verdict = { kind: 'accept' };
const ICMP_TYPE: Value = { selector: { kind: 'payload', field: 'icmp type' } };
const ICMP_CODE: Value = { selector: { kind: 'payload', field: 'icmp code' } };
const TH_SPORT: Value = { selector: { kind: 'payload', field: 'th sport' } };
const TH_DPORT: Value = { selector: { kind: 'payload', field: 'th dport' } };

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}
const DROP: Verdict = { kind: 'drop' };

export class Statements implements StatementRunner {
  readonly recent = new RecentLists();
  /** issue 12, ipt-b: sctp, limit, hashlimit, connlimit... (xt/ext-matches.ts). */
  private readonly ext = new ExtMatches();

  constructor(
    private readonly host: NetfilterHost,
    private readonly conntrack: Conntrack,
    private readonly nat: () => NatEngine | undefined,
    private readonly ipsets: IpSets,
  ) {}

  /** Reused for every set match and SET target, so that consulting a set allocates nothing. */
  private readonly packetFields: PacketFields = {
    srcAddr: 0,
    dstAddr: 0,
    proto: 0,
    fragmentOffset: 0,
    srcPort: 0,
    dstPort: 0,
    icmpPort: 0,
    inIface: undefined,
    outIface: undefined,
    length: 0,
  };

  /** What the ipset types read from the packet. */
  private fields(state: PacketState): PacketFields {
    const buf = state.pkt.buf;
    const ip = state.pkt.network;
    const fields = this.packetFields;
    const transport = ip + (buf[ip]! & 0x0f) * 4;
    fields.proto = buf[ip + 9]!;
    fields.fragmentOffset = ((buf[ip + 6]! << 8) | buf[ip + 7]!) & 0x1fff;
    const inTransport = fields.fragmentOffset === 0 && transport + 4 <= state.pkt.end;
    fields.srcAddr = readU32(buf, ip + 12);
    fields.dstAddr = readU32(buf, ip + 16);
    fields.srcPort = inTransport ? (buf[transport]! << 8) | buf[transport + 1]! : 0;
    fields.dstPort = inTransport ? (buf[transport + 2]! << 8) | buf[transport + 3]! : 0;
    fields.icmpPort = fields.srcPort;
    fields.inIface = state.inDev?.name;
    fields.outIface = state.outDev?.name;
    fields.length = state.length;
    return fields;
  }

  run(state: PacketState, expr: Expr, rule: Rule, table: Table): boolean {
    const pkt = state.pkt;
    switch (expr.kind) {
      case 'match':
        return this.match(state, expr.options, rule);
      case 'meta-set': {
        const value = this.source(state, expr.source);
        if (value === undefined) return false;
        if (expr.key === 'mark') pkt.mark = value >>> 0;
        else if (expr.key === 'pkttype') pkt.pktType = value as PacketType;
        else pkt.nftrace = value !== 0;
        return true;
      }
      case 'ct-set': {
        const value = this.source(state, expr.source);
        if (value === undefined || pkt.ctIndex < 0) return true;
        this.conntrack.setMark(pkt.ctIndex, value >>> 0);
        return true;
      }
      case 'notrack':
        setUntracked(pkt);
        return true;
      case 'limit':
        return limitMatches(expr, this.host.now(), state.length);
      case 'quota':
        return quotaMatches(expr, state.length);
      case 'objref':
        return objrefMatches(table, expr.type, expr.name, this.host.now(), state.length);
      case 'set-update': {
        const set = table.sets.get(expr.set);
        return set === undefined ? false : updateSet(state, expr, set);
      }
      case 'ipset-update': {
        const fields = this.fields(state);
        const now = this.host.now();
        const options = { exist: expr.exist, timeout: expr.timeout };
        if (expr.add !== undefined)
          ipsetChange(this.ipsets, 'add', expr.add.setName, expr.add.directions, options, fields, now);
        if (expr.del !== undefined)
          ipsetChange(this.ipsets, 'del', expr.del.setName, expr.del.directions, options, fields, now);
        return true;
      }
      case 'log':
        // NFLOG groups have no listener here, and audit records do not go to the kernel log.
        if (expr.group !== undefined || expr.level > 7) return true;
        this.host.log(
          formatLogLine(
            expr.prefix ?? '',
            pkt.buf.subarray(pkt.network, pkt.end),
            state.inDev?.name,
            state.outDev?.name,
            this.linkHeader(state),
            pkt.mark,
          ),
        );
        return true;
      case 'tproxy': {
        // nft_tproxy_eval_v4: xt_TPROXY's socket choice; without a transparent socket the rule breaks.
        const outcome = tproxyDecide(this.host, pkt.buf, pkt.network, pkt.end, pkt.iif, pkt.mark, expr);
        if (outcome.kind === 'drop') return false;
        pkt.tproxyAddr = outcome.addr;
        pkt.tproxyPort = outcome.port;
        return true;
      }
      default:
        return true;
    }
  }

  /** The xt matches iptables-nft keeps as compat expressions. */
  private match(state: PacketState, options: XtMatchOptions, rule: Rule): boolean {
    const pkt = state.pkt;
    const buf = pkt.buf;
    const ip = pkt.network;
    switch (options.name) {
      case 'statistic':
        return statisticMatches(options, rule, this.host.rng) !== (options.invert ?? false);
      case 'recent':
        return this.recent.matches(
          options,
          readU32(buf, ip + 12),
          readU32(buf, ip + 16),
          this.host.now(),
          buf[ip + 8]!,
        );
      case 'comment':
        return true;
      case 'conntrack': {
        const status = pkt.ctIndex >= 0 ? this.conntrack.status(pkt.ctIndex) : 0;
        return conntrackStateMatches(options, state.ctStateBits(), status);
      }
      case 'icmp': {
        const type = readValue(state, ICMP_TYPE);
        const code = readValue(state, ICMP_CODE);
        return typeof type === 'number' && typeof code === 'number' && icmpMatches(options, type, code);
      }
      case 'set':
        return (
          ipsetTest(
            this.ipsets,
            options.setName,
            options.directions,
            options,
            this.fields(state),
            this.host.now(),
          ) !== options.invert
        );
      case 'owner':
        return ownerMatches(options, pkt.skUid, pkt.skGid);
      case 'physdev':
        return physdevMatches(
          options,
          pkt.physIn !== 0,
          pkt.physIn !== 0 ? this.host.ifname(pkt.physIn) : undefined,
          pkt.physOut !== 0 ? this.host.ifname(pkt.physOut) : undefined,
        );
      case 'socket': {
        const found = socketMatches(options.flags, packetSocket(state));
        if (found.mark !== undefined) pkt.mark = found.mark;
        return found.matched;
      }
      case 'multiport': {
        const sport = readValue(state, TH_SPORT);
        const dport = readValue(state, TH_DPORT);
        return (
          typeof sport === 'number' && typeof dport === 'number' && multiportMatches(options, sport, dport)
        );
      }
      default:
        return this.ext.matches(state, options, rule);
    }
  }

  terminal(state: PacketState, expr: Expr, table: Table): Verdict | undefined {
    if (expr.kind === 'tproxy') {
      const pkt = state.pkt;
      const outcome = tproxyDecide(this.host, pkt.buf, pkt.network, pkt.end, pkt.iif, pkt.mark, expr);
      if (outcome.kind === 'drop') return DROP;
      pkt.mark = outcome.mark;
      pkt.tproxyAddr = outcome.addr;
      pkt.tproxyPort = outcome.port;
      return ACCEPT;
    }
    if (expr.kind === 'tcpmss')
      return tcpmssMangle(state.pkt, expr.mss, () => this.clampMtu(state)) === 'drop' ? DROP : undefined;
    if (expr.kind === 'xt-target') return runExtTarget(state, expr.options, this.nat());
    if (expr.kind === 'reject') {
      this.host.reject(state.pkt, expr.with, state.hook);
      return DROP;
    }
    if (expr.kind !== 'nat') return undefined;
    const nat = this.nat();
    if (nat === undefined) return ACCEPT;
    const manip = expr.type === 'dnat' || expr.type === 'redirect' ? 'dst' : 'src';
    // A map's miss ends the statement without a verdict (nft_lookup_eval's NFT_BREAK; the rest of the rule runs).
    const mapped = natFromMap(state, expr, table);
    if (mapped === undefined) return undefined;
    const verdict = nat.setup(
      state.pkt,
      mapped,
      manip,
      state.inDev?.ifindex ?? 0,
      state.outDev?.ifindex ?? 0,
      this.host.now(),
    );
    return verdict === 'accept' ? ACCEPT : DROP;
  }

  /** tcpmss_reverse_mtu and dst_mtu(skb_dst): the smaller of the MTUs toward the destination and back to the source. */
  private clampMtu(state: PacketState): number {
    const buf = state.pkt.buf;
    const ip = state.pkt.network;
    const forward = this.host.routeMtu?.(readU32(buf, ip + 16)) ?? state.outDev?.mtu ?? 0xffff_ffff;
    const reverse = this.host.routeMtu?.(readU32(buf, ip + 12)) ?? 0xffff_ffff;
    return Math.min(forward, reverse);
  }

  /** A constant, or a value read from the packet (`meta mark set mark or 0x4000`). */
  private source(state: PacketState, source: Source): number | undefined {
    if (source.kind === 'constant') return source.value;
    const value = readValue(state, source.value);
    if (typeof value !== 'number') return undefined;
    if (source.kind === 'value') return value;
    // xt_CONNMARK with separate masks: (one & mask) ^ (other & mask), each side's bitwise in its Value.
    const other = readValue(state, source.other);
    return typeof other === 'number' ? (value ^ other) >>> 0 : undefined;
  }

  /** The MAC header of a received packet, as LOG prints it in MAC=. */
  private linkHeader(state: PacketState): Uint8Array | undefined {
    const pkt = state.pkt;
    if (pkt.iif === 0 || pkt.network < 14 || state.hook === 'output' || state.hook === 'postrouting')
      return undefined;
    return pkt.buf.subarray(pkt.network - 14, pkt.network);
  }
}
