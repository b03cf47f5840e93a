// Runs a base chain over a packet as nft_do_chain does: rules in order, expressions left to right, jump/goto with a
// stack of at most 16, return, policy at the end, rule counters, and trace events for packets with nftrace set.

import { forgetReads, programOf } from './chain-program.ts';
import { evalCmp, lookupElement } from './expr/compare.ts';
import { natFromMap } from './expr/nat-map.ts';
import type { Chain, ElementCounter, Expr, Rule, Table, Verdict } from './ir.ts';
import { JUMP_STACK_MAX } from './ir.ts';
import type { PacketState } from './packet-state.ts';
import { type NftTraceEvent, type TracedPacket, traceIdOf } from './trace.ts';

/** What a statement the chain cannot run alone (nat, reject, log, xt matches, marks) asks of its owner. */
export interface StatementRunner {
  /** Runs one non-verdict statement or xt match; returns false when the rule must stop (a failed match). */
  run(state: PacketState, expr: Expr, rule: Rule, table: Table): boolean;
  /** NAT and REJECT end with a verdict of their own (accept or drop). */
  terminal(state: PacketState, expr: Expr, table: Table): Verdict | undefined;
}

/** Where trace events go; only called for packets whose nftrace flag is set and when someone listens. */
export type TraceSink = (event: NftTraceEvent) => void;

const CONTINUE: Verdict = { kind: 'continue' };
const ACCEPT: Verdict = { kind: 'accept' };
const DROP: Verdict = { kind: 'drop' };

interface Frame {
  chain: Chain;
  next: number;
}

/** The verdict of one base chain: accept (go on to the next hook entry) or drop. */
export function runBaseChain(
  state: PacketState,
  table: Table,
  base: Chain,
  statements: StatementRunner,
  trace: TraceSink | undefined,
): 'accept' | 'drop' {
  const stack: Frame[] = [];
  let chain = base;
  let index = 0;
  let dumped = false;
  const emit = (type: NftTraceEvent['type'], rule: Rule | undefined, verdict: Verdict, at: Chain): void => {
    if (trace === undefined || !state.pkt.nftrace) return;
    if (state.pkt.traceId === 0) state.pkt.traceId = state.host.rng.u32() || 1;
    trace({
      id: traceIdOf(state.pkt.traceId, state.pkt.iif),
      family: table.family,
      table,
      chain: at,
      type,
      rule,
      verdict,
      packet: dumped ? undefined : snapshot(state),
      mark: state.pkt.mark >>> 0,
      hook: state.hook,
    });
    dumped = true;
  };

  forgetReads();
  for (;;) {
    let verdict: Verdict = CONTINUE;
    let decided = false;
    const rules = chain.rules;
    const program = programOf(rules);
    for (; index < rules.length; index++) {
      // The rule's leading comparisons, as columns (chain-program.ts); a failing one is NFT_BREAK. The rule record
      // itself is read only past them: at 10k Services, touching every rule object costs a cache miss per rule.
      if (!program.passes(state, index)) continue;
      const rule = rules[index]!;
      const compiled = program.exprs[index] === rule.exprs;
      const result = evalRule(state, rule, table, statements, compiled ? program.resume[index]! : 0);
      // The rest of the rule may have changed the packet: its fields are read again.
      forgetReads();
      if (result === undefined) continue; // NFT_BREAK: a match failed
      if (result.kind === 'continue') {
        emit('rule', rule, CONTINUE, chain);
        continue;
      }
      emit('rule', rule, result, chain);
      verdict = result;
      decided = true;
      index++;
      break;
    }
    switch (verdict.kind) {
      case 'accept':
      case 'drop':
        return verdict.kind;
      case 'queue':
        return 'drop';
      case 'jump':
      case 'goto': {
        const target = table.chains.get(verdict.chain);
        if (target === undefined) return 'drop';
        if (verdict.kind === 'jump') {
          if (stack.length >= JUMP_STACK_MAX) return 'drop';
          stack.push({ chain, next: index });
        }
        chain = target;
        index = 0;
        continue;
      }
      case 'return':
      case 'continue':
        break;
    }
    // End of the chain (or `return`): back to the caller, or the base chain's policy.
    const caller = stack.pop();
    if (caller !== undefined) {
      if (!decided) emit('return', undefined, CONTINUE, chain);
      chain = caller.chain;
      index = caller.next;
      continue;
    }
    const policy = base.base?.policy === 'drop' ? DROP : ACCEPT;
    if (base.policyCounters) {
      base.policyPackets++;
      base.policyBytes += state.length;
    }
    emit('policy', undefined, policy, base);
    return policy.kind === 'drop' ? 'drop' : 'accept';
  }
}

/** One rule: undefined when a match failed (NFT_BREAK), else its verdict (continue when it has none). */
function evalRule(
  state: PacketState,
  rule: Rule,
  table: Table,
  statements: StatementRunner,
  from: number,
): Verdict | undefined {
  const exprs = rule.exprs;
  for (let at = from; at < exprs.length; at++) {
    const expr = exprs[at]!;
    switch (expr.kind) {
      case 'cmp':
        if (!evalCmp(state, expr.left, expr.op, expr.right)) return undefined;
        break;
      case 'lookup': {
        const element = lookupElement(state, expr.left, expr.set, table);
        if (element === null) return undefined;
        if ((element !== undefined) === expr.negate) return undefined;
        if (element?.counter !== undefined) countElement(element.counter, state.length);
        break;
      }
      case 'vmap': {
        const element = lookupElement(state, expr.left, expr.map, table);
        if (element === null || element === undefined) return undefined;
        if (element.counter !== undefined) countElement(element.counter, state.length);
        const data = element.data;
        if (data !== undefined && isVerdict(data)) return data;
        return undefined;
      }
      case 'counter':
        rule.packets++;
        rule.bytes += state.length;
        break;
      case 'verdict':
        return expr.verdict;
      case 'nat': {
        // nft_lookup_eval: a key the nat statement's map lacks breaks the rule (expr/nat-map.ts).
        if (expr.map !== undefined && natFromMap(state, expr, table) === undefined) return undefined;
        const verdict = statements.terminal(state, expr, table);
        if (verdict !== undefined) return verdict;
        break;
      }
      case 'tproxy':
        // nft_tproxy_eval_v4 continues (or breaks) the rule; xt_TPROXY accepts or drops.
        if (expr.nft === true) {
          if (!statements.run(state, expr, rule, table)) return undefined;
          break;
        }
        {
          const verdict = statements.terminal(state, expr, table);
          if (verdict !== undefined) return verdict;
        }
        break;
      case 'reject':
      case 'tcpmss':
      case 'xt-target': {
        const verdict = statements.terminal(state, expr, table);
        if (verdict !== undefined) return verdict;
        break;
      }
      case 'flow-offload':
        // nft_flow_offload_eval: NFT_BREAK when the connection cannot be offloaded.
        if (state.flows === undefined || !state.flows.offload(state, table, expr.flowtable)) return undefined;
        break;
      case 'match':
      case 'meta-set':
      case 'ct-set':
      case 'log':
      case 'notrack':
      case 'set-update':
      case 'ipset-update':
      case 'limit':
      case 'quota':
      case 'objref':
        if (!statements.run(state, expr, rule, table)) return undefined;
        break;
      default:
        expr satisfies never;
    }
  }
  return CONTINUE;
}

/** nft_set_elem_update_expr: a lookup that finds an element of a `counter` set counts the packet on it. */
function countElement(counter: ElementCounter, length: number): void {
  counter.packets++;
  counter.bytes += length;
}

function isVerdict(data: object): data is Verdict {
  return (
    'kind' in data &&
    ['accept', 'drop', 'continue', 'return', 'jump', 'goto', 'queue'].includes((data as Verdict).kind)
  );
}

/**
 * The headers the kernel dumps with the first trace event of a chain run (copied: the packet keeps changing).
 * At POSTROUTING a forwarded packet still names the device it came in on and keeps its link-layer header, as
 * Linux 6.x reports them there (checked on 6.18 by test/linux/nft-trace.test.ts).
 */
function snapshot(state: PacketState): TracedPacket {
  const pkt = state.pkt;
  const received = pkt.iif !== 0 && state.hook !== 'output' && pkt.network >= 14;
  // The bridge and netdev hooks know where the frame's header is (family-hooks.ts); the IP hooks guess.
  const ipFamily = state.family === 'ip' || state.family === 'inet';
  // ip_output names skb->dev (the input device of a forwarded packet); br_nf_post_routing names none.
  const forwardedIn =
    ipFamily && state.hook === 'postrouting' && pkt.iif !== 0 && !pkt.brPrerouted
      ? state.host.ifname(pkt.iif)
      : undefined;
  // At egress the kernel dumps no link-layer header (the trace prints the network header raw).
  const link = ipFamily
    ? received
      ? pkt.network - 14
      : -1
    : state.hook === 'egress'
      ? -1
      : state.linkOffset;
  return {
    iifname: state.inDev?.name ?? forwardedIn,
    oifname: state.outDev?.name,
    mark: pkt.mark >>> 0,
    linkHeader: link >= 0 ? pkt.buf.slice(link, link + 14) : undefined,
    linkEthernet: state.inDev?.kind !== 'loopback',
    network: pkt.buf.slice(pkt.network, pkt.end),
  };
}
