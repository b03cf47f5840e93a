// Reads an iptables command line as iptables 1.8.9 does (xshared.c: do_parse with getopt_long's "-:..." string):
// the command, -t, rule options with `!`, -m/-j modules and their options, protocol matches loaded implicitly
// by their options (`-p tcp --dport 80`). No -4/-6 switching, no comma lists of addresses, no abbreviations.

import { type IptError, param } from './errors.ts';
import type { OptionDef, ParseContext, XtMatch, XtTarget } from './extension.ts';
import { cannotBeInverted } from './extension.ts';
import { isStandardTarget, MATCHES, type StandardVerdict, TARGETS } from './modules.ts';
import { type AddrMask, parseAddrMask, parseDecimal, parseProtocol, protocolName } from './names.ts';

export interface AddrSel extends AddrMask {
  readonly invert: boolean;
}

export interface IfaceSel {
  /** As given, `+` wildcard included (`veth+`). */
  readonly name: string;
  readonly invert: boolean;
}

export type TargetSpec =
  | { readonly kind: 'standard'; readonly verdict: StandardVerdict }
  | { readonly kind: 'jump'; readonly chain: string }
  | { readonly kind: 'goto'; readonly chain: string }
  | { readonly kind: 'xt'; readonly target: XtTarget };

/** A parsed rule specification (iptables_command_state). */
export interface RuleSpec {
  readonly src: AddrSel | undefined;
  readonly dst: AddrSel | undefined;
  readonly iif: IfaceSel | undefined;
  readonly oif: IfaceSel | undefined;
  /** 0 for none/all. */
  readonly proto: number;
  readonly protoInvert: boolean;
  /** `-f` (only non-first fragments) or `! -f` (only unfragmented packets and first fragments). */
  readonly fragment: { readonly invert: boolean } | undefined;
  readonly matches: readonly XtMatch[];
  readonly target: TargetSpec | undefined;
  readonly counters: { readonly packets: number; readonly bytes: number } | undefined;
}

export type CommandName =
  | 'append'
  | 'check'
  | 'delete'
  | 'delete-num'
  | 'insert'
  | 'replace'
  | 'list'
  | 'list-rules'
  | 'flush'
  | 'zero'
  | 'new-chain'
  | 'delete-chain'
  | 'rename-chain'
  | 'policy'
  | 'help'
  | 'version';

export interface ParsedCommand {
  readonly command: CommandName;
  readonly table: string;
  readonly chain: string | undefined;
  readonly ruleNum: number | undefined;
  readonly newName: string | undefined;
  readonly policy: string | undefined;
  readonly rule: RuleSpec | undefined;
  readonly numeric: boolean;
  readonly verbose: boolean;
  readonly exact: boolean;
  readonly lineNumbers: boolean;
  /** -Z given together with -L. */
  readonly zero: boolean;
}

/** Short options: command letters and options, with whether they take an argument (getopt's "A:L::"...). */
const SHORT: Readonly<Record<string, 'required' | 'optional' | 'none'>> = {
  A: 'required',
  C: 'required',
  D: 'required',
  R: 'required',
  I: 'required',
  L: 'optional',
  S: 'optional',
  F: 'optional',
  Z: 'optional',
  N: 'required',
  X: 'optional',
  E: 'required',
  P: 'required',
  V: 'none',
  h: 'none',
  o: 'required',
  p: 'required',
  s: 'required',
  d: 'required',
  j: 'required',
  g: 'required',
  i: 'required',
  f: 'none',
  v: 'none',
  w: 'optional',
  W: 'optional',
  n: 'none',
  t: 'required',
  m: 'required',
  x: 'none',
  c: 'required',
  '4': 'none',
  '6': 'none',
};

const LONG: Readonly<Record<string, string>> = {
  append: 'A',
  check: 'C',
  delete: 'D',
  insert: 'I',
  replace: 'R',
  list: 'L',
  'list-rules': 'S',
  flush: 'F',
  zero: 'Z',
  'new-chain': 'N',
  'delete-chain': 'X',
  'rename-chain': 'E',
  policy: 'P',
  source: 's',
  src: 's',
  destination: 'd',
  dst: 'd',
  protocol: 'p',
  'in-interface': 'i',
  'out-interface': 'o',
  jump: 'j',
  goto: 'g',
  match: 'm',
  numeric: 'n',
  verbose: 'v',
  exact: 'x',
  table: 't',
  'set-counters': 'c',
  wait: 'w',
  'wait-interval': 'W',
  help: 'h',
  version: 'V',
  fragment: 'f',
  ipv4: '4',
  ipv6: '6',
};

const COMMANDS: Readonly<Record<string, CommandName>> = {
  A: 'append',
  C: 'check',
  D: 'delete',
  I: 'insert',
  R: 'replace',
  L: 'list',
  S: 'list-rules',
  F: 'flush',
  Z: 'zero',
  N: 'new-chain',
  X: 'delete-chain',
  E: 'rename-chain',
  P: 'policy',
  h: 'help',
  V: 'version',
};

const RULE_COMMANDS: readonly CommandName[] = ['append', 'check', 'delete', 'insert', 'replace'];

/** Letters -n, -x and --line-numbers, and the rule options, are legal with (xshared.c: commands_v_options). */
function legal(option: string, command: CommandName): boolean {
  if (option === 'n' || option === 'x' || option === 'line-numbers') return command === 'list';
  if (option === 'v') return true;
  if (option === 'c') return RULE_COMMANDS.includes(command) || command === 'policy';
  return RULE_COMMANDS.includes(command);
}

function optionLabel(option: string): string {
  return option.length === 1 ? `-${option}` : `--${option}`;
}

/** parse_rulenumber. */
function ruleNumber(text: string): number | IptError {
  const value = parseDecimal(text, 0x7fff_ffff);
  if (value === undefined || value < 1) return param(`Invalid rule number \`${text}'`);
  return value;
}

interface Loaded {
  readonly ext: XtMatch | XtTarget;
  readonly def: OptionDef;
}

export interface ParseOptions {
  /** Inside iptables-restore: -t is refused and the table is given. */
  readonly restoreTable?: string;
  /** Whether an ipset exists, for `-m set` and `-j SET` (unchecked when absent). */
  readonly setExists?: (name: string) => boolean;
  /** Reading back saved words (ParseContext.reread). */
  readonly reread?: boolean;
}

/** Parses one iptables command line (without the program name). */
export function parseCommand(argv: readonly string[], options: ParseOptions = {}): ParsedCommand | IptError {
  let command: CommandName | undefined;
  let commandLetter = '';
  let chain: string | undefined;
  let ruleNum: number | undefined;
  let newName: string | undefined;
  let policy: string | undefined;
  const restoreTable = options.restoreTable;
  let table = restoreTable ?? 'filter';
  let numeric = false;
  let verbose = false;
  let exact = false;
  let lineNumbers = false;
  let zero = false;
  let wait = false;
  let waitInterval = false;
  let invert = false;
  /** Words after a `--`. */
  let argumentsLeft = false;
  const used = new Set<string>();

  let src: AddrSel | undefined;
  let dst: AddrSel | undefined;
  let iif: IfaceSel | undefined;
  let oif: IfaceSel | undefined;
  let proto = 0;
  let protoInvert = false;
  let protoUsed = false;
  const matches: XtMatch[] = [];
  let target: TargetSpec | undefined;
  let counters: { packets: number; bytes: number } | undefined;
  /** Extensions in load order, for resolving --options (the newest first). */
  const loaded: (XtMatch | XtTarget)[] = [];

  const setExists = options.setExists;
  let addressError: IptError | undefined;
  let fragment: { invert: boolean } | undefined;
  const reread = options.reread === true;
  const ctx = (): ParseContext => {
    const base =
      setExists === undefined ? { proto, protoInvert, table } : { proto, protoInvert, table, setExists };
    return reread ? { ...base, reread } : base;
  };

  let index = 0;
  const next = (): string | undefined => argv[index++];
  const peekOperand = (): string | undefined => {
    const word = argv[index];
    return word === undefined || word.startsWith('-') || word.startsWith('!') ? undefined : word;
  };

  const setCommand = (letter: string): IptError | undefined => {
    const name = COMMANDS[letter]!;
    if (command !== undefined) {
      if ((command === 'list' && name === 'zero') || (command === 'zero' && name === 'list')) {
        command = 'list';
        zero = true;
        return undefined;
      }
      return param(`Cannot use -${letter} with -${commandLetter}`);
    }
    command = name;
    commandLetter = letter;
    return undefined;
  };

  const argument = (label: string, attached: string | undefined): string | IptError => {
    if (attached !== undefined) return attached;
    const value = next();
    if (value === undefined) return param(`option "${label}" requires an argument`);
    return value;
  };

  const once = (letter: string): IptError | undefined => {
    if (used.has(letter)) return param(`multiple -${letter} flags not allowed`);
    used.add(letter);
    return undefined;
  };

  const findOption = (name: string): Loaded | undefined => {
    for (let i = loaded.length - 1; i >= 0; i--) {
      const ext = loaded[i]!;
      const def = ext.options.find((option) => option.name === name);
      if (def !== undefined) return { ext, def };
    }
    return undefined;
  };

  /**
   * A long option's full name as getopt_long finds it (glibc getopt.c: process_long_option): the name itself, else
   * the one option of the merged table (iptables' own and the loaded extensions') it abbreviates, or several that are
   * one option (--source, --src); undefined when none or ambiguous (`--d`: --destination, --delete, --dport...).
   */
  const resolveLong = (name: string): string | undefined => {
    if (name === 'line-numbers' || LONG[name] !== undefined || findOption(name) !== undefined) return name;
    const candidates = new Set<string>();
    for (const long of Object.keys(LONG)) if (long.startsWith(name)) candidates.add(`-${LONG[long]}`);
    if ('line-numbers'.startsWith(name)) candidates.add('-0');
    let first: string | undefined;
    for (const ext of loaded)
      for (const option of ext.options)
        if (option.name.startsWith(name)) {
          candidates.add(`${ext.name} ${option.name}`);
          first ??= option.name;
        }
    if (candidates.size !== 1) return undefined;
    const only = [...candidates][0]!;
    if (only === '-0') return 'line-numbers';
    if (only.startsWith('-'))
      return Object.keys(LONG).find((long) => long.startsWith(name) && `-${LONG[long]}` === only);
    return first;
  };

  /** The match of `-p tcp|udp|icmp`, loaded at the first option nothing loaded knows (command_default). */
  const loadProtocolMatch = (): boolean => {
    if (protoUsed || proto === 0) return false;
    const protoName = protocolName(proto);
    const module = protoName === undefined ? undefined : MATCHES.get(protoName);
    if (
      module === undefined ||
      (protoName !== 'tcp' &&
        protoName !== 'udp' &&
        protoName !== 'icmp' &&
        protoName !== 'sctp' &&
        protoName !== 'dccp')
    )
      return false;
    const created = module.create();
    matches.push(created);
    loaded.push(created);
    protoUsed = true;
    return true;
  };

  /** An extension's --option: the newest loaded extension that has it, else the protocol's match. */
  const extensionOption = (name: string, raw: string, attached: string | undefined): IptError | undefined => {
    let found = findOption(name);
    if (found === undefined && loadProtocolMatch()) found = findOption(name);
    if (found === undefined) return param(`unknown option "${raw}"`);
    const { ext, def } = found;
    if (invert && !def.invert) return param(cannotBeInverted(ext.name, name));
    const args: string[] = [];
    if (def.arg === true || def.arg === 'two') {
      const first = attached ?? next();
      if (first === undefined) return param(`option "${raw}" requires an argument`);
      args.push(first);
      if (def.arg === 'two') {
        const second = peekOperand();
        if (second === undefined) return param(def.missingSecond ?? `--${name} requires two args.`);
        next();
        args.push(second);
      }
    }
    return ext.parse(name, args, invert, ctx());
  };

  /** One short option (or the long option it stands for). */
  const shortOption = (letter: string, label: string, attached: string | undefined): IptError | undefined => {
    if (invert && !'sdpiof'.includes(letter)) return param(`cannot have ! before -${letter}`);
    const isInvert = invert;
    invert = false;

    if (COMMANDS[letter] !== undefined) {
      const error = setCommand(letter);
      if (error !== undefined) return error;
      if (letter === 'h' || letter === 'V') return undefined;
      if (SHORT[letter] === 'required') {
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        chain = arg;
      } else if (attached !== undefined) chain = attached;
      else {
        const operand = peekOperand();
        if (operand !== undefined) {
          next();
          chain = operand;
        }
      }
      switch (letter) {
        case 'I':
        case 'D':
        case 'L':
        case 'S':
        case 'Z': {
          if (chain === undefined) break;
          const operand = peekOperand();
          if (operand === undefined) break;
          next();
          const number = ruleNumber(operand);
          if (typeof number !== 'number') return number;
          ruleNum = number;
          if (letter === 'D') command = 'delete-num';
          break;
        }
        case 'R': {
          const operand = peekOperand();
          if (operand === undefined) return param('-R requires a rule number');
          next();
          const number = ruleNumber(operand);
          if (typeof number !== 'number') return number;
          ruleNum = number;
          break;
        }
        case 'P': {
          const operand = peekOperand();
          if (operand === undefined) return param('-P requires a chain and a policy');
          next();
          policy = operand;
          break;
        }
        case 'E': {
          const operand = peekOperand();
          if (operand === undefined) return param('-E requires old-chain-name and new-chain-name');
          next();
          newName = operand;
          break;
        }
      }
      return undefined;
    }

    switch (letter) {
      case 's':
      case 'd': {
        const error = once(letter);
        if (error !== undefined) return error;
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        if (arg.includes(',')) return param('multiple addresses in one rule are not supported');
        const parsed = parseAddrMask(arg);
        // do_parse resolves addresses after the whole line is read: a word left over is reported first.
        if (typeof parsed === 'string') {
          addressError ??= param(parsed);
          return undefined;
        }
        const sel = { ...parsed, invert: isInvert };
        if (letter === 's') src = sel;
        else dst = sel;
        return undefined;
      }
      case 'i':
      case 'o': {
        const error = once(letter);
        if (error !== undefined) return error;
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        if (arg.length >= 16) return param(`interface name \`${arg}' must be shorter than IFNAMSIZ (15)`);
        if (letter === 'i') iif = { name: arg, invert: isInvert };
        else oif = { name: arg, invert: isInvert };
        return undefined;
      }
      case 'p': {
        const error = once(letter);
        if (error !== undefined) return error;
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        const number = parseProtocol(arg);
        if (number === undefined) return param(`unknown protocol "${arg}" specified`);
        if (number === 0 && isInvert) return param('rule would never match protocol');
        proto = number;
        protoInvert = isInvert;
        return undefined;
      }
      case 'f': {
        const error = once('f');
        if (error !== undefined) return error;
        fragment = { invert: isInvert };
        return undefined;
      }
      case 'j':
      case 'g': {
        if (target !== undefined) return param(`multiple -${letter} flags not allowed`);
        used.add(letter);
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        if (letter === 'g') target = { kind: 'goto', chain: arg };
        else if (isStandardTarget(arg)) target = { kind: 'standard', verdict: arg };
        else {
          const module = TARGETS.get(arg);
          if (module === undefined) target = { kind: 'jump', chain: arg };
          else {
            const created = module.create();
            target = { kind: 'xt', target: created };
            loaded.push(created);
          }
        }
        return undefined;
      }
      case 'm': {
        used.add('m');
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        const module = MATCHES.get(arg);
        if (module === undefined) return param(`Couldn't load match \`${arg}':No such file or directory\n`);
        const created = module.create();
        matches.push(created);
        loaded.push(created);
        return undefined;
      }
      case 't': {
        if (restoreTable !== undefined) return param('The -t option cannot be used in iptables-restore.\n');
        const arg = argument(label, attached);
        if (typeof arg !== 'string') return arg;
        table = arg;
        return undefined;
      }
      case 'n':
        numeric = true;
        used.add('n');
        return undefined;
      case 'v':
        verbose = true;
        return undefined;
      case 'x':
        exact = true;
        used.add('x');
        return undefined;
      case 'c': {
        used.add('c');
        const packetsText = argument(label, attached);
        if (typeof packetsText !== 'string') return packetsText;
        const bytesText = next();
        if (bytesText === undefined) return param('-c requires packet and byte counter');
        const packets = parseDecimal(packetsText, Number.MAX_SAFE_INTEGER);
        if (packets === undefined) return param('-c packet counter not numeric');
        const bytes = parseDecimal(bytesText, Number.MAX_SAFE_INTEGER);
        if (bytes === undefined) return param('-c byte counter not numeric');
        counters = { packets, bytes };
        return undefined;
      }
      case 'w':
      case 'W': {
        if (letter === 'w') wait = true;
        else waitInterval = true;
        const operand = peekOperand();
        if (attached === undefined && operand !== undefined && /^[0-9]+$/.test(operand)) next();
        return undefined;
      }
      case '4':
        return undefined;
      case '6':
        return param('This is the IPv4 version of iptables.');
    }
    return param(`unknown option "${label}"`);
  };

  while (index < argv.length) {
    const word = argv[index++]!;
    if (word === '!') {
      if (invert) return param('multiple consecutive ! not allowed');
      invert = true;
      continue;
    }
    if (word === '--') {
      // getopt's end of options: what follows is not read (do_parse: "unknown arguments found on commandline").
      argumentsLeft = index < argv.length;
      break;
    }
    if (word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const written = eq < 0 ? word.slice(2) : word.slice(2, eq);
      // An option getopt does not know first loads the protocol's match (command_default), then it is read again.
      const name =
        resolveLong(written) ?? (loadProtocolMatch() ? resolveLong(written) : undefined) ?? written;
      const attached = eq < 0 ? undefined : word.slice(eq + 1);
      const raw = eq < 0 ? word : word.slice(0, eq);
      let error: IptError | undefined;
      if (name === 'line-numbers') {
        lineNumbers = true;
        invert = false;
      } else if (LONG[name] !== undefined) error = shortOption(LONG[name]!, raw, attached);
      else {
        error = extensionOption(name, raw, attached);
        invert = false;
      }
      if (error !== undefined) return error;
      continue;
    }
    if (word.startsWith('-') && word.length > 1) {
      for (let j = 1; j < word.length; j++) {
        const letter = word[j]!;
        const kind = SHORT[letter];
        if (kind === undefined) return param(`unknown option "-${letter}"`);
        const rest = word.slice(j + 1);
        const attached = kind !== 'none' && rest !== '' ? rest : undefined;
        const error = shortOption(letter, `-${letter}`, attached);
        if (error !== undefined) return error;
        if (attached !== undefined) break;
      }
      continue;
    }
    return { kind: 'bad-argument', arg: word };
  }

  if (invert) return param('cannot have ! before nothing');
  // xshared.c:do_parse — -W is accepted (and ignored by the nft variant) only with -w.
  if (waitInterval && !wait) return param('--wait-interval only makes sense with --wait\n');
  if (command === undefined) return param('no command specified');

  // Commands and the options they allow (generic_opt_check).
  for (const option of used) {
    if (!legal(option, command)) return param(`Illegal option \`${optionLabel(option)}' with this command`);
  }
  if (lineNumbers && command !== 'list') return param("Illegal option `--line-numbers' with this command");
  if (addressError !== undefined) return addressError;

  let rule: RuleSpec | undefined;
  if (RULE_COMMANDS.includes(command)) {
    if (chain === undefined) return param(`option "-${commandLetter}" requires an argument`);
    if ((chain === 'PREROUTING' || chain === 'INPUT') && oif !== undefined)
      return param(`Can't use -o with ${chain}\n`);
    if ((chain === 'POSTROUTING' || chain === 'OUTPUT') && iif !== undefined)
      return param(`Can't use -i with ${chain}\n`);
    const context = ctx();
    for (const match of matches) {
      const error = match.finish(context);
      if (error !== undefined) return error;
    }
    if (target?.kind === 'xt') {
      const error = target.target.finish(context);
      if (error !== undefined) return error;
    }
    if (table === 'nat' && target?.kind === 'standard' && target.verdict === 'DROP') return natDrop();
    rule = { src, dst, iif, oif, proto, protoInvert, fragment, matches, target, counters };
  } else if (matches.length > 0 || target !== undefined) {
    return param(`Illegal option \`${target !== undefined ? '-j' : '-m'}' with this command`);
  }
  if (argumentsLeft) return param('unknown arguments found on commandline');
  if (command === 'policy' && table === 'nat' && policy === 'DROP') return natDrop();
  if (command === 'new-chain' || command === 'rename-chain') {
    const error = checkChainName(command === 'new-chain' ? chain! : newName!);
    if (error !== undefined) return error;
  }

  return {
    command,
    table,
    chain,
    ruleNum,
    newName,
    policy,
    rule,
    numeric,
    verbose,
    exact,
    lineNumbers,
    zero,
  };
}

function natDrop(): IptError {
  return param(
    '\nThe "nat" table is not intended for filtering, the use of DROP is therefore inhibited.\n\n',
  );
}

/** XT_EXTENSION_MAXNAMELEN is 29: names must be shorter (assert_valid_chain_name). */
export function checkChainName(name: string): IptError | undefined {
  if (name.length >= 29) return param(`chain name \`${name}' too long (must be under 29 chars)`);
  if (name.startsWith('-') || name.startsWith('!'))
    return param(`chain name not allowed to start with \`${name[0]}'`);
  if (isStandardTarget(name) || TARGETS.has(name)) return param('chain name may not clash with target name');
  if (/\s/.test(name)) return param(`Invalid chain name \`${name}'`);
  return undefined;
}
