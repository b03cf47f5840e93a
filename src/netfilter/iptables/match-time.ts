// The time match (libxt_time.c): --timestart/--timestop (time of day), --weekdays, --monthdays, --datestart/
// --datestop, --contiguous, and --kerneltz/--utc (--localtz warns); evaluated on the simulation's virtual clock.

import { civilFromDays, daysFromCivil } from '../../core/civil-date.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';

const MAX_DAYTIME = 24 * 60 * 60 - 1;
/** INT_MAX: xt_time's default --datestop (2038-01-19T03:14:07). */
const DATE_MAX = 0x7fff_ffff;
const ALL_WEEKDAYS = 0xfe;
const ALL_MONTHDAYS = 0xffff_fffe;
const WEEK_DAYS = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** time_parse_date: YYYY[-MM[-DD[Thh[:mm[:ss]]]]], UTC, from 1970. */
function parseDate(text: string): number | IptError {
  const bad = param(`Invalid date "${text}" specified. Should be YYYY[-MM[-DD[Thh[:mm[:ss]]]]]`);
  const match = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:T(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?)?)?)?$/.exec(
    text,
  );
  if (match === null) return bad;
  const [year, month, day, hour, minute, second] = match
    .slice(1)
    .map((part, i) => (part === undefined ? (i < 3 ? 1 : 0) : Number(part)));
  if (
    year! < 1970 ||
    month! < 1 ||
    month! > 12 ||
    day! < 1 ||
    day! > 31 ||
    hour! > 23 ||
    minute! > 59 ||
    second! > 59
  )
    return bad;
  const seconds = daysFromCivil(year!, month!, day!) * 86400 + hour! * 3600 + minute! * 60 + second!;
  return seconds > DATE_MAX ? bad : seconds;
}

/** time_parse_minutes: hh:mm[:ss] within the day. */
function parseDaytime(text: string): number | IptError {
  const match = /^(\d+):(\d+)(?::(\d+))?$/.exec(text);
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  const second = Number(match?.[3] ?? 0);
  if (match === null || hour > 23 || minute > 59 || second > 59)
    return param(`invalid time "${text}" specified, should be hh:mm[:ss] format and within the boundaries`);
  return hour * 3600 + minute * 60 + second;
}

function two(n: number): string {
  return `${n}`.padStart(2, '0');
}

function daytimeText(seconds: number): string {
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

function dateText(seconds: number, sep: string): string {
  const { year, month, day } = civilFromDays(Math.floor(seconds / 86400));
  return `${year}-${two(month)}-${two(day)}${sep}${daytimeText(seconds % 86400)}`;
}

function weekdaysText(mask: number): string {
  return WEEK_DAYS.filter((_, i) => i > 0 && mask & (1 << i)).join(',');
}

/** time_print_monthdays: numbers, with st/nd/rd/th by the last digit when human readable. */
function monthdaysText(mask: number, human: boolean): string {
  const days: string[] = [];
  for (let i = 1; i <= 31; i++) {
    if (!((mask >>> i) & 1)) continue;
    const suffix = !human ? '' : i % 10 === 1 ? 'st' : i % 10 === 2 ? 'nd' : i % 10 === 3 ? 'rd' : 'th';
    days.push(`${i}${suffix}`);
  }
  return days.join(',');
}

export class TimeMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'time';
  readonly options: readonly OptionDef[] = [
    { name: 'datestart', arg: true, invert: false },
    { name: 'datestop', arg: true, invert: false },
    { name: 'timestart', arg: true, invert: false },
    { name: 'timestop', arg: true, invert: false },
    { name: 'weekdays', arg: true, invert: true },
    { name: 'monthdays', arg: true, invert: true },
    { name: 'localtz', arg: false, invert: false },
    { name: 'utc', arg: false, invert: false },
    { name: 'kerneltz', arg: false, invert: false },
    { name: 'contiguous', arg: false, invert: false },
  ];
  dateStart = 0;
  dateStop = DATE_MAX;
  dayStart = 0;
  dayStop = MAX_DAYTIME;
  weekdays = ALL_WEEKDAYS;
  monthdays = ALL_MONTHDAYS;
  kerneltz = false;
  contiguous = false;
  private localtz = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0] ?? '';
    switch (option) {
      case 'datestart':
      case 'datestop': {
        const date = parseDate(text);
        if (typeof date !== 'number') return date;
        if (option === 'datestart') this.dateStart = date;
        else this.dateStop = date;
        return undefined;
      }
      case 'timestart':
      case 'timestop': {
        const time = parseDaytime(text);
        if (typeof time !== 'number') return time;
        if (option === 'timestart') this.dayStart = time;
        else this.dayStop = time;
        return undefined;
      }
      case 'weekdays': {
        let mask = 0;
        for (const day of text.split(',')) {
          if (/^[0-9]+$/.test(day)) {
            if (Number(day) === 0) return param('No, the week does NOT begin with Sunday.');
            mask |= 2 ** Number(day) <= 0x8000_0000 ? (1 << Number(day)) >>> 0 : 0;
            continue;
          }
          const word = day.slice(0, 3);
          const index = WEEK_DAYS.findIndex(
            (name, i) => i > 0 && word.length >= 2 && name.startsWith(word.slice(0, 2)),
          );
          if (index < 0) return param(`${word} is not a valid day specifier`);
          mask |= 1 << index;
        }
        this.weekdays = invert ? ~mask & ALL_WEEKDAYS : mask;
        return undefined;
      }
      case 'monthdays': {
        let mask = 0;
        for (const day of text.split(',')) {
          const n = /^[0-9]+$/.test(day) ? Number(day) : 0;
          if (n < 1 || n > 31) return param(`${day} is not a valid day for --monthdays`);
          mask = (mask | (1 << n)) >>> 0;
        }
        this.monthdays = invert ? (~mask & ALL_MONTHDAYS) >>> 0 : mask;
        return undefined;
      }
      case 'localtz':
        this.localtz = true;
        this.kerneltz = true;
        return undefined;
      case 'kerneltz':
        this.kerneltz = true;
        return undefined;
      case 'utc':
        this.kerneltz = false;
        return undefined;
      case 'contiguous':
        this.contiguous = true;
        return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  warnings(): string[] {
    return this.localtz
      ? [
          'WARNING: --localtz is being replaced by --kerneltz, since "local" is ambiguous. Note the kernel timezone has caveats - see manpage for details.',
        ]
      : [];
  }

  private hasDaytime(): boolean {
    return this.dayStart !== 0 || this.dayStop !== MAX_DAYTIME;
  }

  save(): string[] {
    const words: string[] = [];
    if (this.hasDaytime())
      words.push('--timestart', daytimeText(this.dayStart), '--timestop', daytimeText(this.dayStop));
    if (this.weekdays !== ALL_WEEKDAYS) words.push('--weekdays', weekdaysText(this.weekdays));
    if (this.monthdays !== ALL_MONTHDAYS) words.push('--monthdays', monthdaysText(this.monthdays, false));
    if (this.dateStart !== 0) words.push('--datestart', dateText(this.dateStart, 'T'));
    words.push('--datestop', dateText(this.dateStop, 'T'));
    if (this.kerneltz) words.push('--kerneltz');
    if (this.contiguous) words.push('--contiguous');
    return words;
  }

  print(): string {
    let text = ' TIME';
    if (this.hasDaytime()) text += ` from ${daytimeText(this.dayStart)} to ${daytimeText(this.dayStop)}`;
    if (this.weekdays !== ALL_WEEKDAYS) text += ` on ${weekdaysText(this.weekdays)}`;
    if (this.monthdays !== ALL_MONTHDAYS) text += ` on ${monthdaysText(this.monthdays, true)}`;
    if (this.dateStart !== 0) text += ` starting from ${dateText(this.dateStart, ' ')}`;
    if (this.dateStop !== DATE_MAX) text += ` until date ${dateText(this.dateStop, ' ')}`;
    if (!this.kerneltz) text += ' UTC';
    if (this.contiguous) text += ' contiguous';
    return text;
  }

  /** time_xlate: meta time, meta hour and meta day (Sunday 0); no translation with --monthdays. */
  private xlate(): string {
    if (this.monthdays !== ALL_MONTHDAYS) return 'xt match time';
    let text = '';
    if (this.dateStart !== 0 || this.dateStop !== DATE_MAX)
      text += `meta time "${dateText(this.dateStart, ' ')}"-"${dateText(this.dateStop, ' ')}"`;
    if (this.hasDaytime())
      text += ` meta hour "${daytimeText(this.dayStart)}"-"${daytimeText(this.dayStop)}"`;
    if (this.weekdays !== ALL_WEEKDAYS) {
      const days: number[] = [];
      for (let i = 1; i <= 7; i++) if (this.weekdays & (1 << i)) days.push(i % 7);
      text += ' meta day';
      if (days.length === 1) text += ` ${days[0]}`;
      else if (days.length > 1) text += ` { ${days.join(', ')} }`;
    }
    return text;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'time',
          options: {
            name: 'time',
            dayStart: this.dayStart,
            dayStop: this.dayStop,
            weekdays: this.weekdays,
            monthdays: this.monthdays,
            dateStart: this.dateStart,
            dateStop: this.dateStop,
            kerneltz: this.kerneltz,
            contiguous: this.contiguous,
          },
        },
      ],
      xlate: this.xlate(),
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const timeMatch: MatchModule = { name: 'time', create: () => new TimeMatch() };
