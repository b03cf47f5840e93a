// A tiny independent frame builder and pcap writer/reader for the filter tests: varied frames, checksums computed here.

export interface Frame {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** Length on the wire when the capture kept fewer bytes (snaplen); defaults to bytes.length. */
  readonly wireLen?: number;
}

export function ip(text: string): number {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !(part >= 0 && part <= 255)))
    throw new Error(`bad ip ${text}`);
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

export function mac(text: string): Uint8Array {
  const octets = text.split(':').map((octet) => Number.parseInt(octet, 16));
  if (octets.length !== 6) throw new Error(`bad mac ${text}`);
  return Uint8Array.from(octets);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function u16(value: number): Uint8Array {
  return Uint8Array.of(value >>> 8, value & 0xff);
}

function u32(value: number): Uint8Array {
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

/** RFC 1071 one's-complement sum over `bytes`, folded and inverted. */
export function checksum(bytes: Uint8Array, initial = 0): number {
  let sum = initial;
  for (let i = 0; i < bytes.length; i += 2) sum += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

export const HOST_A = '02:00:00:00:00:01';
export const HOST_B = '02:00:00:00:00:02';
export const BROADCAST = 'ff:ff:ff:ff:ff:ff';

export interface EthernetOptions {
  readonly dst?: string;
  readonly src?: string;
  readonly etherType: number;
  /** 802.1Q/802.1ad tags, outermost first: TPID and VLAN id. */
  readonly tags?: readonly { readonly tpid: number; readonly vid: number }[];
}

export function ethernet(options: EthernetOptions, payload: Uint8Array): Uint8Array {
  const tags = (options.tags ?? []).map((tag) => concat(u16(tag.tpid), u16(tag.vid & 0xfff)));
  return concat(
    mac(options.dst ?? HOST_B),
    mac(options.src ?? HOST_A),
    ...tags,
    u16(options.etherType),
    payload,
  );
}

export interface Ipv4Options {
  readonly src: string;
  readonly dst: string;
  readonly protocol: number;
  readonly ttl?: number;
  readonly id?: number;
  readonly moreFragments?: boolean;
  /** In bytes; a multiple of 8. */
  readonly fragmentOffset?: number;
  /** Raw option bytes, padded by the caller to a multiple of 4. */
  readonly options?: Uint8Array;
  /** Overrides the IHL nibble (to build bogus headers). */
  readonly ihl?: number;
}

export function ipv4(options: Ipv4Options, payload: Uint8Array): Uint8Array {
  const opts = options.options ?? new Uint8Array(0);
  const headerLen = 20 + opts.length;
  const ihl = options.ihl ?? headerLen / 4;
  const flagsFragment = (options.moreFragments === true ? 0x2000 : 0) | ((options.fragmentOffset ?? 0) / 8);
  const header = concat(
    Uint8Array.of(0x40 | ihl, 0),
    u16(headerLen + payload.length),
    u16(options.id ?? 0x1234),
    u16(flagsFragment),
    Uint8Array.of(options.ttl ?? 64, options.protocol),
    u16(0),
    u32(ip(options.src)),
    u32(ip(options.dst)),
    opts,
  );
  const sum = checksum(header);
  header[10] = sum >>> 8;
  header[11] = sum & 0xff;
  return concat(header, payload);
}

function pseudoSum(src: string, dst: string, protocol: number, length: number): number {
  const s = ip(src);
  const d = ip(dst);
  return (s >>> 16) + (s & 0xffff) + (d >>> 16) + (d & 0xffff) + protocol + length;
}

export interface PortOptions {
  readonly src: string;
  readonly dst: string;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payload?: Uint8Array;
}

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

export function tcpSegment(options: PortOptions & { readonly flags: number }): Uint8Array {
  const payload = options.payload ?? new Uint8Array(0);
  const segment = concat(
    u16(options.srcPort),
    u16(options.dstPort),
    u32(1000),
    u32(options.flags & TCP_ACK ? 2000 : 0),
    Uint8Array.of(0x50, options.flags),
    u16(64240),
    u16(0),
    u16(0),
    payload,
  );
  const sum = checksum(segment, pseudoSum(options.src, options.dst, 6, segment.length));
  segment[16] = sum >>> 8;
  segment[17] = sum & 0xff;
  return segment;
}

export function udpDatagram(options: PortOptions): Uint8Array {
  const payload = options.payload ?? new Uint8Array(0);
  const datagram = concat(
    u16(options.srcPort),
    u16(options.dstPort),
    u16(8 + payload.length),
    u16(0),
    payload,
  );
  const sum = checksum(datagram, pseudoSum(options.src, options.dst, 17, datagram.length)) || 0xffff;
  datagram[6] = sum >>> 8;
  datagram[7] = sum & 0xff;
  return datagram;
}

export function icmpMessage(type: number, code: number, rest: Uint8Array = new Uint8Array(4)): Uint8Array {
  const message = concat(Uint8Array.of(type, code, 0, 0), rest);
  const sum = checksum(message);
  message[2] = sum >>> 8;
  message[3] = sum & 0xff;
  return message;
}

export function tcpFrame(
  options: PortOptions & { readonly flags: number },
  ethernetOptions: Omit<EthernetOptions, 'etherType'> = {},
): Uint8Array {
  return ethernet(
    { etherType: 0x0800, ...ethernetOptions },
    ipv4({ src: options.src, dst: options.dst, protocol: 6 }, tcpSegment(options)),
  );
}

export function udpFrame(
  options: PortOptions,
  ethernetOptions: Omit<EthernetOptions, 'etherType'> = {},
): Uint8Array {
  return ethernet(
    { etherType: 0x0800, ...ethernetOptions },
    ipv4({ src: options.src, dst: options.dst, protocol: 17 }, udpDatagram(options)),
  );
}

export function arpPacket(op: 1 | 2, sha: string, spa: string, tha: string, tpa: string): Uint8Array {
  return concat(
    u16(1),
    u16(0x0800),
    Uint8Array.of(6, 4),
    u16(op),
    mac(sha),
    u32(ip(spa)),
    mac(tha),
    u32(ip(tpa)),
  );
}

function ipv6Address(text: string): Uint8Array {
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return concat(...groups.map((group) => u16(Number.parseInt(group, 16))));
}

export function ipv6(src: string, dst: string, nextHeader: number, payload: Uint8Array): Uint8Array {
  return concat(
    u32(0x6000_0000),
    u16(payload.length),
    Uint8Array.of(nextHeader, 64),
    ipv6Address(src),
    ipv6Address(dst),
    payload,
  );
}

/** An IPv6 fragment header (first fragment) followed by `payload` of protocol `nextHeader`. */
export function ipv6Fragment(nextHeader: number, payload: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(nextHeader, 0), u16(0x0001), u32(0xabcd), payload);
}

/** Wraps the network layer of an Ethernet frame (untagged) in a LINKTYPE_LINUX_SLL2 header. */
export function toSll2(
  ethernetFrame: Uint8Array,
  options: { readonly packetType: number; readonly ifindex: number },
): Uint8Array {
  const header = concat(
    ethernetFrame.subarray(12, 14),
    u16(0),
    u32(options.ifindex),
    u16(1),
    Uint8Array.of(options.packetType, 6),
    ethernetFrame.subarray(6, 12),
    u16(0),
  );
  return concat(header, ethernetFrame.subarray(14));
}

/** A classic pcap file; record i gets timestamp i + 1 seconds so a filtered copy names its frames. */
export function writePcap(linkType: number, frames: readonly Frame[]): Uint8Array {
  const header = new DataView(new ArrayBuffer(24));
  header.setUint32(0, 0xa1b2c3d4, true);
  header.setUint16(4, 2, true);
  header.setUint16(6, 4, true);
  header.setUint32(16, 262144, true);
  header.setUint32(20, linkType, true);
  const records = frames.map((frame, index) => {
    const record = new DataView(new ArrayBuffer(16));
    record.setUint32(0, index + 1, true);
    record.setUint32(8, frame.bytes.length, true);
    record.setUint32(12, frame.wireLen ?? frame.bytes.length, true);
    return concat(new Uint8Array(record.buffer), frame.bytes);
  });
  return concat(new Uint8Array(header.buffer), ...records);
}

/** The frame indices (timestamp - 1) of the records in a pcap written by tcpdump -w from writePcap's file. */
export function readPcapIndices(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const indices: number[] = [];
  for (let at = 24; at + 16 <= bytes.length; ) {
    indices.push(view.getUint32(at, true) - 1);
    at += 16 + view.getUint32(at + 8, true);
  }
  return indices;
}

const ASCII = new TextEncoder();

/** The Ethernet corpus: every protocol, direction, tag, fragment and truncation the filter cares about. */
export function ethernetCorpus(): Frame[] {
  const frames: Frame[] = [];
  const add = (name: string, bytes: Uint8Array, wireLen?: number): void => {
    frames.push(wireLen === undefined ? { name, bytes } : { name, bytes, wireLen });
  };
  const a = { src: '10.0.0.1', dst: '10.0.0.2' };
  add(
    'tcp syn 10.0.0.1:12345 > 10.0.0.2:80',
    tcpFrame({ ...a, srcPort: 12345, dstPort: 80, flags: TCP_SYN }),
  );
  add(
    'tcp syn-ack 10.0.0.2:80 > 10.0.0.1:12345',
    tcpFrame(
      { src: '10.0.0.2', dst: '10.0.0.1', srcPort: 80, dstPort: 12345, flags: TCP_SYN | TCP_ACK },
      { src: HOST_B, dst: HOST_A },
    ),
  );
  add(
    'tcp GET 10.0.0.1:12345 > 10.0.0.2:80',
    tcpFrame({
      ...a,
      srcPort: 12345,
      dstPort: 80,
      flags: TCP_PSH | TCP_ACK,
      payload: ASCII.encode('GET / HTTP/1.1\r\n'),
    }),
  );
  add(
    'tcp 10.244.1.5:443 > 192.168.1.10:50000',
    tcpFrame({
      src: '10.244.1.5',
      dst: '192.168.1.10',
      srcPort: 443,
      dstPort: 50000,
      flags: TCP_PSH | TCP_ACK,
      payload: new Uint8Array(40).fill(0x17),
    }),
  );
  add(
    'tcp rst 10.0.0.3:8080 > 10.0.0.4:443',
    tcpFrame({ src: '10.0.0.3', dst: '10.0.0.4', srcPort: 8080, dstPort: 443, flags: TCP_RST }),
  );
  add(
    'tcp fin 10.0.0.4:22 > 10.0.0.3:2222',
    tcpFrame({ src: '10.0.0.4', dst: '10.0.0.3', srcPort: 22, dstPort: 2222, flags: TCP_FIN | TCP_ACK }),
  );
  add(
    'tcp 0 > 65535',
    tcpFrame({ src: '10.1.2.3', dst: '10.1.2.4', srcPort: 0, dstPort: 65535, flags: TCP_ACK }),
  );
  add(
    'udp dns reply 10.0.0.3:53 > 10.0.0.1:33333',
    udpFrame({ src: '10.0.0.3', dst: '10.0.0.1', srcPort: 53, dstPort: 33333, payload: new Uint8Array(30) }),
  );
  add(
    'udp dns query 172.16.5.4:5000 > 10.96.0.10:53',
    udpFrame({
      src: '172.16.5.4',
      dst: '10.96.0.10',
      srcPort: 5000,
      dstPort: 53,
      payload: new Uint8Array(20),
    }),
  );
  add('udp 10.0.0.1:1024 > 10.0.0.2:1030', udpFrame({ ...a, srcPort: 1024, dstPort: 1030 }));
  add(
    'udp ntp 10.0.0.9:123 > 10.0.0.10:123',
    udpFrame({ src: '10.0.0.9', dst: '10.0.0.10', srcPort: 123, dstPort: 123, payload: new Uint8Array(48) }),
  );
  add(
    'udp dhcp broadcast 0.0.0.0:68 > 255.255.255.255:67',
    udpFrame(
      { src: '0.0.0.0', dst: '255.255.255.255', srcPort: 68, dstPort: 67, payload: new Uint8Array(240) },
      { dst: BROADCAST },
    ),
  );
  const big = udpFrame({
    src: '10.0.0.5',
    dst: '10.0.0.6',
    srcPort: 7000,
    dstPort: 7001,
    payload: new Uint8Array(1372).fill(0x42),
  });
  add('udp 1414 bytes', big);
  add('udp 1414 bytes, 100 captured', big.slice(0, 100), big.length);
  add(
    'icmp echo 10.0.0.1 > 8.8.8.8',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.1', dst: '8.8.8.8', protocol: 1 },
        icmpMessage(8, 0, Uint8Array.of(0, 1, 0, 1, 0xde, 0xad)),
      ),
    ),
  );
  add(
    'icmp echo reply 8.8.8.8 > 10.0.0.1',
    ethernet(
      { etherType: 0x0800, src: HOST_B, dst: HOST_A },
      ipv4(
        { src: '8.8.8.8', dst: '10.0.0.1', protocol: 1 },
        icmpMessage(0, 0, Uint8Array.of(0, 1, 0, 1, 0xde, 0xad)),
      ),
    ),
  );
  add(
    'icmp frag needed 10.0.0.254 > 10.0.0.1',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.254', dst: '10.0.0.1', protocol: 1 },
        icmpMessage(3, 4, Uint8Array.of(0, 0, 0x05, 0xdc)),
      ),
    ),
  );
  add(
    'icmp timestamp',
    ethernet(
      { etherType: 0x0800 },
      ipv4({ src: '10.0.0.1', dst: '10.0.0.2', protocol: 1 }, icmpMessage(13, 0, new Uint8Array(16))),
    ),
  );
  add(
    'arp who-has 10.0.0.2 tell 10.0.0.1',
    ethernet(
      { etherType: 0x0806, dst: BROADCAST },
      arpPacket(1, HOST_A, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.2'),
    ),
  );
  add(
    'arp reply 10.0.0.2 is-at',
    ethernet(
      { etherType: 0x0806, src: HOST_B, dst: HOST_A },
      arpPacket(2, HOST_B, '10.0.0.2', HOST_A, '10.0.0.1'),
    ),
  );
  add(
    'rarp 10.0.0.1',
    ethernet({ etherType: 0x8035, dst: BROADCAST }, arpPacket(1, HOST_A, '10.0.0.1', HOST_A, '10.0.0.1')),
  );
  add(
    'vlan 100 tcp 10.0.0.1:12345 > 10.0.0.2:80',
    ethernet(
      { etherType: 0x0800, tags: [{ tpid: 0x8100, vid: 100 }] },
      ipv4({ ...a, protocol: 6 }, tcpSegment({ ...a, srcPort: 12345, dstPort: 80, flags: TCP_SYN })),
    ),
  );
  add(
    'vlan 200 udp 10.1.1.1 > 10.1.1.2:53',
    ethernet(
      { etherType: 0x0800, tags: [{ tpid: 0x8100, vid: 200 }] },
      ipv4(
        { src: '10.1.1.1', dst: '10.1.1.2', protocol: 17 },
        udpDatagram({ src: '10.1.1.1', dst: '10.1.1.2', srcPort: 40000, dstPort: 53 }),
      ),
    ),
  );
  add(
    'qinq 10/20 icmp',
    ethernet(
      {
        etherType: 0x0800,
        tags: [
          { tpid: 0x88a8, vid: 10 },
          { tpid: 0x8100, vid: 20 },
        ],
      },
      ipv4({ src: '10.0.0.1', dst: '10.0.0.2', protocol: 1 }, icmpMessage(8, 0)),
    ),
  );
  add(
    'vlan 100 arp',
    ethernet(
      { etherType: 0x0806, dst: BROADCAST, tags: [{ tpid: 0x8100, vid: 100 }] },
      arpPacket(1, HOST_A, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.2'),
    ),
  );
  add(
    'vlan 300 ipv6 tcp',
    ethernet(
      { etherType: 0x86dd, tags: [{ tpid: 0x8100, vid: 300 }] },
      ipv6('2001:db8::1', '2001:db8::2', 6, tcpSegment({ ...a, srcPort: 1111, dstPort: 80, flags: TCP_SYN })),
    ),
  );
  const fragPayload = udpDatagram({
    src: '10.0.0.5',
    dst: '10.0.0.6',
    srcPort: 4000,
    dstPort: 8080,
    payload: new Uint8Array(64),
  });
  add(
    'ipv4 first fragment udp 10.0.0.5:4000 > 10.0.0.6:8080',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.5', dst: '10.0.0.6', protocol: 17, moreFragments: true },
        fragPayload.subarray(0, 48),
      ),
    ),
  );
  add(
    'ipv4 later fragment udp, bytes look like port 8080',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.5', dst: '10.0.0.6', protocol: 17, fragmentOffset: 48 },
        Uint8Array.of(0x1f, 0x90, 0x1f, 0x90, 0, 0, 0, 0),
      ),
    ),
  );
  add(
    'ipv4 later fragment tcp, bytes look like port 80',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.1', dst: '10.0.0.2', protocol: 6, fragmentOffset: 1480, moreFragments: true },
        Uint8Array.of(0, 80, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x02, 0, 0),
      ),
    ),
  );
  add(
    'ipv4 options (ihl 6) tcp 10.0.0.7:22 > 10.0.0.8:2222',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.7', dst: '10.0.0.8', protocol: 6, options: Uint8Array.of(0x94, 0x04, 0, 0) },
        tcpSegment({ src: '10.0.0.7', dst: '10.0.0.8', srcPort: 22, dstPort: 2222, flags: TCP_SYN }),
      ),
    ),
  );
  add(
    'ipv4 options (ihl 8) udp 10.0.0.9:123 > 10.0.0.10:80',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        {
          src: '10.0.0.9',
          dst: '10.0.0.10',
          protocol: 17,
          options: Uint8Array.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0),
        },
        udpDatagram({ src: '10.0.0.9', dst: '10.0.0.10', srcPort: 123, dstPort: 80 }),
      ),
    ),
  );
  add(
    'ipv4 bogus ihl 4 tcp',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.1', dst: '10.0.0.2', protocol: 6, ihl: 4 },
        tcpSegment({ ...a, srcPort: 80, dstPort: 80, flags: TCP_SYN }),
      ),
    ),
  );
  add(
    'sctp 10.0.0.11:80 > 10.0.0.12:9999',
    ethernet(
      { etherType: 0x0800 },
      ipv4(
        { src: '10.0.0.11', dst: '10.0.0.12', protocol: 132 },
        concat(u16(80), u16(9999), new Uint8Array(8)),
      ),
    ),
  );
  add(
    'igmp to 224.0.0.1',
    ethernet(
      { etherType: 0x0800, dst: '01:00:5e:00:00:01' },
      ipv4({ src: '10.0.0.1', dst: '224.0.0.1', protocol: 2, ttl: 1 }, icmpMessage(0x11, 100)),
    ),
  );
  add(
    'gre 10.0.0.1 > 10.0.0.2',
    ethernet({ etherType: 0x0800 }, ipv4({ ...a, protocol: 47 }, Uint8Array.of(0, 0, 0x08, 0x00))),
  );
  add(
    'ipv6 tcp 2001:db8::1 > 2001:db8::2:80',
    ethernet(
      { etherType: 0x86dd },
      ipv6(
        '2001:db8::1',
        '2001:db8::2',
        6,
        tcpSegment({ ...a, srcPort: 40000, dstPort: 80, flags: TCP_SYN }),
      ),
    ),
  );
  add(
    'ipv6 udp 53',
    ethernet(
      { etherType: 0x86dd },
      ipv6('2001:db8::2', '2001:db8::1', 17, udpDatagram({ ...a, srcPort: 53, dstPort: 40001 })),
    ),
  );
  add(
    'ipv6 fragment header then tcp',
    ethernet(
      { etherType: 0x86dd },
      ipv6(
        '2001:db8::1',
        '2001:db8::2',
        44,
        ipv6Fragment(6, tcpSegment({ ...a, srcPort: 40002, dstPort: 80, flags: TCP_SYN })),
      ),
    ),
  );
  add(
    'ipv6 icmp6 echo to ff02::1',
    ethernet(
      { etherType: 0x86dd, dst: '33:33:00:00:00:01' },
      ipv6('fe80::1', 'ff02::1', 58, icmpMessage(128, 0)),
    ),
  );
  add('lldp', ethernet({ etherType: 0x88cc, dst: '01:80:c2:00:00:0e' }, new Uint8Array(46)));
  add(
    '802.3 length field llc',
    ethernet({ etherType: 0x0026 }, concat(Uint8Array.of(0x42, 0x42, 0x03), new Uint8Array(43))),
  );
  add('runt 10 bytes', concat(mac(BROADCAST), Uint8Array.of(2, 0, 0, 0)));
  const truncatedTcp = tcpFrame({ ...a, srcPort: 12345, dstPort: 80, flags: TCP_SYN });
  add('ipv4 tcp cut after ip header', truncatedTcp.slice(0, 34), truncatedTcp.length);
  add('ipv4 tcp cut inside ip header', truncatedTcp.slice(0, 26), truncatedTcp.length);
  add('ipv4 tcp cut inside tcp header', truncatedTcp.slice(0, 40), truncatedTcp.length);
  add('ethernet header only, type ip', truncatedTcp.slice(0, 14), truncatedTcp.length);
  return frames;
}

/** The SLL2 corpus: the untagged network-layer frames of the Ethernet corpus, in various directions and interfaces. */
export function sll2Corpus(): Frame[] {
  const packetTypes = [0, 4, 1, 3];
  return ethernetCorpus()
    .filter(
      (frame) => !frame.name.includes('vlan') && !frame.name.includes('qinq') && frame.bytes.length >= 14,
    )
    .map((frame, index) => {
      const bytes = toSll2(frame.bytes, {
        packetType: packetTypes[index % packetTypes.length]!,
        ifindex: 2 + (index % 3),
      });
      const wireLen = frame.wireLen === undefined ? undefined : frame.wireLen + 6;
      return wireLen === undefined ? { name: frame.name, bytes } : { name: frame.name, bytes, wireLen };
    });
}

/** Each frame, then copies of it cut short at several lengths (as a small snaplen would keep them). */
export function withCutCopies(frames: readonly Frame[], lengths: readonly number[]): Frame[] {
  return frames.flatMap((frame) => [
    frame,
    ...lengths
      .filter((length) => length < frame.bytes.length)
      .map((length) => ({
        name: `${frame.name}, first ${length} bytes`,
        bytes: frame.bytes.slice(0, length),
        wireLen: frame.wireLen ?? frame.bytes.length,
      })),
  ]);
}
