// iptables-translate (xtables-translate.c with nft-ipv4.c: nft_ipv4_xlate) for what packetlab can translate: -A and
// -I rules whose matches are tcp/udp ports, comment, or the issue-12 extensions, with standard verdicts, jumps and
// the issue-12 targets; -N, -X and -F of a table. Any other match or target is `unsupported`.

import { formatIpv4 } from '../../wire/address.ts';
import { exitCodeOf, formatIptablesError, type IptError } from './errors.ts';
import type { XtMatch, XtTarget } from './extension.ts';
import { CommentMatch } from './match-comment.ts';
import { LimitMatch, rateUnit } from './match-limit.ts';
import { TcpUdpMatch } from './match-tcp.ts';
import { maskLength, protocolName } from './names.ts';
import { parseCommand, type RuleSpec } from './parser.ts';
import { NflogTarget } from './target-nflog.ts';

const PROGRAM = 'iptables-translate';

/** The issue-12 extensions whose compile().xlate is their xlate callback's text (`xt ...` when they have none). */
const XLATED = new Set([
  'sctp',
  'hashlimit',
  'helper',
  'rpfilter',
  'u32',
  'string',
  'time',
  'policy',
  'ah',
  'esp',
  'ecn',
  'tos',
  'NFLOG',
  'NFQUEUE',
  'CHECKSUM',
  'NETMAP',
  'ECN',
  'TOS',
  'DSCP',
]);

export interface TranslateResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** xt_xlate_add: a blank before the text unless the buffer is empty or already ends in one. */
class XlateBuffer {
  text = '';

  add(part: string): void {
    if (part === '') return;
    // A part that brings its own leading blank (-m time's ` meta hour`) gets none added.
    if (this.text !== '' && !this.text.endsWith(' ') && !part.startsWith(' ')) this.text += ' ';
    this.text += part;
  }
}

type Translation =
  | { kind: 'text'; text: string }
  | { kind: 'none' }
  | { kind: 'unsupported'; option: string };

function matchText(match: XtMatch): Translation {
  if (match instanceof TcpUdpMatch) {
    if (match.flagMask !== 0 || match.option !== 0)
      return { kind: 'unsupported', option: `-m ${match.name}` };
    const parts: string[] = [];
    for (const [label, sel] of [
      ['sport', match.sport],
      ['dport', match.dport],
    ] as const) {
      if (sel.low === 0 && sel.high === 0xffff && !sel.invert) continue;
      const value = sel.low === sel.high ? `${sel.low}` : `${sel.low}-${sel.high}`;
      // udp_xlate in 1.8.9 tests the source port's inversion flag for the destination port too.
      const invert = match.name === 'udp' ? match.sport.invert : sel.invert;
      parts.push(`${match.name} ${label} ${invert ? '!= ' : ''}${value}`);
    }
    return { kind: 'text', text: parts.join(' ') };
  }
  if (match instanceof LimitMatch) {
    // limit_xlate: the burst is always written.
    const { rate, nft } = rateUnit(match.avg);
    return { kind: 'text', text: `limit rate ${rate}/${nft} burst ${match.burst} packets` };
  }
  if (!XLATED.has(match.name)) return { kind: 'unsupported', option: `-m ${match.name}` };
  const xlate = match.compile({ proto: 0, protoInvert: false, table: 'filter' }).xlate ?? '';
  return xlate.startsWith('xt match ') ? { kind: 'none' } : { kind: 'text', text: xlate };
}

function targetText(target: XtTarget): Translation {
  if (target instanceof NflogTarget) {
    // NFLOG_xlate: prefix, snaplen, queue-threshold, then the group (nft lists the native log otherwise).
    let text = 'log';
    if (target.prefix !== undefined && target.prefix !== '') text += ` prefix "${target.prefix}"`;
    if (target.size !== undefined) text += ` snaplen ${target.size}`;
    if (target.threshold !== 1) text += ` queue-threshold ${target.threshold}`;
    return { kind: 'text', text: `${text} group ${target.group}` };
  }
  if (!XLATED.has(target.name)) return { kind: 'unsupported', option: `-j ${target.name}` };
  const xlate = target.compile({ proto: 0, protoInvert: false, table: 'filter' }).xlate ?? '';
  return xlate.startsWith('xt target ') ? { kind: 'none' } : { kind: 'text', text: xlate };
}

/** nft_ipv4_xlate: interfaces, fragment, protocol, addresses, the matches, counter, the action, the comment. */
function ruleText(spec: RuleSpec): Translation {
  const buf = new XlateBuffer();
  for (const [key, sel] of [
    ['iifname', spec.iif],
    ['oifname', spec.oif],
  ] as const) {
    if (sel === undefined || sel.name === '+' || sel.name === '') continue;
    const name = sel.name.endsWith('+') ? `${sel.name.slice(0, -1)}*` : sel.name;
    buf.add(`${key} ${sel.invert ? '!= ' : ''}"${name}" `);
  }
  if (spec.fragment !== undefined) buf.add(`ip frag-off & 0x1fff ${spec.fragment.invert ? '' : '!= '}0 `);
  const protoName = spec.proto === 0 ? undefined : protocolName(spec.proto);
  if (spec.proto !== 0 && !spec.matches.some((match) => match.name === protoName))
    buf.add(`ip protocol ${spec.protoInvert ? '!= ' : ''}${protoName ?? spec.proto} `);
  for (const [key, sel] of [
    ['saddr', spec.src],
    ['daddr', spec.dst],
  ] as const) {
    if (sel === undefined || sel.mask === 0) continue;
    const len = maskLength(sel.mask);
    if (len < 0) return { kind: 'unsupported', option: key === 'saddr' ? '-s' : '-d' };
    buf.add(`ip ${key} ${sel.invert ? '!= ' : ''}${formatIpv4(sel.addr)}${len === 32 ? '' : `/${len}`} `);
  }
  let comment: string | undefined;
  for (const match of spec.matches) {
    if (match instanceof CommentMatch) {
      comment ??= match.comment;
      continue;
    }
    const text = matchText(match);
    if (text.kind !== 'text') return text;
    buf.add(text.text);
  }
  buf.add('counter');
  const target = spec.target;
  if (target !== undefined) {
    switch (target.kind) {
      case 'standard':
        if (target.verdict === 'QUEUE') return { kind: 'none' };
        buf.add(target.verdict.toLowerCase());
        break;
      case 'jump':
        buf.add(`jump ${target.chain}`);
        break;
      case 'goto':
        buf.add(`goto ${target.chain}`);
        break;
      case 'xt': {
        const text = targetText(target.target);
        if (text.kind !== 'text') return text;
        buf.add(text.text);
        break;
      }
    }
  }
  if (comment !== undefined) buf.add(` comment "${comment}"`);
  return { kind: 'text', text: buf.text };
}

/** `iptables-translate ARGS`. */
export function translateIptables(argv: readonly string[]): TranslateResult {
  const parsed = parseCommand(argv);
  if ('kind' in parsed) return failure(parsed);
  const family = `ip ${parsed.table}`;
  switch (parsed.command) {
    case 'append':
    case 'insert': {
      if (parsed.ruleNum !== undefined) return unsupportedResult('-I CHAIN RULENUM');
      const text = ruleText(parsed.rule!);
      if (text.kind === 'unsupported') return unsupportedResult(text.option);
      if (text.kind === 'none') return ok(`nft # ${argv.map((word) => `${word} `).join('')}\n`);
      const verb = parsed.command === 'append' ? 'add' : 'insert';
      return ok(`nft '${verb} rule ${family} ${parsed.chain} ${text.text}'\n`);
    }
    case 'new-chain':
      return ok(`nft add chain ${family} ${parsed.chain}\n`);
    case 'delete-chain':
      if (parsed.chain === undefined) return unsupportedResult('-X');
      return ok(`nft delete chain ${family} ${parsed.chain}\n`);
    case 'flush':
      if (parsed.chain !== undefined) return unsupportedResult('-F CHAIN');
      return ok(`nft flush table ${family}\n`);
    default:
      return { stdout: 'nft ', stderr: 'Translation not implemented\n', exitCode: 1 };
  }
}

function ok(stdout: string): TranslateResult {
  return { stdout, stderr: '', exitCode: 0 };
}

function failure(error: IptError): TranslateResult {
  return { stdout: '', stderr: formatIptablesError(error, PROGRAM), exitCode: exitCodeOf(error) };
}

function unsupportedResult(option: string): TranslateResult {
  return { stdout: '', stderr: `packetlab: ${PROGRAM} ${option} is not supported\n`, exitCode: 1 };
}
