// The pcap-filter language (man 7 pcap-filter) as tcpdump uses it: text in, a frame predicate or libpcap's error out.

import {
  compileForLink,
  type FilterLinkType,
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL2,
  type LinkCompileResult,
} from './compile.ts';
import { type FilterNode, parseFilter } from './parser.ts';

export { type FilterLinkType, LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2 } from './compile.ts';
export { type Token, tokenize } from './lexer.ts';
export type { ArithNode, Direction, FilterNode, LoadBase, ParseResult, RelOp } from './parser.ts';
export { parseFilter } from './parser.ts';

/**
 * True when the frame passes the filter. `linkType` says how the frame starts (Ethernet header or SLL2
 * header); `wireLen` is its length on the wire for `len`/`less`/`greater` (default: the bytes given).
 */
export type FilterPredicate = (frame: Uint8Array, linkType: FilterLinkType, wireLen?: number) => boolean;

export type CompileFilterResult =
  | { readonly ok: true; readonly match: FilterPredicate; readonly ast: FilterNode }
  /** `message` is libpcap's text; tcpdump prints it as `tcpdump: ${message}`. */
  | { readonly ok: false; readonly message: string };

export interface CompileFilterOptions {
  /**
   * The capture's link type, when known: primitives that link type cannot carry (`ether host` or `vlan` on
   * SLL2, `inbound` on Ethernet) then fail here, as they do in tcpdump. Without it they only fail to match.
   */
  readonly linkType?: FilterLinkType;
}

/** Compiles a filter expression; never throws. An empty (or blank) expression matches every frame. */
export function compileFilter(text: string, options: CompileFilterOptions = {}): CompileFilterResult {
  const parsed = parseFilter(text, options.linkType);
  if (!parsed.ok) return parsed;
  const ast = parsed.ast;
  // The capture's link type is compiled now; another one only if a frame of that type shows up.
  const compiled = new Map<FilterLinkType, LinkCompileResult>();
  const compile = (linkType: FilterLinkType): LinkCompileResult => {
    let result = compiled.get(linkType);
    if (result === undefined) {
      result = compileForLink(ast, linkType);
      compiled.set(linkType, result);
    }
    return result;
  };
  const results =
    options.linkType === undefined
      ? [compile(LINKTYPE_ETHERNET), compile(LINKTYPE_LINUX_SLL2)]
      : [compile(options.linkType)];
  // Without a link type, fail only if no link type can carry the filter.
  const usable = results.flatMap((result) => (result.ok ? [result] : []));
  const first = results[0]!;
  if (!first.ok && usable.length === 0) return { ok: false, message: first.message };
  if (usable.every((result) => result.rejectsAll)) {
    // libpcap's optimizer refuses a filter it reduces to "no".
    return { ok: false, message: 'expression rejects all packets' };
  }
  const match: FilterPredicate = (frame, linkType, wireLen = frame.length) => {
    if (linkType !== LINKTYPE_ETHERNET && linkType !== LINKTYPE_LINUX_SLL2) return false;
    const result = compile(linkType);
    return result.ok && result.match(frame, wireLen);
  };
  return { ok: true, match, ast };
}
