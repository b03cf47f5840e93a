// The closed list of reasons the stack drops a packet for, named after Linux's `enum skb_drop_reason`.
//
// Names are the kernel's (include/net/dropreason-core.h) without the SKB_DROP_REASON_ prefix,
// so a trace reads like `pwru` or `perf trace -e skb:kfree_skb`. The few that Linux has no
// reason for are marked "packetlab" and say what real-world drop they stand for.

export const DROP_REASONS = [
  'NOT_SPECIFIED',
  'NO_SOCKET',
  'PKT_TOO_SMALL',
  'TCP_CSUM',
  'UDP_CSUM',
  'ICMP_CSUM',
  'IP_CSUM',
  'NETFILTER_DROP',
  'OTHERHOST',
  'IP_INHDR',
  'IP_RPFILTER',
  'IP_NOPROTO',
  'IP_INADDRERRORS',
  'IP_INNOROUTES',
  'IP_OUTNOROUTES',
  'UNHANDLED_PROTO',
  'INVALID_PROTO',
  'PKT_TOO_BIG',
  'DUP_FRAG',
  'FRAG_REASM_TIMEOUT',
  'FRAG_TOO_FAR',
  'NEIGH_FAILED',
  'NEIGH_QUEUEFULL',
  'NEIGH_DEAD',
  'DEV_HDR',
  'DEV_READY',
  'HDR_TRUNC',
  'NOMEM',
  'SOCKET_RCVBUFF',
  'TCP_FLAGS',
  'TCP_INVALID_SEQUENCE',
  'TCP_RESET',
  'VXLAN_INVALID_HDR',
  'VXLAN_VNI_NOT_FOUND',
  'MAC_INVALID_SOURCE',
  'LOCAL_MAC',
  'UNICAST_IN_L2_MULTICAST',
  /** A qdisc dropped it: netem's loss, a queue over its limit, tbf's packet above the burst. */
  'QDISC_DROP',
  /** packetlab: conntrack table full and nothing to early-drop ("nf_conntrack: table full, dropping packet"). */
  'CONNTRACK_TABLE_FULL',
  /** packetlab: conntrack insert clash at confirm (counted as insert_failed). */
  'CONNTRACK_INSERT_FAILED',
  /** packetlab: ICMP error suppressed by the icmp_ratelimit token bucket. */
  'ICMP_RATELIMIT',
] as const;

/** One reason from the closed list above. */
export type DropReason = (typeof DROP_REASONS)[number];
