// The statements and xt matches a rule runs besides comparisons: marks (nft_meta_set, nft_ct set, xt_MARK,
// xt_CONNMARK), nftrace, notrack, LOG, the statistic/recent/comment matches, and the terminal NAT and REJECT.

import type { StatementRunner } from './chain.ts';
import type { Conntrack } from './conntrack/conntrack.ts';
import { setUntracked } from './conntrack/conntrack.ts';
import { readValue } from './expr/selectors.ts';
import type { NetfilterHost } from './host.ts';
import type { Expr, Rule, Source, Table, Verdict } from './ir.ts';
import { formatLogLine } from './log.ts';
import type { NatEngine } from './nat-engine.ts';
import type { PacketState } from './packet-state.ts';
import { RecentLists } from './xt/recent.ts';
import { statisticMatches } from './xt/statistic.ts';

const ACCEPT: Verdict = { kind: 'accept' };
const DROP: Verdict = { kind: 'drop' };

export class Statements implements StatementRunner {
  readonly recent = new RecentLists();

  constructor(
    private readonly host: NetfilterHost,
    private readonly conntrack: Conntrack,
    private readonly nat: () => NatEngine | undefined,
  ) {}

  run(state: PacketState, expr: Expr, rule: Rule, _table: Table): boolean {
    const pkt = state.pkt;
    switch (expr.kind) {
      case 'match':
        switch (expr.options.name) {
          case 'statistic':
            return statisticMatches(expr.options, rule, this.host.rng);
          case 'recent': {
            const ip = pkt.network;
            const src =
              ((pkt.buf[ip + 12]! << 24) |
                (pkt.buf[ip + 13]! << 16) |
                (pkt.buf[ip + 14]! << 8) |
                pkt.buf[ip + 15]!) >>>
              0;
            const dst =
              ((pkt.buf[ip + 16]! << 24) |
                (pkt.buf[ip + 17]! << 16) |
                (pkt.buf[ip + 18]! << 8) |
                pkt.buf[ip + 19]!) >>>
              0;
            return this.recent.matches(expr.options, src, dst, this.host.now());
          }
          case 'comment':
            return true;
        }
        return true;
      case 'meta-set': {
        const value = this.source(state, expr.source);
        if (value === undefined) return false;
        if (expr.key === 'mark') pkt.mark = value >>> 0;
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
      case 'log':
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
      default:
        return true;
    }
  }

  terminal(state: PacketState, expr: Expr, _table: Table): Verdict | undefined {
    if (expr.kind === 'reject') {
      this.host.reject(state.pkt, expr.with, state.hook);
      return DROP;
    }
    if (expr.kind !== 'nat') return undefined;
    const nat = this.nat();
    if (nat === undefined) return ACCEPT;
    const manip = expr.type === 'dnat' || expr.type === 'redirect' ? 'dst' : 'src';
    const verdict = nat.setup(
      state.pkt,
      expr,
      manip,
      state.inDev?.ifindex ?? 0,
      state.outDev?.ifindex ?? 0,
      this.host.now(),
    );
    return verdict === 'accept' ? ACCEPT : DROP;
  }

  /** A constant, or a value read from the packet (`meta mark set mark or 0x4000`). */
  private source(state: PacketState, source: Source): number | undefined {
    if (source.kind === 'constant') return source.value;
    const value = readValue(state, source.value);
    return typeof value === 'number' ? value : undefined;
  }

  /** The MAC header of a received packet, as LOG prints it in MAC=. */
  private linkHeader(state: PacketState): Uint8Array | undefined {
    const pkt = state.pkt;
    if (pkt.iif === 0 || pkt.network < 14 || state.hook === 'output' || state.hook === 'postrouting')
      return undefined;
    return pkt.buf.subarray(pkt.network - 14, pkt.network);
  }
}
