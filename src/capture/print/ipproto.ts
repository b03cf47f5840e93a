// IP protocol numbers the printers dispatch on (tcpdump's ipproto.h); names are in ip.ts.

export const IPPROTO_ICMP = 1;
export const IPPROTO_IPIP = 4;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_DCCP = 33;
export const IPPROTO_ESP = 50;
export const IPPROTO_ICMPV6 = 58;
export const IPPROTO_NONE = 59;
export const IPPROTO_SCTP = 132;
