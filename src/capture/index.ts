// The capture layer's public surface: pcap files, the pcap-filter language, and the tcpdump and path-trace printers.

export * from './filter/index.ts';
export * from './layers.ts';
export * from './path-trace.ts';
export * from './pcap.ts';
export { LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2 } from './pcap.ts';
export * from './pcapng.ts';
export * from './print.ts';
