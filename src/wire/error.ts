// The closed list of defects a wire parser can report, and the error value that carries one.

/** Every defect a parser in wire/ can name; the prefix is the protocol that found it. */
export type WireDefect =
  | 'ethernet.truncated'
  | 'ethernet.vlan-truncated'
  | 'arp.truncated'
  | 'arp.unsupported-hardware'
  | 'arp.unsupported-protocol'
  | 'ipv4.truncated'
  | 'ipv4.bad-version'
  | 'ipv4.header-length-too-small'
  | 'ipv4.header-length-exceeds-buffer'
  | 'ipv4.total-length-below-header'
  | 'ipv4.total-length-exceeds-buffer'
  | 'ipv4.bad-checksum'
  | 'ipv4.bad-option'
  | 'icmpv4.truncated'
  | 'icmpv4.bad-checksum'
  | 'udp.truncated'
  | 'udp.length-below-header'
  | 'udp.length-exceeds-buffer'
  | 'udp.bad-checksum'
  | 'tcp.truncated'
  | 'tcp.data-offset-too-small'
  | 'tcp.data-offset-exceeds-buffer'
  | 'tcp.bad-option'
  | 'tcp.bad-checksum'
  | 'vxlan.truncated'
  | 'vxlan.missing-vni-flag'
  | 'proxy.truncated'
  | 'proxy.bad-signature'
  | 'proxy.bad-version'
  | 'proxy.bad-command'
  | 'proxy.length-exceeds-buffer'
  | 'proxy.address-block-too-short'
  | 'proxy.bad-tlv'
  | 'sll2.truncated'
  | 'dns.truncated'
  | 'dns.name-truncated'
  | 'dns.bad-label-type'
  | 'dns.name-too-long'
  | 'dns.bad-pointer'
  | 'dns.question-truncated'
  | 'dns.record-truncated'
  | 'dns.rdata-exceeds-buffer'
  | 'dns.bad-rdata-length';

/**
 * A parse failure. Instances are created once per defect at module load and shared, so
 * reporting a defect on the packet path allocates nothing; compare with `instanceof`.
 */
export class WireError {
  constructor(readonly defect: WireDefect) {
    Object.freeze(this);
  }

  toString(): string {
    return this.defect;
  }
}

/** True when a parse result is an error rather than a view or repr. */
export function isWireError(value: unknown): value is WireError {
  return value instanceof WireError;
}
