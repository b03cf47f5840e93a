// The errors iptables, iptables-restore and the kernel report, and how each tool prints them (iptables 1.8.9,
// nf_tables backend: xtables_error, nft_strerror, mnl_batch errors); no locking or resource errors.

import { strerror } from '../../core/errno.ts';

/** errno names the ruleset and the kernel checks return (printed with glibc's strerror text). */
export type Errno = 'EINVAL' | 'EBUSY' | 'ENOENT' | 'EEXIST' | 'ELOOP' | 'EOPNOTSUPP';

/** The batch operation a kernel error names (`RULE_APPEND failed (...)`). */
export type KernelOp =
  | 'RULE_APPEND'
  | 'RULE_INSERT'
  | 'RULE_REPLACE'
  | 'RULE_DELETE'
  | 'CHAIN_USER_ADD'
  | 'CHAIN_DEL'
  | 'CHAIN_RENAME';

export type IptError =
  /** PARAMETER_PROBLEM: `iptables v1.8.9 (nf_tables): MSG` + the try-help line; `message` keeps its own newline. */
  | { readonly kind: 'param'; readonly message: string }
  /** A word left over after the options: `Bad argument `extra'`. */
  | { readonly kind: 'bad-argument'; readonly arg: string }
  /** nft_strerror's `iptables: MSG` (exit 1). */
  | { readonly kind: 'nft'; readonly message: string }
  /** The kernel refused the batch: ` RULE_APPEND failed (Invalid argument): rule in chain X` (exit 4). */
  | { readonly kind: 'kernel'; readonly op: KernelOp; readonly errno: Errno; readonly what: string }
  /** An unknown table (exit 3). */
  | { readonly kind: 'table'; readonly table: string }
  /** Any other fatal `iptables v1.8.9 (nf_tables): MSG` without the try-help line. */
  | { readonly kind: 'fatal'; readonly message: string; readonly exitCode: number }
  /** A form iptables accepts that packetlab does not model: `packetlab: iptables OPTION is not supported` (exit 1). */
  | { readonly kind: 'unsupported'; readonly option: string };

export const VERSION = 'v1.8.9 (nf_tables)';

export function param(message: string): IptError {
  return { kind: 'param', message };
}

export function notModelled(option: string): IptError {
  return { kind: 'unsupported', option };
}

export function nftError(message: string): IptError {
  return { kind: 'nft', message };
}

export const NO_CHAIN = nftError('No chain/target/match by that name.');
export const BAD_RULE = nftError('Bad rule (does a matching rule exist in that chain?).');

export function kernelError(op: KernelOp, errno: Errno, what: string): IptError {
  return { kind: 'kernel', op, errno, what };
}

export function exitCodeOf(error: IptError): number {
  switch (error.kind) {
    case 'param':
    case 'bad-argument':
      return 2;
    case 'nft':
      return 1;
    case 'kernel':
      return 4;
    case 'table':
      return 3;
    case 'fatal':
      return error.exitCode;
    case 'unsupported':
      return 1;
  }
}

/** The text `iptables` prints on standard error for `error`. */
export function formatIptablesError(error: IptError, program = 'iptables'): string {
  const tryHelp = `Try \`${program} -h' or '${program} --help' for more information.\n`;
  switch (error.kind) {
    case 'param':
      return `${program} ${VERSION}: ${error.message}\n${tryHelp}`;
    case 'bad-argument':
      return `Bad argument \`${error.arg}'\n${tryHelp}`;
    case 'nft':
      return `${program}: ${error.message}\n`;
    case 'kernel':
      return `${program} ${VERSION}:  ${error.op} failed (${strerror(error.errno)}): ${error.what}\n`;
    case 'table':
      return `${program} ${VERSION}: table '${error.table}' does not exist\nPerhaps iptables or your kernel needs to be upgraded.\n`;
    case 'fatal':
      return `${program} ${VERSION}: ${error.message}\n`;
    case 'unsupported':
      return `packetlab: ${program} ${error.option} is not supported\n`;
  }
}

/** The text `iptables-restore` prints for `error` met at input line `line`. */
export function formatRestoreError(error: IptError, line: number): string {
  const program = 'iptables-restore';
  const where = `Error occurred at line: ${line}\n`;
  const tryHelp = `Try \`${program} -h' or '${program} --help' for more information.\n`;
  switch (error.kind) {
    case 'param':
      return `${program} ${VERSION}: ${error.message}\n${where}${tryHelp}`;
    case 'bad-argument':
      return `Bad argument \`${error.arg}'\n${where}${tryHelp}`;
    case 'nft':
      return `${program}: line ${line} failed: ${error.message}\n`;
    case 'kernel':
      return `${program} ${VERSION}: \nline ${line}: ${error.op} failed (${strerror(error.errno)}): ${error.what}\n`;
    case 'table':
      return `${program} ${VERSION}: table '${error.table}' does not exist\n${where}${tryHelp}`;
    case 'fatal':
      return `${program} ${VERSION}: ${error.message}\n${where}${tryHelp}`;
    case 'unsupported':
      return `packetlab: ${program} ${error.option} is not supported\n${where}`;
  }
}
