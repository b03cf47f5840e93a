// `ip addr add/del` (the changes), as iproute2 parses them; the listing lives in addr-show.ts.

import type { Namespace } from '../../netns/namespace.ts';
import { parseIpv4, prefixMask } from '../../wire/address.ts';
import { type CommandResult, fail, ok } from '../result.ts';

export function addrChange(ns: Namespace, verb: 'add' | 'del', args: string[]): CommandResult {
  let prefix: string | undefined;
  let devName: string | undefined;
  let broadcast: number | '+' | '-' | undefined;
  let scope: 'host' | 'link' | 'global' | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const value = args[i + 1];
    if (word === 'dev') {
      devName = value;
      i++;
    } else if (word === 'broadcast' || word === 'brd') {
      // `brd +` / `brd -`: the subnet's broadcast address with the host bits set or cleared.
      broadcast = value === '+' || value === '-' ? value : parseIpv4(value ?? '');
      i++;
    } else if (word === 'scope') {
      if (value !== 'host' && value !== 'link' && value !== 'global')
        return fail(`Error: argument "${value}" is wrong: invalid scope value.\n`, 1);
      scope = value;
      i++;
    } else if (word === 'local') {
      prefix = value;
      i++;
    } else if (prefix === undefined) prefix = word;
    else return fail(`Error: either "local" is duplicate, or "${word}" is a garbage.\n`, 1);
  }
  if (devName === undefined) return fail('Not enough information: "dev" argument is required.\n', 1);
  if (prefix === undefined) return fail('Not enough information: "local" argument is required.\n', 1);
  const [addrText, lenText] = prefix.split('/');
  const addr = parseIpv4(addrText ?? '');
  const prefixLen = lenText === undefined ? 32 : Number(lenText);
  if (addr === undefined || !Number.isInteger(prefixLen) || prefixLen < 0 || prefixLen > 32)
    return fail(`Error: any valid prefix is expected rather than "${prefix}".\n`, 1);
  const dev = ns.byName(devName);
  if (dev === undefined) return fail(`Cannot find device "${devName}"\n`, 1);
  if (verb === 'add') {
    const mask = prefixMask(prefixLen);
    // iproute2 computes `brd +|-` only for prefixes up to /30; on /31 and /32 it sends none.
    const brd =
      broadcast !== '+' && broadcast !== '-'
        ? broadcast
        : prefixLen > 30
          ? undefined
          : broadcast === '+'
            ? (addr | ~mask) >>> 0
            : (addr & mask) >>> 0;
    const result = ns.addAddress(dev, addr, prefixLen, {
      ...(scope !== undefined ? { scope } : {}),
      ...(brd !== undefined ? { broadcast: brd } : {}),
    });
    return result.ok ? ok('') : fail('RTNETLINK answers: File exists\n', 2);
  }
  const result = ns.removeAddress(dev, addr, prefixLen);
  return result.ok ? ok('') : fail('RTNETLINK answers: Cannot assign requested address\n', 2);
}
