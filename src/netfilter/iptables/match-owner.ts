// The owner match (libxt_owner.c rev 1, xt_owner.c): `[!] --uid-owner ID[-ID]`, `[!] --gid-owner ID[-ID]
// [--suppl-groups]`, `[!] --socket-exists`, tested against the credentials of the socket that sent a locally
// generated packet. iptables-nft keeps it an xt match (OUTPUT and POSTROUTING only); nft lists a uid or gid test
// alone as `skuid`/`skgid`. Users and groups by name are the few a base system has; no supplementary groups.

import type { XtMatchOptions } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  type OptionDef,
  onlyOnce,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** XT_OWNER_* bits. */
export const OWNER_UID = 1;
export const OWNER_GID = 2;
export const OWNER_SOCKET = 4;
export const OWNER_SUPPL_GROUPS = 8;

/** The users and groups getpwnam/getgrnam find on a base Debian system (for names on the command line and -L). */
const USERS: ReadonlyMap<string, number> = new Map([
  ['root', 0],
  ['daemon', 1],
  ['bin', 2],
  ['sys', 3],
  ['nobody', 65534],
]);
const GROUPS: ReadonlyMap<string, number> = new Map([
  ['root', 0],
  ['daemon', 1],
  ['bin', 2],
  ['sys', 3],
  ['adm', 4],
  ['nogroup', 65534],
]);

function nameOf(names: ReadonlyMap<string, number>, id: number): string | undefined {
  for (const [name, value] of names) if (value === id) return name;
  return undefined;
}

/** xtables_strtoui with base 0, as far as `end` reads: the number and where it stopped. */
function leadingNumber(text: string): { value: number; rest: string } | undefined {
  const match = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (match === null) return undefined;
  const digits = match[0];
  const value = /^0[xX]/.test(digits)
    ? Number.parseInt(digits.slice(2), 16)
    : digits.startsWith('0')
      ? Number.parseInt(digits, 8)
      : Number(digits);
  return { value, rest: text.slice(digits.length) };
}

/** owner_parse_range: `ID`, `ID-ID` or `ID:ID`, each at most UINT32_MAX - 1. */
function parseRange(text: string): [number, number] | undefined {
  const from = leadingNumber(text);
  if (from === undefined || from.value > 0xffff_fffe) return undefined;
  let to = from.value;
  let rest = from.rest;
  if (rest.startsWith('-') || rest.startsWith(':')) {
    const high = leadingNumber(rest.slice(1));
    if (high === undefined || high.value > 0xffff_fffe) return undefined;
    to = high.value;
    rest = high.rest;
  }
  return rest === '' ? [from.value, to] : undefined;
}

function badValue(option: string, text: string): IptError {
  return param(`owner: Bad value for "--${option}" option: "${text}"`);
}

/** owner_mt (xt_owner.c) for a packet whose socket has credentials `uid`/`gid` (-1: no socket, -2: no file). */
export function ownerMatches(
  options: Extract<XtMatchOptions, { name: 'owner' }>,
  uid: number,
  gid: number,
): boolean {
  const { match, invert } = options;
  if (uid === -1) return (match ^ invert) === 0;
  if (match & invert & OWNER_SOCKET) return false;
  // A kernel socket has no file: only a test of the socket's existence can match.
  if (uid < 0) return ((match ^ invert) & (OWNER_UID | OWNER_GID)) === 0;
  if (match & OWNER_UID) {
    const inRange = uid >= options.uidMin && uid <= options.uidMax;
    if (inRange !== ((invert & OWNER_UID) === 0)) return false;
  }
  if (match & OWNER_GID) {
    const inRange = gid >= options.gidMin && gid <= options.gidMax;
    if (inRange !== ((invert & OWNER_GID) === 0)) return false;
  }
  return true;
}

export class OwnerMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'owner';
  readonly options: readonly OptionDef[] = [
    { name: 'uid-owner', arg: true, invert: true },
    { name: 'gid-owner', arg: true, invert: true },
    { name: 'socket-exists', arg: false, invert: true },
    { name: 'suppl-groups', arg: false, invert: false },
  ];
  match = 0;
  invert = 0;
  uidMin = 0;
  uidMax = 0;
  gidMin = 0;
  gidMax = 0;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const bit =
      option === 'uid-owner'
        ? OWNER_UID
        : option === 'gid-owner'
          ? OWNER_GID
          : option === 'socket-exists'
            ? OWNER_SOCKET
            : OWNER_SUPPL_GROUPS;
    if (this.match & bit) return param(onlyOnce('owner', option));
    if (bit === OWNER_SUPPL_GROUPS) {
      if (!(this.match & OWNER_GID)) return badValue('suppl-groups', 'you need to use --gid-owner first');
    } else if (bit !== OWNER_SOCKET) {
      const text = args[0]!;
      const named = (bit === OWNER_UID ? USERS : GROUPS).get(text);
      const range: [number, number] | undefined = named !== undefined ? [named, named] : parseRange(text);
      if (range === undefined) return badValue(option, text);
      if (bit === OWNER_UID) [this.uidMin, this.uidMax] = range;
      else [this.gidMin, this.gidMax] = range;
    }
    this.match |= bit;
    if (invert) this.invert |= bit;
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.match === 0)
      return param('owner: At least one of --uid-owner, --gid-owner or --socket-exists is required');
    return undefined;
  }

  /** owner_mt_save: socket, uid, gid, then --suppl-groups. */
  save(): string[] {
    return this.items(['--socket-exists', '--uid-owner', '--gid-owner'], true).concat(
      this.match & OWNER_SUPPL_GROUPS ? ['--suppl-groups'] : [],
    );
  }

  /** owner_mt_print: ` owner socket exists owner UID match 1337 owner GID match 10-20 incl. suppl. groups`. */
  print(numeric: boolean): string {
    const words = this.items(['owner socket exists', 'owner UID match', 'owner GID match'], numeric);
    if (this.match & OWNER_SUPPL_GROUPS) words.push('incl. suppl. groups');
    return ` ${words.join(' ')}`;
  }

  private items(labels: readonly [string, string, string], numeric: boolean): string[] {
    const words: string[] = [];
    const item = (
      bit: number,
      label: string,
      min: number,
      max: number,
      names: ReadonlyMap<string, number>,
    ) => {
      if (!(this.match & bit)) return;
      if (this.invert & bit) words.push('!');
      words.push(label);
      if (bit === OWNER_SOCKET) return;
      if (min !== max) words.push(`${min}-${max}`);
      else words.push((numeric ? undefined : nameOf(names, min)) ?? String(min));
    };
    item(OWNER_SOCKET, labels[0], 0, 0, USERS);
    item(OWNER_UID, labels[1], this.uidMin, this.uidMax, USERS);
    item(OWNER_GID, labels[2], this.gidMin, this.gidMax, GROUPS);
    return words;
  }

  compile(): Compiled {
    const options: XtMatchOptions = {
      name: 'owner',
      match: this.match,
      invert: this.invert,
      uidMin: this.uidMin,
      uidMax: this.uidMax,
      gidMin: this.gidMin,
      gidMax: this.gidMax,
    };
    return { exprs: [{ kind: 'match', name: 'owner', options }], xlate: this.xlate() };
  }

  /** owner_mt_xlate: a uid or gid test alone translates; anything else stays `xt match owner`. */
  private xlate(): string {
    const range = (min: number, max: number) => (min === max ? `${min}` : `${min}-${max}`);
    const not = this.invert !== 0 ? ' !=' : '';
    if (this.match === OWNER_UID) return `skuid${not} ${range(this.uidMin, this.uidMax)}`;
    if (this.match === OWNER_GID) return `skgid${not} ${range(this.gidMin, this.gidMax)}`;
    return 'xt match owner';
  }

  /** owner_check refuses an empty range; the match runs only where packets have their socket. */
  usage(): Usage | undefined {
    if (this.match & OWNER_UID && this.uidMax < this.uidMin) return { never: true };
    if (this.match & OWNER_GID && this.gidMax < this.gidMin) return { never: true };
    return { hooks: ['output', 'postrouting'] };
  }
}

export const ownerMatch: MatchModule = { name: 'owner', create: () => new OwnerMatch() };
