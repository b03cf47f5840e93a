// One nft invocation on a namespace's Netfilter: parse the whole input, then apply it in one transaction,
// and answer with what nft prints (listings on stdout; errors and iptables-nft warnings on stderr).

import type { Netfilter } from '../netfilter.ts';
import { applyCommands } from './apply.ts';
import type { IncludeFiles } from './define.ts';
import type { InterfaceNames } from './ifindex.ts';
import { formatError, Source } from './location.ts';
import { parseNft } from './parser.ts';

export interface NftRunOptions {
  /** The file name nft shows in error locations; undefined for command-line input. */
  readonly file?: string;
  /** `-c`: check only. */
  readonly check?: boolean;
  /** `-a`: show handles. */
  readonly handles?: boolean;
  /** Virtual ns now: listings print the time set elements have left. */
  readonly now?: number;
  /** `-s`: listings without counter values. */
  readonly stateless?: boolean;
  /** Where `include "FILE"` reads from (the simulation's files); without it every include is not found. */
  readonly files?: IncludeFiles;
}

export interface NftRunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** Runs nft input (a file's text, or command-line words joined by spaces) against `netfilter`. Never throws. */
export function runNft(
  netfilter: Pick<Netfilter, 'store'> & { readonly host?: Partial<InterfaceNames> },
  text: string,
  options: NftRunOptions = {},
): NftRunResult {
  // nft parses command-line input as one line; its errors then point one past the end, at the newline.
  const source = new Source(options.file === undefined ? `${text}\n` : text, options.file);
  const interfaces = interfaceNames(netfilter.host);
  const parsed = parseNft(source, options.files, interfaces);
  if (!parsed.ok)
    return {
      stdout: '',
      stderr: parsed.errors.map((error) => formatError(source, error)).join(''),
      exitCode: 1,
    };
  const result = applyCommands(netfilter.store, parsed.commands, {
    check: options.check ?? false,
    handles: options.handles ?? false,
    now: options.now,
    stateless: options.stateless ?? false,
    ifname: interfaces?.ifname,
  });
  if (result.error !== undefined)
    return { stdout: '', stderr: formatError(source, result.error), exitCode: 1 };
  return { stdout: result.stdout, stderr: result.warnings, exitCode: 0 };
}

/** The host's device lookups, when it has both (a Netfilter without a namespace keeps names as written). */
function interfaceNames(host: Partial<InterfaceNames> | undefined): InterfaceNames | undefined {
  const ifindex = host?.ifindex;
  const ifname = host?.ifname;
  if (ifindex === undefined || ifname === undefined) return undefined;
  return { ifindex: (name) => ifindex.call(host, name), ifname: (index) => ifname.call(host, index) };
}
