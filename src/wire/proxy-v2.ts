// PROXY protocol v2 (haproxy's proxy-protocol.txt, section 2.2): the binary header a load balancer
// puts before a proxied stream; no v1 text form, IPv6 and UNIX addresses stay raw, and TLVs are
// kept as a list without interpretation (no CRC32C check, SSL sub-TLVs left inside their value).
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |  0x0D   |  0x0A   |  0x0D   |  0x0A   |   Signature, 12 bytes:
// |  0x00   |  0x0D   |  0x0A   |  0x51   |   \r\n\r\n\0\r\nQUIT\n
// |  0x55   |  0x49   |  0x54   |  0x0A   |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |Version|Command| Family|Transpt|   Length (bytes after this)   |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                 Source address (AF_INET)                      |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |               Destination address (AF_INET)                   |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |          Source port          |       Destination port        |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |     Type      |         TLV length            |  Value ...    |  TLVs, to the end of Length
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                    Proxied stream ...

import { type Ipv4Addr, readIpv4, writeIpv4 } from './address.ts';
import { readU16, writeU16 } from './bytes.ts';
import { WireError } from './error.ts';

const SIGNATURE = 0; // 12 bytes
const VERSION_COMMAND = 12; // high nibble version, low nibble command
const FAMILY_TRANSPORT = 13; // high nibble address family, low nibble transport
const LENGTH = 14;
/** The fixed part: signature, version/command, family/transport, length. */
export const PROXY_V2_HEADER_LEN = LENGTH + 2;

// The AF_INET address block, right after the fixed part.
const SRC_ADDR = PROXY_V2_HEADER_LEN;
const DST_ADDR = SRC_ADDR + 4;
const SRC_PORT = DST_ADDR + 4;
const DST_PORT = SRC_PORT + 2;
export const PROXY_V2_IPV4_BLOCK_LEN = DST_PORT + 2 - SRC_ADDR;
/** Address block sizes the spec fixes for the other families (two 16-byte addresses + ports; two 108-byte paths). */
export const PROXY_V2_IPV6_BLOCK_LEN = 16 + 16 + 2 + 2;
export const PROXY_V2_UNIX_BLOCK_LEN = 108 + 108;

// A TLV: type, 16-bit length, value.
const TLV_TYPE = 0;
const TLV_LENGTH = 1;
const TLV_HEADER_LEN = TLV_LENGTH + 2;

const SIGNATURE_BYTES = Uint8Array.of(0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a);
export const PROXY_V2_VERSION = 2;

export const PROXY_CMD_LOCAL = 0;
export const PROXY_CMD_PROXY = 1;

export const PROXY_AF_UNSPEC = 0;
export const PROXY_AF_INET = 1;
export const PROXY_AF_INET6 = 2;
export const PROXY_AF_UNIX = 3;

export const PROXY_TRANSPORT_UNSPEC = 0;
export const PROXY_TRANSPORT_STREAM = 1;
export const PROXY_TRANSPORT_DGRAM = 2;

/** TLV types from the spec (PP2_TYPE_*); the SSL TLV nests sub-TLVs in its value. */
export const PROXY_TLV_ALPN = 0x01;
export const PROXY_TLV_AUTHORITY = 0x02;
export const PROXY_TLV_CRC32C = 0x03;
export const PROXY_TLV_NOOP = 0x04;
export const PROXY_TLV_UNIQUE_ID = 0x05;
export const PROXY_TLV_SSL = 0x20;
export const PROXY_TLV_NETNS = 0x30;

const TRUNCATED = new WireError('proxy.truncated');
const BAD_SIGNATURE = new WireError('proxy.bad-signature');
const BAD_VERSION = new WireError('proxy.bad-version');
const BAD_COMMAND = new WireError('proxy.bad-command');
const LENGTH_EXCEEDS_BUFFER = new WireError('proxy.length-exceeds-buffer');
const ADDRESS_BLOCK_TOO_SHORT = new WireError('proxy.address-block-too-short');
const BAD_TLV = new WireError('proxy.bad-tlv');

/**
 * Bytes of the address block for a family. UNSPEC and unassigned families have no layout,
 * so their whole declared length is the block (receivers ignore it) and no TLV is read.
 */
function addressBlockLenOf(family: number, length: number): number {
  switch (family) {
    case PROXY_AF_INET:
      return PROXY_V2_IPV4_BLOCK_LEN;
    case PROXY_AF_INET6:
      return PROXY_V2_IPV6_BLOCK_LEN;
    case PROXY_AF_UNIX:
      return PROXY_V2_UNIX_BLOCK_LEN;
    default:
      return length;
  }
}

/** A zero-copy view of a PROXY v2 header at `offset` in `bytes`, followed by the proxied stream. */
export class ProxyV2View {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /**
   * A view whose signature, version, command, declared length and address block have been
   * checked against the buffer. TLVs are walked by parseProxyV2, bounded by the declared length.
   */
  static checked(bytes: Uint8Array, offset = 0): ProxyV2View | WireError {
    const available = bytes.length - offset;
    if (available < PROXY_V2_HEADER_LEN) return TRUNCATED;
    for (let i = 0; i < SIGNATURE_BYTES.length; i++) {
      if (bytes[offset + SIGNATURE + i] !== SIGNATURE_BYTES[i]) return BAD_SIGNATURE;
    }
    const versionCommand = bytes[offset + VERSION_COMMAND]!;
    if (versionCommand >>> 4 !== PROXY_V2_VERSION) return BAD_VERSION;
    const command = versionCommand & 0x0f;
    if (command !== PROXY_CMD_LOCAL && command !== PROXY_CMD_PROXY) return BAD_COMMAND;
    const length = readU16(bytes, offset + LENGTH);
    if (PROXY_V2_HEADER_LEN + length > available) return LENGTH_EXCEEDS_BUFFER;
    const family = bytes[offset + FAMILY_TRANSPORT]! >>> 4;
    if (addressBlockLenOf(family, length) > length) return ADDRESS_BLOCK_TOO_SHORT;
    return new ProxyV2View(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): ProxyV2View {
    return new ProxyV2View(bytes, offset);
  }

  /** Writes the 12-byte signature. */
  writeSignature(): void {
    this.bytes.set(SIGNATURE_BYTES, this.offset + SIGNATURE);
  }
  /** The protocol version, 2 on a checked view. */
  get version(): number {
    return this.bytes[this.offset + VERSION_COMMAND]! >>> 4;
  }
  set version(version: number) {
    const at = this.offset + VERSION_COMMAND;
    this.bytes[at] = ((version & 0x0f) << 4) | (this.bytes[at]! & 0x0f);
  }
  /** PROXY_CMD_LOCAL or PROXY_CMD_PROXY on a checked view. */
  get command(): number {
    return this.bytes[this.offset + VERSION_COMMAND]! & 0x0f;
  }
  set command(command: number) {
    const at = this.offset + VERSION_COMMAND;
    this.bytes[at] = (this.bytes[at]! & 0xf0) | (command & 0x0f);
  }
  /** The address family (PROXY_AF_*); unassigned values stay readable. */
  get family(): number {
    return this.bytes[this.offset + FAMILY_TRANSPORT]! >>> 4;
  }
  set family(family: number) {
    const at = this.offset + FAMILY_TRANSPORT;
    this.bytes[at] = ((family & 0x0f) << 4) | (this.bytes[at]! & 0x0f);
  }
  /** The transport (PROXY_TRANSPORT_*); unassigned values stay readable. */
  get transport(): number {
    return this.bytes[this.offset + FAMILY_TRANSPORT]! & 0x0f;
  }
  set transport(transport: number) {
    const at = this.offset + FAMILY_TRANSPORT;
    this.bytes[at] = (this.bytes[at]! & 0xf0) | (transport & 0x0f);
  }
  /** Bytes after the fixed part: address block plus TLVs. */
  get length(): number {
    return readU16(this.bytes, this.offset + LENGTH);
  }
  set length(length: number) {
    writeU16(this.bytes, this.offset + LENGTH, length);
  }
  /** The whole header in bytes: fixed part plus declared length. */
  get headerLen(): number {
    return PROXY_V2_HEADER_LEN + this.length;
  }
  /** Bytes of the address block, from the family (the whole length for UNSPEC and unassigned families). */
  get addressBlockLen(): number {
    return addressBlockLenOf(this.family, this.length);
  }

  // The AF_INET fields read 0 for any other family: checked() has only proven the block present for AF_INET.
  get srcAddr(): Ipv4Addr {
    return this.family === PROXY_AF_INET ? readIpv4(this.bytes, this.offset + SRC_ADDR) : 0;
  }
  set srcAddr(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + SRC_ADDR, addr);
  }
  get dstAddr(): Ipv4Addr {
    return this.family === PROXY_AF_INET ? readIpv4(this.bytes, this.offset + DST_ADDR) : 0;
  }
  set dstAddr(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + DST_ADDR, addr);
  }
  get srcPort(): number {
    return this.family === PROXY_AF_INET ? readU16(this.bytes, this.offset + SRC_PORT) : 0;
  }
  set srcPort(port: number) {
    writeU16(this.bytes, this.offset + SRC_PORT, port);
  }
  get dstPort(): number {
    return this.family === PROXY_AF_INET ? readU16(this.bytes, this.offset + DST_PORT) : 0;
  }
  set dstPort(port: number) {
    writeU16(this.bytes, this.offset + DST_PORT, port);
  }

  /** The address block, raw. */
  addressBlock(): Uint8Array {
    const start = this.offset + PROXY_V2_HEADER_LEN;
    return this.bytes.subarray(start, start + this.addressBlockLen);
  }
  /** The TLV area, from the address block's end to the declared length. */
  tlvArea(): Uint8Array {
    const start = this.offset + PROXY_V2_HEADER_LEN + this.addressBlockLen;
    return this.bytes.subarray(start, this.offset + this.headerLen);
  }
  /** The proxied stream after the header, to the end of the buffer. */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + this.headerLen);
  }
}

export type ProxyCommand = 'local' | 'proxy';

/** The address block: decoded for AF_INET, raw for every other family. */
export type ProxyAddresses =
  | {
      readonly type: 'ipv4';
      readonly srcAddr: Ipv4Addr;
      readonly dstAddr: Ipv4Addr;
      readonly srcPort: number;
      readonly dstPort: number;
    }
  | {
      readonly type: 'raw';
      /** PROXY_AF_UNSPEC, PROXY_AF_INET6, PROXY_AF_UNIX or an unassigned value. */
      readonly family: number;
      /** 36 bytes for INET6 and 216 for UNIX; for UNSPEC and unassigned families, the whole block (no TLVs follow). */
      readonly bytes: Uint8Array;
    };

/** One TLV, its value raw (the SSL TLV's sub-TLVs are inside it). */
export interface ProxyTlv {
  readonly type: number;
  readonly value: Uint8Array;
}

/** The meaningful fields of a PROXY v2 header; the proxied stream travels separately. */
export interface ProxyV2Repr {
  readonly command: ProxyCommand;
  /** PROXY_TRANSPORT_STREAM for TCP, PROXY_TRANSPORT_DGRAM for UDP, PROXY_TRANSPORT_UNSPEC with LOCAL. */
  readonly transport: number;
  readonly addresses: ProxyAddresses;
  readonly tlvs: readonly ProxyTlv[];
}

/** Reads a checked view into a repr; a TLV that overruns the declared length is an error. */
export function parseProxyV2(view: ProxyV2View): ProxyV2Repr | WireError {
  const bytes = view.bytes;
  const end = view.offset + view.headerLen;
  const tlvs: ProxyTlv[] = [];
  let at = view.offset + PROXY_V2_HEADER_LEN + view.addressBlockLen;
  while (at < end) {
    if (at + TLV_HEADER_LEN > end) return BAD_TLV;
    const valueLen = readU16(bytes, at + TLV_LENGTH);
    if (at + TLV_HEADER_LEN + valueLen > end) return BAD_TLV;
    tlvs.push({
      type: bytes[at + TLV_TYPE]!,
      value: bytes.slice(at + TLV_HEADER_LEN, at + TLV_HEADER_LEN + valueLen),
    });
    at += TLV_HEADER_LEN + valueLen;
  }
  const addresses: ProxyAddresses =
    view.family === PROXY_AF_INET
      ? {
          type: 'ipv4',
          srcAddr: view.srcAddr,
          dstAddr: view.dstAddr,
          srcPort: view.srcPort,
          dstPort: view.dstPort,
        }
      : { type: 'raw', family: view.family, bytes: view.addressBlock().slice() };
  return {
    command: view.command === PROXY_CMD_PROXY ? 'proxy' : 'local',
    transport: view.transport,
    addresses,
    tlvs,
  };
}

/** Writes the whole header of `repr` into `view`: signature, fields, address block, TLVs in order. */
export function emitProxyV2(repr: ProxyV2Repr, view: ProxyV2View): void {
  view.writeSignature();
  view.version = PROXY_V2_VERSION;
  view.command = commandCode(repr.command);
  view.transport = repr.transport;
  view.length = proxyV2HeaderLen(repr) - PROXY_V2_HEADER_LEN;
  const addresses = repr.addresses;
  let at = view.offset + PROXY_V2_HEADER_LEN;
  switch (addresses.type) {
    case 'ipv4':
      view.family = PROXY_AF_INET;
      view.srcAddr = addresses.srcAddr;
      view.dstAddr = addresses.dstAddr;
      view.srcPort = addresses.srcPort;
      view.dstPort = addresses.dstPort;
      at += PROXY_V2_IPV4_BLOCK_LEN;
      break;
    case 'raw':
      view.family = addresses.family;
      view.bytes.set(addresses.bytes, at);
      at += addresses.bytes.length;
      break;
    default:
      unreachable(addresses);
  }
  for (const tlv of repr.tlvs) {
    view.bytes[at + TLV_TYPE] = tlv.type;
    writeU16(view.bytes, at + TLV_LENGTH, tlv.value.length);
    view.bytes.set(tlv.value, at + TLV_HEADER_LEN);
    at += TLV_HEADER_LEN + tlv.value.length;
  }
}

function commandCode(command: ProxyCommand): number {
  switch (command) {
    case 'local':
      return PROXY_CMD_LOCAL;
    case 'proxy':
      return PROXY_CMD_PROXY;
    default:
      return unreachable(command);
  }
}

function unreachable(value: never): never {
  throw new Error(`unhandled PROXY v2 value ${JSON.stringify(value)}`);
}

/** The whole header: fixed part, address block and TLVs; past 65535 bytes after the fixed part is a programmer error. */
export function proxyV2HeaderLen(repr: ProxyV2Repr): number {
  const addresses = repr.addresses;
  let length: number;
  switch (addresses.type) {
    case 'ipv4':
      length = PROXY_V2_IPV4_BLOCK_LEN;
      break;
    case 'raw':
      length = addresses.bytes.length;
      break;
    default:
      return unreachable(addresses);
  }
  for (const tlv of repr.tlvs) length += TLV_HEADER_LEN + tlv.value.length;
  if (length > 0xffff) throw new RangeError(`PROXY v2 header declares ${length} bytes, more than 65535`);
  return PROXY_V2_HEADER_LEN + length;
}
