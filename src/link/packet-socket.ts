// Sending a whole frame on a device as an AF_PACKET SOCK_RAW socket does (af_packet.c: packet_snd): the checks
// sendto() makes, then dev_queue_xmit, so taps see the frame as outgoing and the driver transmits it; no
// PACKET_QDISC_BYPASS, no TX ring, no virtio-net header, no SOCK_DGRAM (the caller writes the link-layer header).

import { Packet } from '../core/packet.ts';
import type { NetDevice } from './device.ts';

/** ETH_HLEN: an Ethernet device's hard_header_len and min_header_len. */
const HARD_HEADER_LEN = 14;
/** VLAN_HLEN: an 802.1Q-tagged frame may carry four bytes beyond MTU + header (packet_extra_vlan_len_allowed). */
const VLAN_HLEN = 4;
const ETH_P_8021Q = 0x8100;

/** sendto()'s errors: the device is down, the frame exceeds MTU + header, or it is shorter than a header. */
export type PacketSendError = 'ENETDOWN' | 'EMSGSIZE' | 'EINVAL';

/**
 * packet_snd for one frame (copied): ENETDOWN unless the device is administratively up,
 * EMSGSIZE beyond MTU + 14 bytes (+4 for an 802.1Q-tagged frame), EINVAL below 14 bytes
 * (dev_validate_header); otherwise `dev.transmit`, which is dev_queue_xmit.
 */
export function packetSend(
  dev: NetDevice,
  frame: Uint8Array,
): { ok: true } | { ok: false; error: PacketSendError } {
  if (!dev.adminUp) return { ok: false, error: 'ENETDOWN' };
  if (frame.length < HARD_HEADER_LEN) return { ok: false, error: 'EINVAL' };
  const tagged = ((frame[12]! << 8) | frame[13]!) === ETH_P_8021Q;
  if (frame.length > dev.mtu + HARD_HEADER_LEN + (tagged ? VLAN_HLEN : 0))
    return { ok: false, error: 'EMSGSIZE' };
  dev.transmit(Packet.fromFrame(frame));
  return { ok: true };
}
