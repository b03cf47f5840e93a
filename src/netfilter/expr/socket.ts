// nft_socket_eval for IPv4: the packet's socket (socket-of.ts, the lookup `-m socket` uses), its IP_TRANSPARENT,
// SO_MARK and whether it is bound to any address. No socket, or a TIME_WAIT one for mark and wildcard: the rule
// breaks (undefined). Not modelled: skb->sk of locally generated packets (the lookup is by address).

import type { Selector } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';
import { packetSocket } from '../socket-of.ts';

export function socketValue(
  state: PacketState,
  selector: Extract<Selector, { kind: 'socket' }>,
): number | undefined {
  const sk = packetSocket(state);
  if (sk === undefined) return undefined;
  switch (selector.key) {
    case 'transparent':
      return sk.transparent ? 1 : 0; // inet_sk_transparent (tw_transparent for TIME_WAIT)
    case 'mark':
      return sk.timeWait ? undefined : sk.mark >>> 0; // sk_fullsock
    case 'wildcard':
      return sk.timeWait ? undefined : sk.boundAddr === 0 ? 1 : 0; // nft_socket_wildcard: inet_rcv_saddr == 0
  }
}
