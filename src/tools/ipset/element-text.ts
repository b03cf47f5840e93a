// ipset's element syntax per set type (lib/parse.c and lib/print.c of ipset 7.17): addresses with /CIDR or FROM-TO
// ranges, [PROTO:]PORT[-PORT] with service names and ICMP type names, [physdev:]IFACE; what `add` expands a range
// into, and how `list` prints a member. IPv4 only; no hostnames.

import type { SetElement, SetTypeName } from '../../netfilter/ipset/element.ts';
import { parsePort, parseProtocol, protocolName } from '../../netfilter/iptables/names.ts';
import { formatIpv4, parseIpv4 } from '../../wire/address.ts';

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;
const IPPROTO_UDPLITE = 136;

/** lib/icmp.c: the ICMP names ipset knows, `TYPE/CODE` otherwise; the first name of a value is printed. */
const ICMP_TYPES: readonly (readonly [string, number, number])[] = [
  ['echo-reply', 0, 0],
  ['pong', 0, 0],
  ['network-unreachable', 3, 0],
  ['host-unreachable', 3, 1],
  ['protocol-unreachable', 3, 2],
  ['port-unreachable', 3, 3],
  ['fragmentation-needed', 3, 4],
  ['source-route-failed', 3, 5],
  ['network-unknown', 3, 6],
  ['host-unknown', 3, 7],
  ['network-prohibited', 3, 9],
  ['host-prohibited', 3, 10],
  ['TOS-network-unreachable', 3, 11],
  ['TOS-host-unreachable', 3, 12],
  ['communication-prohibited', 3, 13],
  ['host-precedence-violation', 3, 14],
  ['precedence-cutoff', 3, 15],
  ['source-quench', 4, 0],
  ['network-redirect', 5, 0],
  ['host-redirect', 5, 1],
  ['TOS-network-redirect', 5, 2],
  ['TOS-host-redirect', 5, 3],
  ['echo-request', 8, 0],
  ['ping', 8, 0],
  ['router-advertisement', 9, 0],
  ['router-solicitation', 10, 0],
  ['ttl-zero-during-transit', 11, 0],
  ['ttl-zero-during-reassembly', 11, 1],
  ['ip-header-bad', 12, 0],
  ['required-option-missing', 12, 1],
  ['timestamp-request', 13, 0],
  ['timestamp-reply', 14, 0],
  ['address-mask-request', 17, 0],
  ['address-mask-reply', 18, 0],
];

/** What one element argument of add/del/test stands for: the elements, and the text `test` echoes. */
export type ParsedElements =
  | { readonly ok: true; readonly elements: SetElement[] }
  | { readonly ok: false; readonly error: string };

function syntax(message: string): { ok: false; error: string } {
  return { ok: false, error: `Syntax error: ${message}` };
}

function outOfRange(text: string, min: number, max: number): string {
  return `'${text}' is out of range ${min}-${max}`;
}

interface AddressPart {
  readonly from: number;
  readonly to: number;
  /** The prefix given with `/`, or undefined (a plain address or a FROM-TO range). */
  readonly cidr: number | undefined;
}

/** parse_ip: `A`, `A/CIDR` or `A-B`. */
function parseAddress(text: string): AddressPart | { error: string } {
  const slash = text.indexOf('/');
  const dash = text.indexOf('-');
  if (slash >= 0) {
    const addr = parseIpv4(text.slice(0, slash));
    if (addr === undefined)
      return {
        error: `Syntax error: cannot parse ${text.slice(0, slash)}: resolving to IPv4 address failed`,
      };
    const cidrText = text.slice(slash + 1);
    const cidr = /^[0-9]+$/.test(cidrText) ? Number(cidrText) : Number.NaN;
    if (!(cidr >= 0 && cidr <= 32)) return { error: `Syntax error: ${outOfRange(cidrText, 0, 32)}` };
    const mask = cidr === 0 ? 0 : (0xffff_ffff << (32 - cidr)) >>> 0;
    const from = (addr & mask) >>> 0;
    return { from, to: (from | ~mask) >>> 0, cidr };
  }
  if (dash >= 0) {
    const from = parseIpv4(text.slice(0, dash));
    const to = parseIpv4(text.slice(dash + 1));
    if (from === undefined)
      return { error: `Syntax error: cannot parse ${text.slice(0, dash)}: resolving to IPv4 address failed` };
    if (to === undefined)
      return {
        error: `Syntax error: cannot parse ${text.slice(dash + 1)}: resolving to IPv4 address failed`,
      };
    return from <= to ? { from, to, cidr: undefined } : { from: to, to: from, cidr: undefined };
  }
  const addr = parseIpv4(text);
  if (addr === undefined)
    return { error: `Syntax error: cannot parse ${text}: resolving to IPv4 address failed` };
  return { from: addr, to: addr, cidr: undefined };
}

/** ip_set_range_to_cidr: the largest prefix starting at `from` that stays within `to`. */
export function rangeToCidr(from: number, to: number): { cidr: number; last: number } {
  for (let cidr = 0; cidr <= 32; cidr++) {
    const mask = cidr === 0 ? 0 : (0xffff_ffff << (32 - cidr)) >>> 0;
    const last = (from | ~mask) >>> 0;
    if ((from & mask) >>> 0 === from && last <= to) return { cidr, last };
  }
  return { cidr: 32, last: from };
}

/** The networks `A-B` stands for, as the kernel's uadt loop splits it. */
function rangeNets(from: number, to: number): { ip: number; cidr: number }[] {
  const nets: { ip: number; cidr: number }[] = [];
  let ip = from;
  for (;;) {
    const { cidr, last } = rangeToCidr(ip, to);
    nets.push({ ip, cidr });
    if (last >= to) return nets;
    ip = last + 1;
  }
}

interface PortPart {
  readonly proto: number;
  readonly from: number;
  readonly to: number;
}

function withPorts(proto: number): boolean {
  return (
    proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP || proto === IPPROTO_UDPLITE
  );
}

/** One port for `proto`: a number or a service name (parse_port's getservbyname). */
function parseOnePort(text: string, protoName: string): number | { error: string } {
  if (/^[0-9]+$/.test(text)) {
    const port = Number(text);
    if (port > 0xffff)
      return {
        error: `Syntax error: ${outOfRange(text, 0, 65535)}\nSyntax error: '${protoName}' is invalid as number\ncannot parse '${text}' as a ${protoName} port`,
      };
    return port;
  }
  const port = parsePort(text, protoName === 'udp' ? 'udp' : 'tcp');
  if (port === undefined) return { error: `Syntax error: cannot parse '${text}' as a ${protoName} port` };
  return port;
}

/** parse_proto_port: `[PROTO:]PORT[-PORT]`, TCP when no protocol is named; ICMP takes a type name or TYPE/CODE. */
function parseProtoPort(text: string): PortPart | { error: string } {
  const colon = text.indexOf(':');
  let proto = IPPROTO_TCP;
  let protoName = 'tcp';
  let portText = text;
  if (colon >= 0) {
    protoName = text.slice(0, colon);
    portText = text.slice(colon + 1);
    const parsed = parseProtocol(protoName);
    if (parsed === undefined) return { error: `Syntax error: cannot parse '${protoName}' as a protocol` };
    proto = parsed;
  }
  if (proto === IPPROTO_ICMP) {
    const named = ICMP_TYPES.find(([name]) => name === portText);
    if (named !== undefined)
      return { proto, from: (named[1] << 8) | named[2], to: (named[1] << 8) | named[2] };
    const match = /^([0-9]+)\/([0-9]+)$/.exec(portText);
    if (match === null || Number(match[1]) > 255 || Number(match[2]) > 255)
      return { error: `Cannot parse ${portText} as an ICMP type/code.` };
    const value = (Number(match[1]) << 8) | Number(match[2]);
    return { proto, from: value, to: value };
  }
  if (!withPorts(proto)) {
    if (portText !== '0')
      return { error: `Syntax error: Protocol ${protoName} can be used with pseudo port value 0 only.` };
    return { proto, from: 0, to: 0 };
  }
  const dash = portText.indexOf('-');
  const fromText = dash < 0 ? portText : portText.slice(0, dash);
  const from = parseOnePort(fromText, protocolName(proto) ?? protoName);
  if (typeof from !== 'number') return from;
  if (dash < 0) return { proto, from, to: from };
  const to = parseOnePort(portText.slice(dash + 1), protocolName(proto) ?? protoName);
  if (typeof to !== 'number') return to;
  return from <= to ? { proto, from, to } : { proto, from: to, to: from };
}

/** IFNAMSIZ - 1. */
const MAX_IFNAME = 15;

/**
 * An add/del/test argument for a set of `type`: the elements it expands to (hash:ip: every address, or every
 * netmask-sized block; hash:net: the networks covering a range; ports: every port of a range).
 */
export function parseElements(
  type: SetTypeName,
  text: string,
  options: { netmask: number; test: boolean },
): ParsedElements {
  switch (type) {
    case 'hash:ip': {
      const address = parseAddress(text);
      if ('error' in address) return { ok: false, error: address.error };
      if (options.test && address.from !== address.to)
        return syntax(`plain IP address must be supplied: ${text}`);
      const step = 2 ** (32 - options.netmask);
      const elements: SetElement[] = [];
      const mask = options.netmask === 0 ? 0 : (0xffff_ffff << (32 - options.netmask)) >>> 0;
      for (let ip = (address.from & mask) >>> 0; ip <= address.to; ip += step) {
        elements.push({ kind: 'hash:ip', ip });
        if (ip + step > 0xffff_ffff) break;
      }
      return { ok: true, elements };
    }
    case 'hash:net': {
      const address = parseAddress(text);
      if ('error' in address) return { ok: false, error: address.error };
      return { ok: true, elements: netsOf(address).map((net) => ({ kind: 'hash:net', ...net })) };
    }
    case 'hash:ip,port':
    case 'hash:net,port':
    case 'hash:net,iface': {
      const comma = text.indexOf(',');
      if (comma < 0) return syntax(`Second element is missing from ${text}.`);
      const address = parseAddress(text.slice(0, comma));
      if ('error' in address) return { ok: false, error: address.error };
      const second = text.slice(comma + 1);
      if (type === 'hash:net,iface') {
        const physdev = second.startsWith('physdev:');
        const iface = physdev ? second.slice('physdev:'.length) : second;
        if (iface.length > MAX_IFNAME)
          return syntax(`interface name '${iface}' is longer than ${MAX_IFNAME} characters`);
        return {
          ok: true,
          elements: netsOf(address).map((net) => ({ kind: 'hash:net,iface', ...net, iface, physdev })),
        };
      }
      const ports = parseProtoPort(second);
      if ('error' in ports) return { ok: false, error: ports.error };
      const elements: SetElement[] = [];
      if (type === 'hash:ip,port') {
        for (let ip = address.from; ip <= address.to; ip++) {
          for (let port = ports.from; port <= ports.to; port++)
            elements.push({ kind: 'hash:ip,port', ip, proto: ports.proto, port });
          if (ip === 0xffff_ffff) break;
        }
      } else {
        for (const net of netsOf(address))
          for (let port = ports.from; port <= ports.to; port++)
            elements.push({ kind: 'hash:net,port', ...net, proto: ports.proto, port });
      }
      return { ok: true, elements };
    }
    case 'bitmap:port': {
      const ports = parseProtoPort(text);
      if ('error' in ports) return { ok: false, error: ports.error };
      const elements: SetElement[] = [];
      for (let port = ports.from; port <= ports.to; port++) elements.push({ kind: 'bitmap:port', port });
      return { ok: true, elements };
    }
    case 'list:set':
      return { ok: true, elements: [{ kind: 'list:set', name: text }] };
  }
}

/** A plain address is a /32; `A/CIDR` one network; `A-B` the networks covering it. */
function netsOf(address: AddressPart): { ip: number; cidr: number }[] {
  if (address.cidr !== undefined) return [{ ip: address.from, cidr: address.cidr }];
  if (address.from === address.to) return [{ ip: address.from, cidr: 32 }];
  return rangeNets(address.from, address.to);
}

function formatNet(ip: number, cidr: number): string {
  return cidr === 32 ? formatIpv4(ip) : `${formatIpv4(ip)}/${cidr}`;
}

function formatProtoPort(proto: number, port: number): string {
  if (proto === IPPROTO_ICMP) {
    const named = ICMP_TYPES.find(([, type, code]) => ((type << 8) | code) === port);
    return named === undefined ? `icmp:${port >>> 8}/${port & 0xff}` : `icmp:${named[0]}`;
  }
  return `${protocolName(proto) ?? String(proto)}:${port}`;
}

/** lib/print.c: a member as `list` and `save` print it. */
export function formatElement(element: SetElement): string {
  switch (element.kind) {
    case 'hash:ip':
      return formatIpv4(element.ip);
    case 'hash:net':
      return formatNet(element.ip, element.cidr);
    case 'hash:ip,port':
      return `${formatIpv4(element.ip)},${formatProtoPort(element.proto, element.port)}`;
    case 'hash:net,port':
      return `${formatNet(element.ip, element.cidr)},${formatProtoPort(element.proto, element.port)}`;
    case 'hash:net,iface':
      return `${formatNet(element.ip, element.cidr)},${element.physdev ? 'physdev:' : ''}${element.iface}`;
    case 'bitmap:port':
      return String(element.port);
    case 'list:set':
      return element.name;
  }
}
