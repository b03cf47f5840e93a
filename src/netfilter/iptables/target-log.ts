// The LOG target (libxt_LOG.c, nf_log_syslog.c prints the line: see netfilter/log.ts): --log-level,
// --log-prefix (29 bytes kept), and the tcp-sequence/tcp-options/ip-options/uid/macdecode flags.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type OptionDef,
  saveString,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseDecimal } from './names.ts';

const LEVELS: Readonly<Record<string, number>> = {
  emerg: 0,
  panic: 0,
  alert: 1,
  crit: 2,
  err: 3,
  error: 3,
  warning: 4,
  warn: 4,
  notice: 5,
  info: 6,
  debug: 7,
};
/** What -L prints for each level. */
const PRINT_LEVELS = ['emerg', 'alert', 'crit', 'error', 'warn', 'notice', 'info', 'debug'];
/** nft's log level names. */
const NFT_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warn', 'notice', 'info', 'debug'];

/** XT_LOG_* flag bits in option order. */
const FLAGS: readonly (readonly [string, number, string])[] = [
  ['log-tcp-sequence', 0x01, 'tcp-sequence'],
  ['log-tcp-options', 0x02, 'tcp-options'],
  ['log-ip-options', 0x04, 'ip-options'],
  ['log-uid', 0x08, 'uid'],
  ['log-macdecode', 0x20, 'macdecode'],
];
const ALL_FLAGS = 0x2f;

/** LOG prefixes hold 29 characters and a NUL. */
const MAX_PREFIX = 29;

export class LogTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'LOG';
  readonly listName = 'LOG';
  readonly options: readonly OptionDef[] = [
    { name: 'log-level', arg: true, invert: false },
    { name: 'log-prefix', arg: true, invert: false },
    ...FLAGS.map(([name]) => ({ name, arg: false, invert: false })),
  ];
  level = 4;
  prefix: string | undefined;
  flags = 0;

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    if (option === 'log-level') {
      const level = parseDecimal(text, 7) ?? LEVELS[text];
      if (level === undefined) return param(`log level "${text}" unknown\n`);
      this.level = level;
      return undefined;
    }
    if (option === 'log-prefix') {
      if (text.includes('\n')) return param('Newlines not allowed in --log-prefix');
      this.prefix = text.slice(0, MAX_PREFIX);
      return undefined;
    }
    const flag = FLAGS.find(([name]) => name === option);
    if (flag !== undefined) this.flags |= flag[1];
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    const words: string[] = [];
    if (this.prefix !== undefined) words.push('--log-prefix', saveString(this.prefix));
    if (this.level !== 4) words.push('--log-level', `${this.level}`);
    for (const [name, bit] of FLAGS) if (this.flags & bit) words.push(`--${name}`);
    return words;
  }

  print(numeric: boolean): string {
    let text = ' LOG';
    if (numeric) text += ` flags ${this.flags} level ${this.level}`;
    else {
      text += ` level ${PRINT_LEVELS[this.level]}`;
      for (const [, bit, label] of FLAGS) if (this.flags & bit) text += ` ${label}`;
    }
    if (this.prefix !== undefined) text += ` prefix "${this.prefix}"`;
    return text;
  }

  private nftFlags(): string[] {
    if ((this.flags & ALL_FLAGS) === ALL_FLAGS) return ['all'];
    const flags: string[] = [];
    if ((this.flags & 0x03) === 0x03) flags.push('tcp sequence,options');
    else if (this.flags & 0x01) flags.push('tcp sequence');
    else if (this.flags & 0x02) flags.push('tcp options');
    if (this.flags & 0x04) flags.push('ip options');
    if (this.flags & 0x08) flags.push('skuid');
    if (this.flags & 0x20) flags.push('ether');
    return flags;
  }

  compile(): Compiled {
    let xlate = 'log';
    if (this.prefix !== undefined) xlate += ` prefix "${this.prefix}"`;
    if (this.level !== 4) xlate += ` level ${NFT_LEVELS[this.level]}`;
    const flags = this.nftFlags();
    for (const flag of flags) xlate += ` flags ${flag}`;
    return { exprs: [{ kind: 'log', prefix: this.prefix, level: this.level, flags }], xlate };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const logTarget: TargetModule = { name: 'LOG', create: () => new LogTarget() };
