// The socket match (libxt_socket.c rev 3, xt_socket.c socket_mt4_v1_v2_v3): a local socket the packet belongs
// to (an established TCP connection or listener, a UDP socket), optionally only a transparent one, and
// `--restore-skmark` copying its SO_MARK to the packet. PREROUTING and INPUT only; `xt match socket` for nft.
// No TIME_WAIT sockets are looked up for UDP (there are none) and no ICMP errors are matched to their socket.

import type { SocketInfo } from '../host.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  type OptionDef,
  onlyOnce,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** XT_SOCKET_* flags. */
export const SOCKET_TRANSPARENT = 1;
export const SOCKET_NOWILDCARD = 2;
export const SOCKET_RESTORESKMARK = 4;

const FLAG_OF: Readonly<Record<string, number>> = {
  transparent: SOCKET_TRANSPARENT,
  nowildcard: SOCKET_NOWILDCARD,
  'restore-skmark': SOCKET_RESTORESKMARK,
};

/**
 * socket_match for the socket the lookup found: undefined when none; else whether it counts, and the mark to
 * restore (undefined: leave the packet's). A listener bound to 0.0.0.0 is ignored unless --nowildcard.
 */
export function socketMatches(
  flags: number,
  socket: SocketInfo | undefined,
): { matched: boolean; mark: number | undefined } {
  if (socket === undefined) return { matched: false, mark: undefined };
  const wildcard = (flags & SOCKET_NOWILDCARD) === 0 && !socket.timeWait && socket.boundAddr === 0;
  const transparent = (flags & SOCKET_TRANSPARENT) === 0 || socket.transparent;
  const restore = (flags & SOCKET_RESTORESKMARK) !== 0 && !wildcard && transparent && !socket.timeWait;
  return { matched: !wildcard && transparent, mark: restore ? socket.mark : undefined };
}

export class SocketMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'socket';
  readonly options: readonly OptionDef[] = Object.keys(FLAG_OF).map((name) => ({
    name,
    arg: false,
    invert: false,
  }));
  flags = 0;

  parse(option: string): IptError | undefined {
    const flag = FLAG_OF[option]!;
    if (this.flags & flag) return param(onlyOnce('socket', option));
    this.flags |= flag;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    return Object.entries(FLAG_OF)
      .filter(([, flag]) => this.flags & flag)
      .map(([name]) => `--${name}`);
  }

  print(): string {
    return ` ${['socket', ...this.save()].join(' ')}`;
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'match', name: 'socket', options: { name: 'socket', flags: this.flags } }],
      xlate: 'xt match socket',
    };
  }

  usage(): Usage | undefined {
    return { hooks: ['prerouting', 'input'] };
  }
}

export const socketMatch: MatchModule = { name: 'socket', create: () => new SocketMatch() };
