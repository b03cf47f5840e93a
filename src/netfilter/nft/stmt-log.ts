// The log statement of nft 1.0.6 (parser_bison.y: log_stmt; statement.c: log_stmt_print): `prefix`, `level` (with
// `audit`), `flags tcp sequence,options | ip options | skuid | ether | all`, and the NFLOG forms `group`, `snaplen`,
// `queue-threshold`, listed in nft's order; a prefix over 127 bytes is refused as the kernel does (nft_log_init).

import type { Expr } from '../ir.ts';
import { describeToken, type Token } from './lexer.ts';
import { errorAt } from './location.ts';
import type { TokenStream } from './stream.ts';

type LogExpr = Extract<Expr, { kind: 'log' }>;

/** syslog levels, then nft's `audit` (NFT_LOGLEVEL_AUDIT = 8). */
export const LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warn', 'notice', 'info', 'debug', 'audit'];

/** Words nft's scanner reads as keywords in a log statement only. */
const SCOPED = new Set([
  'group',
  'snaplen',
  'queue-threshold',
  'sequence',
  'options',
  'skuid',
  'ether',
  'all',
]);

function unexpected(s: TokenStream, token: Token): never {
  const name = token.kind === 'word' && SCOPED.has(token.text) ? token.text : describeToken(token);
  return s.failAt(token.loc, `syntax error, unexpected ${name}`);
}

/** `log ...`, the `log` word next. */
export function parseLog(s: TokenStream): LogExpr {
  const start = s.next();
  let prefix: string | undefined;
  let level = 4;
  const flags: string[] = [];
  let group: number | undefined;
  let snaplen: number | undefined;
  let queueThreshold: number | undefined;
  const number = (): number => {
    const token = s.peek();
    if (token.kind !== 'number') s.fail(token, 'number');
    return s.next().value;
  };
  for (;;) {
    const option = s.peek();
    if (option.kind !== 'word') break;
    if (option.text === 'prefix') {
      s.next();
      const text = s.peek();
      if (text.kind !== 'quoted' && text.kind !== 'word') s.fail(text, 'string');
      s.next();
      prefix = text.text;
    } else if (option.text === 'level') {
      s.next();
      const name = s.peek();
      if (name.kind !== 'word' && name.kind !== 'quoted') s.fail(name, 'string');
      s.next();
      const index = LOG_LEVELS.indexOf(name.text);
      if (index < 0) s.failAt(name.loc, `invalid log level`);
      level = index;
    } else if (option.text === 'flags') {
      s.next();
      const first = s.next();
      if (first.text === 'tcp') {
        do {
          const word = s.next();
          if (word.text !== 'sequence' && word.text !== 'options') unexpected(s, word);
          flags.push(`tcp ${word.text}`);
        } while (s.acceptPunct(',') !== undefined);
      } else if (first.text === 'ip') {
        const word = s.next();
        if (word.text !== 'options') unexpected(s, word);
        flags.push('ip options');
      } else if (first.text === 'skuid' || first.text === 'ether' || first.text === 'all')
        flags.push(first.text);
      else unexpected(s, first);
    } else if (option.text === 'group') {
      s.next();
      group = number();
    } else if (option.text === 'snaplen') {
      s.next();
      snaplen = number();
    } else if (option.text === 'queue-threshold') {
      s.next();
      queueThreshold = number();
    } else break;
  }
  // nft_log_init: NF_LOG_PREFIXLEN is 128 bytes with the terminating NUL.
  if (prefix !== undefined && new TextEncoder().encode(prefix).length > 127)
    s.report(errorAt(start.loc, 'Could not process rule: Numerical result out of range'));
  const expr: LogExpr = { kind: 'log', prefix, level, flags };
  if (group === undefined) return expr;
  return { ...expr, group, snaplen, queueThreshold };
}

/** statement.c: log_stmt_print. A snaplen or queue threshold without a group is not kept. */
export function formatLog(expr: LogExpr): string {
  let text = 'log';
  if (expr.prefix !== undefined) text += ` prefix "${expr.prefix}"`;
  if (expr.group !== undefined) {
    text += ` group ${expr.group}`;
    if (expr.snaplen !== undefined) text += ` snaplen ${expr.snaplen}`;
    if (expr.queueThreshold !== undefined) text += ` queue-threshold ${expr.queueThreshold}`;
  }
  if (expr.level !== 4) text += ` level ${LOG_LEVELS[expr.level] ?? expr.level}`;
  // iptables-nft's LOG keeps both TCP flags as one `tcp sequence,options`.
  const has = (flag: string): boolean =>
    expr.flags.includes(flag) ||
    expr.flags.includes('all') ||
    (flag.startsWith('tcp ') && expr.flags.includes('tcp sequence,options'));
  const all = ['tcp sequence', 'tcp options', 'ip options', 'skuid', 'ether'].every(has);
  if (all) return `${text} flags all`;
  if (has('tcp sequence') && has('tcp options')) text += ' flags tcp sequence,options';
  else if (has('tcp sequence')) text += ' flags tcp sequence';
  else if (has('tcp options')) text += ' flags tcp options';
  if (has('ip options')) text += ' flags ip options';
  if (has('skuid')) text += ' flags skuid';
  if (has('ether')) text += ' flags ether';
  return text;
}
