// `ip rule` as iproute2 6.1 parses and prints it: list/show (with selectors), add, del, flush; no goto, realms, suppress_*, uidrange, l3mdev, ipproto/sport/dport, nat, save/restore or JSON.
//
// Parsing follows ip/iprule.c (iprule_modify, iprule_list_flush_or_save) keyword by keyword;
// lines print as `PRIO:<TAB>SELECTORS ACTION`, fields separated by single spaces, which is
// what iproute2 6.1.0 printed against Linux 6.18 in a throw-away namespace (captured in
// test/tools/ip/transcript.fixture.ts). A failed command changes nothing.

import type { Fib, InterfaceResolver } from '../../net/fib.ts';
import {
  matchesKeyword as matches,
  parseCUnsigned,
  parseProtocol,
  parseTableId,
  tableName,
} from '../../net/route.ts';
import type { Rule, RuleAction, RuleSelector, RuleSpec } from '../../net/rules.ts';
import { prefixMask } from '../../wire/address.ts';
import {
  Args,
  type CommandResult,
  dsfieldName,
  Failure,
  fail,
  formatPrefix,
  invarg,
  kernelFailure,
  type Prefix,
  parseDsfield,
  prefixArg,
  unsupported,
} from './route-command.ts';

const USAGE = `Usage: ip rule { add | del } SELECTOR ACTION
       ip rule { flush | save | restore }
       ip rule [ list [ SELECTOR ]]
SELECTOR := [ not ] [ from PREFIX ] [ to PREFIX ] [ tos TOS ]
            [ fwmark FWMARK[/MASK] ]
            [ iif STRING ] [ oif STRING ] [ pref NUMBER ] [ l3mdev ]
            [ uidrange NUMBER-NUMBER ]
            [ ipproto PROTOCOL ]
            [ sport [ NUMBER | NUMBER-NUMBER ]
            [ dport [ NUMBER | NUMBER-NUMBER ] ]
ACTION := [ table TABLE_ID ]
          [ protocol PROTO ]
          [ nat ADDRESS ]
          [ realms [SRCREALM/]DSTREALM ]
          [ goto NUMBER ]
          SUPPRESSOR
SUPPRESSOR := [ suppress_prefixlength NUMBER ]
              [ suppress_ifgroup DEVGROUP ]
TABLE_ID := [ local | main | default | NUMBER ]
`;

function usage(): Failure {
  return fail(USAGE, 255);
}

/** check_ifname: 1-15 characters, no '/', ':' or white space. */
function validIfname(name: string): boolean {
  return name.length > 0 && name.length < 16 && !/[/:\s]/.test(name);
}

/** Runs `ip rule ARGV...` (argv without the leading `ip rule`) against `fib`. */
export function ruleCommand(argv: readonly string[], devices: InterfaceResolver, fib: Fib): CommandResult {
  const outcome = dispatch(argv, devices, fib);
  return outcome instanceof Failure ? outcome.result : outcome;
}

/** do_iprule. */
function dispatch(argv: readonly string[], devices: InterfaceResolver, fib: Fib): CommandResult | Failure {
  if (argv.length === 0) return list([], devices, fib, 'list');
  const [verb, ...rest] = argv as [string, ...string[]];
  if (matches(verb, 'list') || matches(verb, 'lst') || matches(verb, 'show')) {
    return list(rest, devices, fib, 'list');
  }
  if (matches(verb, 'save') || matches(verb, 'restore')) return unsupported(verb);
  if (matches(verb, 'add')) return modify(rest, devices, fib, 'add');
  if (matches(verb, 'delete')) return modify(rest, devices, fib, 'del');
  if (matches(verb, 'flush')) return list(rest, devices, fib, 'flush');
  if (matches(verb, 'help')) return usage();
  return fail(`Command "${verb}" is unknown, try "ip rule help".\n`, 255);
}

interface ParsedRule {
  invert: boolean;
  src: Prefix | undefined;
  dst: Prefix | undefined;
  priority: number | undefined;
  tos: number;
  fwmark: number | undefined;
  fwmask: number | undefined;
  iifName: string | undefined;
  oifName: string | undefined;
  table: number | undefined;
  action: RuleAction | undefined;
  protocol: number | undefined;
}

/** iprule_modify. */
function modify(
  argv: readonly string[],
  devices: InterfaceResolver,
  fib: Fib,
  verb: 'add' | 'del',
): CommandResult | Failure {
  if (argv.length === 0) return fail(`"ip rule ${verb}" requires arguments.\n`, 1);
  const parsed: ParsedRule = {
    invert: false,
    src: undefined,
    dst: undefined,
    priority: undefined,
    tos: 0,
    fwmark: undefined,
    fwmask: undefined,
    iifName: undefined,
    oifName: undefined,
    table: undefined,
    action: undefined,
    protocol: undefined,
  };
  const args = new Args(argv);
  while (!args.done) {
    const arg = args.current;
    if (arg === 'not') {
      parsed.invert = true;
    } else if (arg === 'from' || arg === 'to') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const prefix = prefixArg(value, 'any valid');
      if (prefix instanceof Failure) return prefix;
      if (arg === 'from') parsed.src = prefix;
      else parsed.dst = prefix;
    } else if (matches(arg, 'preference') || matches(arg, 'order') || matches(arg, 'priority')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      parsed.priority = parseCUnsigned(value, 0xffff_ffff);
      if (parsed.priority === undefined) return invarg('preference value is invalid\n', value);
    } else if (arg === 'tos' || matches(arg, 'dsfield')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const tos = parseDsfield(value);
      if (tos === undefined) return invarg('TOS value is invalid\n', value);
      parsed.tos = tos;
    } else if (arg === 'fwmark') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const slash = value.indexOf('/');
      const markText = slash < 0 ? value : value.slice(0, slash);
      parsed.fwmark = parseCUnsigned(markText, 0xffff_ffff);
      if (parsed.fwmark === undefined) return invarg('fwmark value is invalid\n', markText);
      if (slash >= 0) {
        const maskText = value.slice(slash + 1);
        parsed.fwmask = parseCUnsigned(maskText, 0xffff_ffff);
        if (parsed.fwmask === undefined) return invarg('fwmask value is invalid\n', maskText);
      }
    } else if (matches(arg, 'realms')) {
      return unsupported(arg);
    } else if (matches(arg, 'table') || arg === 'lookup') {
      const value = args.next();
      if (value instanceof Failure) return value;
      parsed.table = parseTableId(value);
      if (parsed.table === undefined) return invarg('invalid table ID\n', value);
    } else if (
      matches(arg, 'suppress_prefixlength') ||
      arg === 'sup_pl' ||
      matches(arg, 'suppress_ifgroup') ||
      arg === 'sup_group'
    ) {
      return unsupported(arg);
    } else if (arg === 'dev' || arg === 'iif' || arg === 'oif') {
      const value = args.next();
      if (value instanceof Failure) return value;
      if (!validIfname(value))
        return invarg(arg === 'oif' ? '"oif" not a valid ifname' : '"iif"/"dev" not a valid ifname', value);
      if (arg === 'oif') parsed.oifName = value;
      else parsed.iifName = value;
    } else if (
      arg === 'l3mdev' ||
      arg === 'uidrange' ||
      matches(arg, 'ipproto') ||
      matches(arg, 'sport') ||
      matches(arg, 'dport')
    ) {
      return unsupported(arg);
    } else if (matches(arg, 'protocol')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      parsed.protocol = parseProtocol(value);
      if (parsed.protocol === undefined) return invarg('"protocol" value is invalid\n', value);
    } else if (arg === 'nat' || matches(arg, 'map-to')) {
      return unsupported(arg);
    } else {
      let value = arg;
      if (value === 'type') {
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      if (matches(value, 'help')) return usage();
      if (matches(value, 'goto')) return unsupported(value);
      const action = parseAction(value);
      if (action === undefined) return invarg('Failed to parse rule type', value);
      if (action === 'unsupported') return unsupported(value);
      parsed.action = action;
      parsed.table ??= 0;
    }
    args.advance();
  }
  if (verb === 'add') {
    const spec: RuleSpec = {
      ...(parsed.priority !== undefined ? { priority: parsed.priority } : {}),
      invert: parsed.invert,
      srcAddr: parsed.src?.addr ?? 0,
      srcLen: parsed.src?.len ?? 0,
      dstAddr: parsed.dst?.addr ?? 0,
      dstLen: parsed.dst?.len ?? 0,
      tos: parsed.tos,
      ...(parsed.fwmark !== undefined ? { fwmark: parsed.fwmark } : {}),
      ...(parsed.fwmask !== undefined ? { fwmask: parsed.fwmask } : {}),
      ...(parsed.iifName !== undefined ? { iifName: parsed.iifName } : {}),
      ...(parsed.oifName !== undefined ? { oifName: parsed.oifName } : {}),
      action: parsed.action ?? 'table',
      // iproute2 asks for main when neither a table nor an action was given.
      table: parsed.table ?? 254,
      ...(parsed.protocol !== undefined ? { protocol: parsed.protocol } : {}),
    };
    const outcome = fib.addRule(spec, (name) => devices.indexOf(name));
    return outcome.ok ? { stdout: '', stderr: '', exitCode: 0 } : kernelFailure(outcome);
  }
  const selector: RuleSelector = {
    ...(parsed.priority !== undefined ? { priority: parsed.priority } : {}),
    srcAddr: parsed.src?.addr ?? 0,
    srcLen: parsed.src?.len ?? 0,
    dstAddr: parsed.dst?.addr ?? 0,
    dstLen: parsed.dst?.len ?? 0,
    tos: parsed.tos,
    ...(parsed.fwmark !== undefined ? { fwmark: parsed.fwmark } : {}),
    ...(parsed.fwmask !== undefined ? { fwmask: parsed.fwmask } : {}),
    ...(parsed.iifName !== undefined ? { iifName: parsed.iifName } : {}),
    ...(parsed.oifName !== undefined ? { oifName: parsed.oifName } : {}),
    ...(parsed.action !== undefined ? { action: parsed.action } : {}),
    ...(parsed.table !== undefined ? { table: parsed.table } : {}),
    ...(parsed.protocol !== undefined ? { protocol: parsed.protocol } : {}),
  };
  const outcome = fib.deleteRule(selector);
  return outcome.ok ? { stdout: '', stderr: '', exitCode: 0 } : kernelFailure(outcome);
}

/**
 * The rule types `ip rule` accepts (rtnl_rtntype_a2n, whose RTN_* number becomes the
 * FR_ACT_* action): unicast is a table lookup, blackhole/unreachable/prohibit reject.
 */
function parseAction(text: string): RuleAction | 'unsupported' | undefined {
  if (matches(text, 'nop')) return 'nop';
  if (text === 'local' || text === 'nat' || text === 'throw') return 'unsupported';
  if (
    matches(text, 'broadcast') ||
    text === 'brd' ||
    matches(text, 'anycast') ||
    matches(text, 'multicast')
  ) {
    return 'unsupported';
  }
  if (matches(text, 'prohibit')) return 'prohibit';
  if (matches(text, 'unreachable')) return 'unreachable';
  if (matches(text, 'blackhole')) return 'blackhole';
  if (matches(text, 'xresolve')) return 'unsupported';
  if (matches(text, 'unicast')) return 'table';
  const number = parseCUnsigned(text, 255);
  if (number === undefined) return undefined;
  const byNumber: Readonly<Record<number, RuleAction>> = {
    1: 'table',
    3: 'nop',
    6: 'blackhole',
    7: 'unreachable',
    8: 'prohibit',
  };
  return byNumber[number] ?? 'unsupported';
}

/** iprule_list_flush_or_save's filter (fields set only when given). */
interface RuleFilter {
  priority?: number;
  invert?: boolean;
  tos?: number;
  fwmark?: number;
  fwmask?: number;
  iifName?: string;
  oifName?: string;
  table?: number;
  src?: Prefix;
  dst?: Prefix;
}

/** iprule_list_flush_or_save: `flush` deletes the selected rules whose priority is not 0 (flush_rule). */
function list(
  argv: readonly string[],
  _devices: InterfaceResolver,
  fib: Fib,
  action: 'list' | 'flush',
): CommandResult | Failure {
  const filter: RuleFilter = {};
  const args = new Args(argv);
  while (!args.done) {
    const arg = args.current;
    if (matches(arg, 'preference') || matches(arg, 'order') || matches(arg, 'priority')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const priority = parseCUnsigned(value, 0xffff_ffff);
      if (priority === undefined) return invarg('preference value is invalid\n', value);
      filter.priority = priority;
    } else if (arg === 'not') {
      filter.invert = true;
    } else if (arg === 'tos') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const tos = parseDsfield(value);
      if (tos === undefined) return invarg('TOS value is invalid\n', value);
      filter.tos = tos;
    } else if (arg === 'fwmark') {
      const value = args.next();
      if (value instanceof Failure) return value;
      const slash = value.indexOf('/');
      const markText = slash < 0 ? value : value.slice(0, slash);
      const mark = parseCUnsigned(markText, 0xffff_ffff);
      if (mark === undefined) return invarg('fwmark value is invalid\n', markText);
      filter.fwmark = mark;
      if (slash >= 0) {
        const maskText = value.slice(slash + 1);
        const mask = parseCUnsigned(maskText, 0xffff_ffff);
        if (mask === undefined) return invarg('fwmask value is invalid\n', maskText);
        filter.fwmask = mask;
      }
    } else if (arg === 'dev' || arg === 'iif' || arg === 'oif') {
      const value = args.next();
      if (value instanceof Failure) return value;
      if (!validIfname(value))
        return invarg(arg === 'oif' ? '"oif" not a valid ifname' : '"iif"/"dev" not a valid ifname', value);
      if (arg === 'oif') filter.oifName = value;
      else filter.iifName = value;
    } else if (
      arg === 'l3mdev' ||
      arg === 'uidrange' ||
      matches(arg, 'ipproto') ||
      matches(arg, 'sport') ||
      matches(arg, 'dport')
    ) {
      return unsupported(arg);
    } else if (matches(arg, 'lookup') || matches(arg, 'table')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const table = parseTableId(value);
      if (table === undefined) return invarg('table id value is invalid\n', value);
      filter.table = table;
    } else if (matches(arg, 'from') || matches(arg, 'src')) {
      const value = args.next();
      if (value instanceof Failure) return value;
      const prefix = prefixArg(value, 'inet');
      if (prefix instanceof Failure) return prefix;
      filter.src = prefix;
    } else {
      let value = arg;
      if (matches(value, 'dst') || matches(value, 'to')) {
        const next = args.next();
        if (next instanceof Failure) return next;
        value = next;
      }
      const prefix = prefixArg(value, 'inet');
      if (prefix instanceof Failure) return prefix;
      filter.dst = prefix;
    }
    args.advance();
  }
  const selected = fib.rules.all.filter((rule) => keep(rule, filter));
  if (action === 'flush') {
    for (const rule of selected) {
      if (rule.priority === 0) continue;
      const outcome = fib.deleteRule(selectorOf(rule));
      if (!outcome.ok) return kernelFailure(outcome);
    }
    return { stdout: '', stderr: '', exitCode: 0 };
  }
  return { stdout: selected.map((rule) => `${formatRule(rule)}\n`).join(''), stderr: '', exitCode: 0 };
}

function covered(addr: number, len: number, filter: Prefix): boolean {
  return filter.len <= len && ((addr ^ filter.addr) & prefixMask(filter.len)) === 0;
}

/** iprule.c filter_nlmsg. */
function keep(rule: Rule, filter: RuleFilter): boolean {
  if (filter.priority !== undefined && rule.priority !== filter.priority) return false;
  if (filter.invert && !rule.invert) return false;
  if (filter.src !== undefined && !covered(rule.srcAddr, rule.srcLen, filter.src)) return false;
  if (filter.dst !== undefined && !covered(rule.dstAddr, rule.dstLen, filter.dst)) return false;
  if (filter.tos !== undefined && rule.tos !== filter.tos) return false;
  if (filter.fwmark !== undefined && filter.fwmark !== 0 && rule.fwmark >>> 0 !== filter.fwmark) return false;
  if (filter.fwmask !== undefined && filter.fwmask !== 0 && rule.fwmask >>> 0 !== filter.fwmask) return false;
  if (filter.iifName !== undefined && rule.iifName !== filter.iifName) return false;
  if (filter.oifName !== undefined && rule.oifName !== filter.oifName) return false;
  if (filter.table !== undefined && filter.table > 0 && rule.table !== filter.table) return false;
  return true;
}

/** `%#x` as printf writes it: 0 stays 0. */
function hex(value: number): string {
  return value === 0 ? '0' : `0x${(value >>> 0).toString(16)}`;
}

/** print_rule: `PRIO:\tSELECTOR ACTION`. */
export function formatRule(rule: Rule): string {
  const fields: string[] = [];
  if (rule.invert) fields.push('not');
  fields.push('from', rule.srcLen === 0 ? 'all' : formatPrefix(rule.srcAddr, rule.srcLen));
  if (rule.dstLen !== 0) fields.push('to', formatPrefix(rule.dstAddr, rule.dstLen));
  if (rule.tos !== 0) fields.push('tos', dsfieldName(rule.tos));
  if (rule.fwmark !== 0 || rule.fwmask !== 0) {
    const mask = rule.fwmask >>> 0;
    fields.push('fwmark', mask === 0xffff_ffff ? hex(rule.fwmark) : `${hex(rule.fwmark)}/${hex(mask)}`);
  }
  if (rule.iifName !== undefined) {
    fields.push('iif', rule.iifName);
    if (rule.iifIndex === -1) fields.push('[detached]');
  }
  if (rule.oifName !== undefined) {
    fields.push('oif', rule.oifName);
    if (rule.oifIndex === -1) fields.push('[detached]');
  }
  switch (rule.action) {
    case 'table':
      if (rule.table !== 0) fields.push('lookup', tableName(rule.table));
      break;
    case 'nop':
      fields.push('nop');
      break;
    case 'blackhole':
    case 'unreachable':
    case 'prohibit':
      fields.push(rule.action);
      break;
  }
  return `${rule.priority}:\t${fields.join(' ')}`;
}

function selectorOf(rule: Rule): RuleSelector {
  return {
    priority: rule.priority,
    srcAddr: rule.srcAddr,
    srcLen: rule.srcLen,
    dstAddr: rule.dstAddr,
    dstLen: rule.dstLen,
    tos: rule.tos,
    fwmark: rule.fwmark,
    fwmask: rule.fwmask,
    ...(rule.iifName !== undefined ? { iifName: rule.iifName } : {}),
    ...(rule.oifName !== undefined ? { oifName: rule.oifName } : {}),
    action: rule.action,
    table: rule.table,
    protocol: rule.protocol,
  };
}
