// What every iptables match and target module implements (libxtables' struct xtables_match/xtables_target in
// TypeScript): its options, parsing, final check, iptables-save and -L text, and its translation to the rule IR
// the way iptables-nft does it (native expressions, or an xt extension printed through its xlate text).

import type { Expr, HookName } from '../ir.ts';
import type { Errno, IptError } from './errors.ts';

/** One `--option` an extension accepts. */
export interface OptionDef {
  readonly name: string;
  /** Takes an argument (`--dport 80`); `false` for flags (`--syn`), 'two' for `--tcp-flags MASK COMP`. */
  readonly arg: boolean | 'two';
  /** Whether `!` may precede it. */
  readonly invert: boolean;
  /** For 'two': the message when the second argument is missing (default `--NAME requires two args.`). */
  readonly missingSecond?: string;
}

/** What the parser knows when an extension parses or checks its options. */
export interface ParseContext {
  /** `-p` value (0 for none or `all`). */
  readonly proto: number;
  readonly protoInvert: boolean;
  readonly table: string;
  /** Whether an ipset of that name exists (libxt_set asks the kernel when the rule is made); absent: not checked. */
  readonly setExists?: (name: string) => boolean;
  /**
   * Set when packetlab reads back words iptables-save printed (rule.ts: ruleSpecOf), which may hold what the
   * command line refuses (SNAT's `PORT-PORT/0`).
   */
  readonly reread?: boolean;
}

/** What a module compiles to. */
export interface Compiled {
  readonly exprs: readonly Expr[];
  /**
   * Set when iptables-nft passes the extension to the kernel as is (`[ match name conntrack rev 3 ]`):
   * what `nft list ruleset` prints in place of `exprs` (the extension's xlate, '' for comment,
   * `xt match recent` without one). Undefined when the expressions are native nft ones.
   */
  readonly xlate: string | undefined;
  /** Text nft prints for native expressions it shows otherwise than one by one (tcp sport . dport in one load). */
  readonly nftText?: string;
}

/** Where a target or match may be used, as the kernel's checkentry restricts it. */
export interface Usage {
  readonly tables?: readonly string[];
  readonly hooks?: readonly HookName[];
  /** The kernel refuses the rule wherever it is (REJECT --reject-with tcp-reset without -p tcp). */
  readonly never?: boolean;
  /** The errno of the refusal when it is not EINVAL (the string match's unknown algorithm: ENOENT). */
  readonly errno?: Errno;
}

interface Extension {
  /** The name iptables-save prints (`-m NAME` / `-j NAME`). */
  readonly name: string;
  readonly options: readonly OptionDef[];
  /** Parses one option; `args` has one element, two for 'two'-argument options, none for flags. */
  parse(option: string, args: readonly string[], invert: boolean, ctx: ParseContext): IptError | undefined;
  /** The final check once the command line is read (x6_fcheck). */
  finish(ctx: ParseContext): IptError | undefined;
  /** iptables-save's words after `-m NAME` / `-j NAME`. */
  save(): string[];
  /** What `iptables -L` prints after the addresses, with its leading space (`' tcp dpt:80'`). */
  print(numeric: boolean): string;
  compile(ctx: ParseContext): Compiled;
  /** The kernel's checkentry restrictions. */
  usage(ctx: ParseContext): Usage | undefined;
}

export interface XtMatch extends Extension {
  readonly kind: 'match';
  /** What the kernel warns about a rule it accepts (printed by iptables on standard error). */
  warnings?(): string[];
}

export interface XtTarget extends Extension {
  readonly kind: 'target';
  /** The name -L prints in the target column (the kernel target: `CT` for NOTRACK). */
  readonly listName: string;
  /** What iptables prints on standard error for a rule it takes (NFLOG's `--nflog-range`). */
  warnings?(): string[];
}

export interface MatchModule {
  readonly name: string;
  create(): XtMatch;
}

export interface TargetModule {
  readonly name: string;
  create(): XtTarget;
}

/** x6 option checking's messages (xtables_option_metavalidate and friends), each with its own newline. */
export function mustBeSpecified(ext: string, option: string): string {
  return `${ext}: option "--${option}" must be specified\n`;
}

export function cannotBeInverted(ext: string, option: string): string {
  return `${ext}: option "--${option}" cannot be inverted.\n`;
}

export function onlyOnce(ext: string, option: string): string {
  return `${ext}: option "--${option}" can only be used once.\n`;
}

export function badValue(ext: string, option: string): string {
  return `${ext}: bad integer value for option "--${option}", or out of range.\n`;
}

export function cannotCombine(ext: string, first: string, second: string): string {
  return `${ext}: option "--${first}" cannot be used together with "--${second}".\n`;
}

/**
 * `text` as xtables_save_string prints it: bare when it is only `[_-0-9A-Za-z]`, else in double quotes with a
 * backslash before `"`, `'` and `\`.
 */
export function saveString(text: string): string {
  if (/^[-_0-9A-Za-z]+$/.test(text)) return text;
  let out = '"';
  for (const c of text) {
    if (c === '"' || c === "'" || c === '\\') out += '\\';
    out += c;
  }
  return `${out}"`;
}
