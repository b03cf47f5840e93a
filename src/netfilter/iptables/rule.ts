// Turns a parsed iptables rule into the rule IR as iptables-nft 1.8.9 builds it (nft.c: nft_rule_new,
// nft-ipv4.c: nft_ipv4_add): interfaces, protocol, addresses, then each match, a counter, the target. The saved
// form is what iptables-save prints after the kernel round trip (nft-shared.c reads native expressions back,
// merging tcp/udp port comparisons into one match and folding port ranges).

import type { Expr, IptablesSpec, NftTextSpan, Rule } from '../ir.ts';
import type { ParseContext } from './extension.ts';
import { TcpUdpMatch } from './match-tcp.ts';
import { formatAddrMask, maskLength, protocolName } from './names.ts';
import { type AddrSel, type IfaceSel, parseCommand, type RuleSpec } from './parser.ts';
import { tokenizeRestoreLine } from './tokenize.ts';
import { internWord } from './words.ts';

export interface CompiledRule {
  readonly exprs: readonly Expr[];
  readonly comment: string | undefined;
  readonly iptables: IptablesSpec;
}

function ifaceExpr(key: 'iifname' | 'oifname', sel: IfaceSel): Expr | undefined {
  if (sel.name === '+' || sel.name === '') return undefined;
  const wildcard = sel.name.endsWith('+');
  return {
    kind: 'cmp',
    left: [{ selector: { kind: 'meta', key } }],
    op: sel.invert ? 'ne' : 'eq',
    right: { kind: 'string', value: wildcard ? sel.name.slice(0, -1) : sel.name, wildcard },
  };
}

function addrExpr(field: 'ip saddr' | 'ip daddr', sel: AddrSel): Expr | undefined {
  if (sel.mask === 0) return undefined;
  const len = maskLength(sel.mask);
  const op = sel.invert ? 'ne' : 'eq';
  if (len === 32)
    return {
      kind: 'cmp',
      left: [{ selector: { kind: 'payload', field } }],
      op,
      right: { kind: 'number', value: sel.addr },
    };
  if (len > 0)
    return {
      kind: 'cmp',
      left: [{ selector: { kind: 'payload', field } }],
      op,
      right: { kind: 'prefix', addr: sel.addr, len },
    };
  return {
    kind: 'cmp',
    left: [{ selector: { kind: 'payload', field }, mask: sel.mask }],
    op,
    right: { kind: 'number', value: sel.addr },
  };
}

/** The rule IR and saved form of `spec` in table `table`. */
export function compileRule(spec: RuleSpec, table: string): CompiledRule {
  const ctx: ParseContext = { proto: spec.proto, protoInvert: spec.protoInvert, table };
  const exprs: Expr[] = [];
  const spans: NftTextSpan[] = [];
  const push = (expr: Expr | undefined): void => {
    if (expr !== undefined) exprs.push(expr);
  };
  if (spec.iif !== undefined) push(ifaceExpr('iifname', spec.iif));
  if (spec.oif !== undefined) push(ifaceExpr('oifname', spec.oif));
  if (spec.proto !== 0)
    push({
      kind: 'cmp',
      left: [{ selector: { kind: 'meta', key: 'l4proto' } }],
      op: spec.protoInvert ? 'ne' : 'eq',
      right: { kind: 'number', value: spec.proto },
    });
  if (spec.src !== undefined) push(addrExpr('ip saddr', spec.src));
  if (spec.dst !== undefined) push(addrExpr('ip daddr', spec.dst));
  // nft_ipv4_add: -f as a masked fragment offset, != 0 (a later fragment) or == 0 with `!`.
  if (spec.fragment !== undefined)
    push({
      kind: 'cmp',
      left: [{ selector: { kind: 'payload', field: 'ip frag-off' }, mask: 0x1fff }],
      op: spec.fragment.invert ? 'eq' : 'ne',
      right: { kind: 'number', value: 0 },
    });

  let comment: string | undefined;
  for (const match of spec.matches) {
    const compiled = match.compile(ctx);
    const at = exprs.length;
    exprs.push(...compiled.exprs);
    if (compiled.xlate !== undefined)
      spans.push({ at, count: compiled.exprs.length, text: compiled.xlate, xt: true });
    else if (compiled.nftText !== undefined)
      spans.push({ at, count: compiled.exprs.length, text: compiled.nftText, xt: false });
    if (match.name === 'comment' && comment === undefined) {
      const options = compiled.exprs[0];
      if (options?.kind === 'match' && options.options.name === 'comment') comment = options.options.comment;
    }
  }
  exprs.push({ kind: 'counter' });
  const target = spec.target;
  if (target !== undefined) {
    switch (target.kind) {
      case 'standard': {
        const kind =
          target.verdict === 'ACCEPT'
            ? 'accept'
            : target.verdict === 'DROP'
              ? 'drop'
              : target.verdict === 'RETURN'
                ? 'return'
                : 'queue';
        exprs.push({ kind: 'verdict', verdict: { kind } });
        break;
      }
      case 'jump':
      case 'goto':
        exprs.push({ kind: 'verdict', verdict: { kind: target.kind, chain: target.chain } });
        break;
      case 'xt': {
        const compiled = target.target.compile(ctx);
        const at = exprs.length;
        exprs.push(...compiled.exprs);
        if (compiled.xlate !== undefined)
          spans.push({ at, count: compiled.exprs.length, text: compiled.xlate, xt: true });
        break;
      }
    }
  }
  // The words the rule keeps, flat and shared (words.ts).
  const args = savedArgs(spec).map(internWord);
  const iptables: IptablesSpec =
    spans.length > 0
      ? { args, nft: spans.map((span) => ({ ...span, text: internWord(span.text) })) }
      : { args };
  return { exprs, comment: comment === undefined ? undefined : internWord(comment), iptables };
}

/** iptables-save's words for `spec` (without `-A CHAIN`), as read back from the kernel. */
export function savedArgs(spec: RuleSpec): string[] {
  const args: string[] = [];
  const addr = (flag: string, sel: AddrSel | undefined): void => {
    if (sel === undefined || sel.mask === 0) return;
    if (sel.invert) args.push('!');
    args.push(flag, formatAddrMask(sel));
  };
  const iface = (flag: string, sel: IfaceSel | undefined): void => {
    if (sel === undefined || sel.name === '+' || sel.name === '') return;
    if (sel.invert) args.push('!');
    args.push(flag, sel.name);
  };
  addr('-s', spec.src);
  addr('-d', spec.dst);
  iface('-i', spec.iif);
  iface('-o', spec.oif);
  if (spec.proto !== 0) {
    if (spec.protoInvert) args.push('!');
    args.push('-p', protocolName(spec.proto) ?? `${spec.proto}`);
  }
  if (spec.fragment !== undefined) args.push(...(spec.fragment.invert ? ['!', '-f'] : ['-f']));
  // Native tcp/udp comparisons come back as one match per protocol, where the first of them was.
  const entries: { name: string; words: () => string[] }[] = [];
  const merged = new Map<string, TcpUdpMatch>();
  for (const match of spec.matches) {
    if (match instanceof TcpUdpMatch && match.isNative()) {
      let into = merged.get(match.name);
      if (into === undefined) {
        const fresh = new TcpUdpMatch(match.name);
        merged.set(match.name, fresh);
        into = fresh;
        entries.push({ name: match.name, words: () => fresh.save() });
      }
      into.absorb(match.native());
      continue;
    }
    entries.push({ name: match.name, words: () => match.save() });
  }
  for (const entry of entries) args.push('-m', entry.name, ...entry.words());
  const target = spec.target;
  if (target !== undefined) {
    switch (target.kind) {
      case 'standard':
        args.push('-j', target.verdict);
        break;
      case 'jump':
        args.push('-j', target.chain);
        break;
      case 'goto':
        args.push('-g', target.chain);
        break;
      case 'xt':
        args.push('-j', target.target.name, ...target.target.save());
        break;
    }
  }
  return args;
}

const parsedRules = new WeakMap<Rule, RuleSpec>();

/** The parsed form of a rule iptables created, read back from its saved words (cached). */
export function ruleSpecOf(rule: Rule, table: string): RuleSpec | undefined {
  if (rule.iptables === undefined) return undefined;
  const cached = parsedRules.get(rule);
  if (cached !== undefined) return cached;
  // Each saved word is read back on its own: an interface name may hold a space (`-o bad name`, saved bare).
  const words = rule.iptables.args.flatMap((arg) =>
    arg.includes(' ') && !arg.startsWith('"') ? [arg] : tokenizeRestoreLine(arg),
  );
  const parsed = parseCommand(['-A', 'PLACEHOLDER', ...words], { restoreTable: table, reread: true });
  if ('kind' in parsed || parsed.rule === undefined) return undefined;
  parsedRules.set(rule, parsed.rule);
  return parsed.rule;
}

/** Where the target's words start in a saved rule (for `-c P B` of -S -v and iptables-save -c). */
export function targetIndex(rule: Rule, table: string): number {
  const args = rule.iptables?.args ?? [];
  const spec = ruleSpecOf(rule, table);
  if (spec?.target === undefined) return args.length;
  const words = spec.target.kind === 'xt' ? 2 + spec.target.target.save().length : 2;
  return args.length - words;
}
