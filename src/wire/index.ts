// The wire layer's public surface: every protocol's view, repr, parse and emit, plus addresses and checksums.

export * from './address.ts';
// Two modules name a parseIpv4: the packet parser keeps the name, the text parser is re-exported as parseIpv4Address.
export { parseIpv4 as parseIpv4Address } from './address.ts';
export * from './arp.ts';
export * from './bytes.ts';
export * from './checksum.ts';
export * from './dns.ts';
export * from './error.ts';
export * from './ethernet.ts';
export * from './icmpv4.ts';
export * from './ipv4.ts';
export { parseIpv4 } from './ipv4.ts';
export * from './proxy-v2.ts';
export * from './sll2.ts';
export * from './tcp.ts';
export * from './udp.ts';
export * from './vxlan.ts';
