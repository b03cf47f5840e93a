// The rule grammar of the bridge, netdev, arp and ip6 families (parser_bison.y: vlan_hdr_expr, arp_hdr_expr,
// ip6_hdr_expr, icmp6_hdr_expr, `ether type`, `meta ibrname/obrname`), the protocol dependencies nft inserts for
// them (payload.c: payload_gen_dependency — `ether type vlan` before a vlan field, `meta protocol ip` before an
// ip field in a bridge or netdev table, `vlan type ip` after a tag), and which of those `nft list` hides again
// (payload_dependency_kill). Not modelled: ip6 fields beyond saddr/daddr/nexthdr/hoplimit, IPv6 extension headers.

import type { Expr, Family, FamilyField, Value } from '../ir.ts';
import type { Token } from './lexer.ts';
import { errorAt, span } from './location.ts';
import type { TokenStream } from './stream.ts';

const ETH_P_IP = 0x0800;
const ETH_P_ARP = 0x0806;
const ETH_P_IPV6 = 0x86dd;
const ETH_P_8021Q = 0x8100;
const NFPROTO_IPV6 = 10;
const IPPROTO_ICMPV6 = 58;

/** Words after `vlan`, `arp`, `ip6` and `icmpv6` nft knows but packetlab does not model. */
const UNMODELLED: Readonly<Record<string, readonly string[]>> = {
  ip6: ['version', 'dscp', 'ecn', 'flowlabel', 'length'],
  icmpv6: ['checksum', 'id', 'sequence', 'mtu', 'max-delay', 'param-problem'],
  vlan: ['cfi'],
};

/** The field after a family keyword (the keyword itself is consumed); syntax errors throw as the parser's do. */
export function parseFamilyField(first: Token, s: TokenStream): FamilyField {
  const key = s.peek();
  const take = (fields: readonly string[]): string => {
    if (key.kind !== 'word') return s.fail(key);
    if (UNMODELLED[first.text]?.includes(key.text)) {
      s.next();
      s.report(errorAt(span(first.loc, key.loc), `${first.text} ${key.text} is not supported by packetlab`));
      return fields[0]!;
    }
    if (!fields.includes(key.text)) return s.fail(key);
    s.next();
    return key.text;
  };
  switch (first.text) {
    case 'vlan':
      return `vlan ${take(['id', 'pcp', 'dei', 'type'])}` as FamilyField;
    case 'arp': {
      const field = take(['htype', 'ptype', 'hlen', 'plen', 'operation', 'saddr', 'daddr']);
      if (field !== 'saddr' && field !== 'daddr') return `arp ${field}` as FamilyField;
      const kind = s.next();
      if (kind.text !== 'ip' && kind.text !== 'ether') return s.fail(kind);
      return `arp ${field} ${kind.text}` as FamilyField;
    }
    case 'ip6':
      return `ip6 ${take(['saddr', 'daddr', 'nexthdr', 'hoplimit'])}` as FamilyField;
    case 'icmpv6':
      return `icmpv6 ${take(['type', 'code'])}` as FamilyField;
    default:
      return s.fail(first);
  }
}

function cmpEq(value: Value, right: number): Expr {
  return { kind: 'cmp', left: [value], op: 'eq', right: { kind: 'number', value: right } };
}

const ETHER_TYPE: Value = { selector: { kind: 'family-field', field: 'ether type' } };
const VLAN_TYPE: Value = { selector: { kind: 'family-field', field: 'vlan type' } };
const META_PROTOCOL: Value = { selector: { kind: 'meta', key: 'protocol' } };
const META_NFPROTO: Value = { selector: { kind: 'meta', key: 'nfproto' } };

function sameDependency(a: Expr, b: Expr): boolean {
  if (a.kind !== 'cmp' || b.kind !== 'cmp' || a.left.length !== 1 || b.left.length !== 1) return false;
  const x = a.left[0]!.selector;
  const y = b.left[0]!.selector;
  const sameSelector =
    (x.kind === 'meta' && y.kind === 'meta' && x.key === y.key) ||
    (x.kind === 'family-field' && y.kind === 'family-field' && x.field === y.field);
  return (
    sameSelector && a.right.kind === 'number' && b.right.kind === 'number' && a.right.value === b.right.value
  );
}

function hasVlanField(exprs: readonly Expr[]): boolean {
  return exprs.some(
    (expr) =>
      expr.kind === 'cmp' &&
      expr.left.some((v) => v.selector.kind === 'family-field' && v.selector.field.startsWith('vlan ')),
  );
}

/** What a field needs before it: protocol matches to insert, and the transport protocol (meta l4proto) it implies. */
export interface FamilyDependency {
  readonly exprs: readonly Expr[];
  readonly l4proto: number | undefined;
}

/**
 * The dependencies of a family field, or of an IPv4 field (`ip`) in a bridge or netdev table, given the rule's
 * expressions so far (a dependency already there is not repeated).
 */
export function familyDependency(
  field: FamilyField | 'ip',
  family: Family,
  exprs: readonly Expr[],
): FamilyDependency {
  let needed: Expr | undefined;
  let l4proto: number | undefined;
  if (field === 'ip') needed = cmpEq(hasVlanField(exprs) ? VLAN_TYPE : META_PROTOCOL, ETH_P_IP);
  else if (field.startsWith('vlan ')) needed = cmpEq(ETHER_TYPE, ETH_P_8021Q);
  else if (field.startsWith('arp ') && family !== 'arp') needed = cmpEq(ETHER_TYPE, ETH_P_ARP);
  else if (field.startsWith('ip6 ')) {
    if (family === 'inet') needed = cmpEq(META_NFPROTO, NFPROTO_IPV6);
    else if (family === 'bridge' || family === 'netdev') needed = cmpEq(META_PROTOCOL, ETH_P_IPV6);
  } else if (field.startsWith('icmpv6 ')) l4proto = IPPROTO_ICMPV6;
  if (needed === undefined || exprs.some((expr) => sameDependency(expr, needed)))
    return { exprs: [], l4proto };
  return { exprs: [needed], l4proto };
}

/** Whether the family in which `ip saddr` depends on `meta protocol ip` rather than `meta nfproto ipv4`. */
export function linkLayerFamily(family: Family): boolean {
  return family === 'bridge' || family === 'netdev';
}

function fieldName(expr: Expr | undefined): string | undefined {
  if (expr === undefined || (expr.kind !== 'cmp' && expr.kind !== 'lookup' && expr.kind !== 'vmap'))
    return undefined;
  const selector = expr.left[0]?.selector;
  if (selector?.kind === 'family-field' || selector?.kind === 'payload') return selector.field;
  return undefined;
}

/**
 * payload_dependency_kill for the families' dependencies: `exprs[index]` is a protocol match the next expression's
 * field implies, so `nft list` does not print it (`ether type vlan vlan id 10` lists as `vlan id 10`).
 */
export function hiddenFamilyDependency(exprs: readonly Expr[], index: number, family: Family): boolean {
  const expr = exprs[index]!;
  if (expr.kind !== 'cmp' || expr.op !== 'eq' || expr.left.length !== 1 || expr.right.kind !== 'number')
    return false;
  const value = expr.left[0]!;
  if (value.mask !== undefined || value.xor !== undefined) return false;
  const next = fieldName(exprs[index + 1]);
  if (next === undefined) return false;
  const right = expr.right.value;
  const selector = value.selector;
  if (selector.kind === 'family-field') {
    if (selector.field === 'ether type')
      return (
        // `vlan type` is the tag's protocol key: nft keeps the `ether type 8021q` before it (checked on 1.0.6).
        (right === ETH_P_8021Q && next.startsWith('vlan ') && next !== 'vlan type') ||
        (right === ETH_P_ARP && next.startsWith('arp ') && family !== 'arp')
      );
    return selector.field === 'vlan type' && right === ETH_P_IP && next.startsWith('ip ');
  }
  if (selector.kind !== 'meta') return false;
  if (selector.key === 'protocol' && linkLayerFamily(family))
    return (
      (right === ETH_P_IP && next.startsWith('ip ')) || (right === ETH_P_IPV6 && next.startsWith('ip6 '))
    );
  if (selector.key === 'nfproto')
    return family === 'inet' && right === NFPROTO_IPV6 && next.startsWith('ip6 ');
  if (selector.key === 'l4proto') return right === IPPROTO_ICMPV6 && next.startsWith('icmpv6 ');
  return false;
}
