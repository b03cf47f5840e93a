// The SCTP checksum (CRC32c, RFC 9260 appendix A) that NAT recomputes after rewriting an SCTP port; table-driven, one byte at a time, no hardware paths.
//
// Mirrors sctp_compute_cksum (include/net/sctp/checksum.h): CRC32c over the common header and
// chunks with the checksum field taken as zero, stored in the order cpu_to_le32 leaves it
// (least significant byte first).

/** Reflected Castagnoli polynomial. */
const CRC32C_POLY = 0x82f63b78;
const SCTP_CHECKSUM = 8;
export const SCTP_COMMON_HEADER_LEN = SCTP_CHECKSUM + 4;

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CRC32C_POLY : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32c of bytes [start, end), the bytes in [zeroStart, zeroEnd) read as zero. */
export function crc32c(bytes: Uint8Array, start: number, end: number, zeroStart = 0, zeroEnd = 0): number {
  let crc = 0xffffffff;
  for (let at = start; at < end; at++) {
    const byte = at >= zeroStart && at < zeroEnd ? 0 : bytes[at]!;
    crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/** Recomputes and stores the checksum of the SCTP packet at [offset, end). */
export function fillSctpChecksum(bytes: Uint8Array, offset: number, end: number): void {
  const at = offset + SCTP_CHECKSUM;
  const crc = crc32c(bytes, offset, end, at, at + 4);
  bytes[at] = crc & 0xff;
  bytes[at + 1] = (crc >>> 8) & 0xff;
  bytes[at + 2] = (crc >>> 16) & 0xff;
  bytes[at + 3] = crc >>> 24;
}
