// `ip addr [show]` as iproute2 6.1 prints it (ip/ipaddress.c: print_addrinfo), plain, -br, -4, -d, -s and -o; IPv4
// only (packetlab has no IPv6, so the listing matches a host with disable_ipv6=1), lifetimes always `forever`.

import type { NetDevice } from '../../link/device.ts';
import { type IfAddr, SCOPE_VALUE } from '../../net/ifaddr.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { formatIpv4 } from '../../wire/address.ts';
import { type CommandResult, ok } from '../result.ts';
import {
  briefPrefix,
  detailsText,
  filterDevices,
  linkAddressLine,
  linkHeadline,
  linkNetns,
  parseLinkFilter,
  type ShowOptions,
  statsText,
} from './link-show.ts';

export interface AddrShowOptions extends ShowOptions {
  /** `-4`: only devices with IPv4 addresses, and no link/ether line. */
  readonly inetOnly: boolean;
}

/**
 * The device's addresses in the kernel's ifa_list order (__inet_insert_ifa): a primary goes
 * after the last primary of the same or a wider scope number (host before link before
 * global), a secondary goes last. Replays the insertions in the order they happened.
 */
export function kernelAddressOrder(addresses: readonly IfAddr[]): IfAddr[] {
  const list: IfAddr[] = [];
  for (const ifa of addresses) {
    if (!ifa.primary) {
      list.push(ifa);
      continue;
    }
    let at = 0;
    list.forEach((other, i) => {
      if (other.primary && SCOPE_VALUE[ifa.scope] <= SCOPE_VALUE[other.scope]) at = i + 1;
    });
    list.splice(at, 0, ifa);
  }
  return list;
}

function addressesOf(ns: Namespace, dev: NetDevice): IfAddr[] {
  return kernelAddressOrder(ns.ipv4.addresses.onDevice(dev.ifindex));
}

/** `inet 10.244.1.1/24 brd 10.244.1.255 scope global secondary cni0` and its lifetime line, joined by `sep`. */
function inetLines(ifa: IfAddr, sep: string): string {
  return (
    `    inet ${formatIpv4(ifa.addr)}/${ifa.prefixLen} ` +
    (ifa.broadcast !== undefined ? `brd ${formatIpv4(ifa.broadcast)} ` : '') +
    `scope ${ifa.scope} ` +
    (ifa.primary ? '' : 'secondary ') +
    `${ifa.label}${sep}       valid_lft forever preferred_lft forever`
  );
}

function addrRecord(ns: Namespace, dev: NetDevice, options: AddrShowOptions): string {
  const addresses = addressesOf(ns, dev);
  if (options.inetOnly && addresses.length === 0) return '';
  if (options.brief)
    return `${briefPrefix(dev)}${addresses.map((ifa) => `${formatIpv4(ifa.addr)}/${ifa.prefixLen} `).join('')}\n`;
  if (options.oneline)
    return addresses.map((ifa) => `${dev.ifindex}: ${dev.name}${inetLines(ifa, '\\')}\n`).join('');
  let text = linkHeadline(ns, dev, false);
  if (options.inetOnly) text += linkNetns(dev);
  else {
    text += `\n${linkAddressLine(dev)}`;
    if (options.details) text += detailsText(ns, dev, { addrgenmode: false });
  }
  for (const ifa of addresses) text += `\n${inetLines(ifa, '\n')}`;
  if (options.stats > 0) text += `\n${statsText(dev, options.stats)}`;
  return `${text}\n`;
}

/** `ip addr [show|list] [[dev] DEV] [up] [master BR] [type KIND]`. */
export function addrShow(ns: Namespace, args: string[], options: AddrShowOptions): CommandResult {
  const filter = parseLinkFilter(ns, args);
  if ('exitCode' in filter) return filter;
  return ok(
    filterDevices(ns, filter)
      .map((dev) => addrRecord(ns, dev, options))
      .join(''),
  );
}
