// `tcpdump` on a namespace's devices or on a capture file: taps one interface (Ethernet) or `any` (Linux cooked v2,
// or v1 with -y LINUX_SLL), or reads `-r FILE` (pcap or pcapng) from the simulation's file store; filters with the pcap-filter
// language, prints tcpdump 4.99.3's lines or writes a pcap file; -D lists the devices. Options: -i -r -w -c -s -y -D -n -nn -e -q -v[v[v]]
// -x[x] -X[X] -A[A] -# -t[t[t[t[t]]]] -K -S -l -p -U --nano --micro --time-stamp-precision --number --print;
// any other option answers "not supported". Names are never resolved: every run prints as with -n.
//
// Time: a live capture stamps frames with the simulation's virtual time, whose 0 is 1970-01-01 00:00:00 UTC
// (so -tttt prints 1970-01-01 dates); a file read with -r keeps its own dates, exact to the nanosecond.

import { compileFilter } from '../capture/filter/index.ts';
import { PCAP_DEFAULT_SNAPLEN, PcapWriter, readPcap } from '../capture/pcap.ts';
import { isPcapng, readPcapng } from '../capture/pcapng.ts';
import {
  type PacketDump,
  type PrintLinkType,
  TcpdumpPrinter,
  type TimestampFormat,
} from '../capture/print.ts';
import { type Packet, PacketType } from '../core/packet.ts';
import type { NetDevice, Tap } from '../link/device.ts';
import type { Namespace } from '../netns/namespace.ts';
import { readMac, writeMac } from '../wire/address.ts';
import { readU16, writeU16, writeU32 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN } from '../wire/ethernet.ts';
import { ARPHRD_ETHER, ARPHRD_LOOPBACK, SLL2_HEADER_LEN } from '../wire/sll2.ts';
import { GETOPT_END, GETOPT_MISSING, GETOPT_UNKNOWN, Getopt, type LongOption } from './getopt.ts';
import { atoi, i32, strtol } from './libc.ts';
import { type CommandResult, fail, unsupported } from './result.ts';

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_LINUX_SLL = 113;
const LINKTYPE_LINUX_SLL2 = 276;
const SLL_HEADER_LEN = 16;
/** libpcap 1.10.3's range of LINKTYPE_ values it maps to DLTs one to one (pcap-common.c). */
const LINKTYPE_MATCHING_MIN = 104;
const LINKTYPE_MATCHING_MAX = 289;

/** The names `-y` takes and the banner prints (pcap_datalink_val_to_name and _description). */
const LINK_TYPE_NAMES = new Map<number, { name: string; description: string }>([
  [LINKTYPE_ETHERNET, { name: 'EN10MB', description: 'Ethernet' }],
  [LINKTYPE_LINUX_SLL, { name: 'LINUX_SLL', description: 'Linux cooked v1' }],
  [LINKTYPE_LINUX_SLL2, { name: 'LINUX_SLL2', description: 'Linux cooked v2' }],
]);

function linkTypeText(linkType: number): string {
  const known = LINK_TYPE_NAMES.get(linkType);
  return known === undefined ? `${linkType}` : `${known.name} (${known.description})`;
}

interface TcpdumpOptions {
  iface: string | undefined;
  readFile: string | undefined;
  writeFile: string | undefined;
  /** `--print`: print the packets even while writing them with -w. */
  print: boolean;
  count: number;
  snapLen: number;
  /** `-y NAME`: the link type asked for, or undefined for the device's default. */
  linkType: number | undefined;
  linkLayer: boolean;
  /** How many times -t was given (0 to 5). */
  tflag: number;
  nano: boolean;
  absoluteSeq: boolean;
  /** False with -p: the capture does not put the interface in promiscuous mode. */
  promiscuous: boolean;
  verbose: number;
  quiet: boolean;
  /** `-K`: do not verify checksums. */
  noChecksums: boolean;
  xflag: number;
  Xflag: number;
  Aflag: number;
  packetNumbers: boolean;
  /** `-D`: list the devices and exit. */
  listDevices: boolean;
  filter: string;
}

/** A capture running in the background until `-c` packets or `stop()`, as `tcpdump ... &` in a shell. */
export interface Capture {
  /** True once `-c` packets were captured (the process exited by itself) or after stop(). */
  readonly done: boolean;
  /** Lines printed so far. */
  readonly stdout: string;
  /** What it printed on standard error when it started (tcpdump's `listening on` lines), when it prints any. */
  readonly banner?: string;
  /** Ends the capture (if still running) and returns what tcpdump printed, with its statistics on stderr. */
  stop(): CommandResult;
}

// tcpdump 4.99.3's SHORTOPTS (with -B, -D, -I, -j, -J, -Q and -U compiled in) and its long options.
const OPTSTRING = 'aAbB:c:C:dDeE:fF:G:hHi:Ij:JKlLm:M:nNOpqQ:r:s:StT:uUvV:w:W:xXy:Yz:Z:#';
const OPTION_TSTAMP_PRECISION = 1000;
const OPTION_TSTAMP_MICRO = 1001;
const OPTION_TSTAMP_NANO = 1002;
const OPTION_PRINT = 1003;
const OPTION_OTHER = 1004;
const LONG_OPTIONS: readonly LongOption[] = [
  { name: 'buffer-size', hasArg: 1, val: 'B'.charCodeAt(0) },
  { name: 'list-interfaces', hasArg: 0, val: 'D'.charCodeAt(0) },
  { name: 'help', hasArg: 0, val: 'h'.charCodeAt(0) },
  { name: 'interface', hasArg: 1, val: 'i'.charCodeAt(0) },
  { name: 'monitor-mode', hasArg: 0, val: 'I'.charCodeAt(0) },
  { name: 'time-stamp-type', hasArg: 1, val: 'j'.charCodeAt(0) },
  { name: 'list-time-stamp-types', hasArg: 0, val: 'J'.charCodeAt(0) },
  { name: 'micro', hasArg: 0, val: OPTION_TSTAMP_MICRO },
  { name: 'nano', hasArg: 0, val: OPTION_TSTAMP_NANO },
  { name: 'time-stamp-precision', hasArg: 1, val: OPTION_TSTAMP_PRECISION },
  { name: 'dont-verify-checksums', hasArg: 0, val: 'K'.charCodeAt(0) },
  { name: 'list-data-link-types', hasArg: 0, val: 'L'.charCodeAt(0) },
  { name: 'no-optimize', hasArg: 0, val: 'O'.charCodeAt(0) },
  { name: 'no-promiscuous-mode', hasArg: 0, val: 'p'.charCodeAt(0) },
  { name: 'direction', hasArg: 1, val: 'Q'.charCodeAt(0) },
  { name: 'snapshot-length', hasArg: 1, val: 's'.charCodeAt(0) },
  { name: 'absolute-tcp-sequence-numbers', hasArg: 0, val: 'S'.charCodeAt(0) },
  { name: 'packet-buffered', hasArg: 0, val: 'U'.charCodeAt(0) },
  { name: 'linktype', hasArg: 1, val: 'y'.charCodeAt(0) },
  { name: 'immediate-mode', hasArg: 0, val: OPTION_OTHER },
  { name: 'debug-filter-parser', hasArg: 0, val: 'Y'.charCodeAt(0) },
  { name: 'relinquish-privileges', hasArg: 1, val: 'Z'.charCodeAt(0) },
  { name: 'count', hasArg: 0, val: OPTION_OTHER },
  { name: 'fp-type', hasArg: 0, val: OPTION_OTHER },
  { name: 'number', hasArg: 0, val: '#'.charCodeAt(0) },
  { name: 'print', hasArg: 0, val: OPTION_PRINT },
  { name: 'print-sampling', hasArg: 1, val: OPTION_OTHER },
  { name: 'lengths', hasArg: 0, val: OPTION_OTHER },
  { name: 'version', hasArg: 0, val: OPTION_OTHER },
];

/** What tcpdump prints after a getopt error (print_usage): its version, then the usage. */
const USAGE = `tcpdump version 4.99.3
libpcap version 1.10.3 (with TPACKET_V3)
OpenSSL 3.0.19 27 Jan 2026
Usage: tcpdump [-AbdDefhHIJKlLnNOpqStuUvxX#] [ -B size ] [ -c count ] [--count]
\t\t[ -C file_size ] [ -E algo:secret ] [ -F file ] [ -G seconds ]
\t\t[ -i interface ] [ --immediate-mode ] [ -j tstamptype ]
\t\t[ -M secret ] [ --number ] [ --print ] [ -Q in|out|inout ]
\t\t[ -r file ] [ -s snaplen ] [ -T type ] [ --version ]
\t\t[ -V file ] [ -w file ] [ -W filecount ] [ -y datalinktype ]
\t\t[ --time-stamp-precision precision ] [ --micro ] [ --nano ]
\t\t[ -z postrotate-command ] [ -Z user ] [ expression ]
`;

function parseOptions(args: readonly string[]): TcpdumpOptions | CommandResult {
  const options: TcpdumpOptions = {
    iface: undefined,
    readFile: undefined,
    writeFile: undefined,
    print: false,
    count: Number.POSITIVE_INFINITY,
    snapLen: PCAP_DEFAULT_SNAPLEN,
    linkType: undefined,
    linkLayer: false,
    tflag: 0,
    nano: false,
    absoluteSeq: false,
    promiscuous: true,
    verbose: 0,
    quiet: false,
    noChecksums: false,
    xflag: 0,
    Xflag: 0,
    Aflag: 0,
    packetNumbers: false,
    listDevices: false,
    filter: '',
  };
  const getopt = new Getopt(['tcpdump', ...args], OPTSTRING, LONG_OPTIONS);
  for (;;) {
    const c = getopt.next();
    if (c === GETOPT_END) break;
    const value = getopt.optarg ?? '';
    const word = getopt.argv[getopt.optind - 1] ?? '';
    if (c === GETOPT_UNKNOWN) {
      const text = word.startsWith('--')
        ? `tcpdump: unrecognized option '${word.split('=')[0]}'\n`
        : `tcpdump: invalid option -- '${getopt.optopt}'\n`;
      return fail(`${text}${USAGE}`, 1);
    }
    if (c === GETOPT_MISSING) {
      const text = word.startsWith('--')
        ? `tcpdump: option '${word}' requires an argument\n`
        : `tcpdump: option requires an argument -- '${getopt.optopt}'\n`;
      return fail(`${text}${USAGE}`, 1);
    }
    switch (c) {
      case OPTION_TSTAMP_NANO:
        options.nano = true;
        continue;
      case OPTION_TSTAMP_MICRO:
        options.nano = false;
        continue;
      case OPTION_TSTAMP_PRECISION:
        if (value !== 'nano' && value !== 'micro')
          return fail('tcpdump: unsupported time stamp precision\n', 1);
        options.nano = value === 'nano';
        continue;
      case OPTION_PRINT:
        options.print = true;
        continue;
      case OPTION_OTHER:
        return unsupported('tcpdump', word.split('=')[0]!);
      default:
        break;
    }
    const flag = String.fromCharCode(c);
    switch (flag) {
      case 'i':
        options.iface = value;
        break;
      case 'r':
        options.readFile = value;
        break;
      case 'w':
        options.writeFile = value;
        break;
      case 'c': {
        // atoi, as tcpdump reads it: "5abc" is 5, "0x2" is 0.
        const count = atoi(value);
        if (count <= 0) return fail(`tcpdump: invalid packet count ${value}\n`, 1);
        options.count = count;
        break;
      }
      case 's': {
        // (int) strtol(optarg, &end, 0) with nothing after the number.
        const parsed = strtol(value, 0);
        const snapLen = i32(parsed.value);
        if (
          parsed.end === 0 ||
          parsed.end !== value.length ||
          snapLen < 0 ||
          snapLen > PCAP_DEFAULT_SNAPLEN
        ) {
          return fail(`tcpdump: invalid snaplen ${value} (must be >= 0 and <= ${PCAP_DEFAULT_SNAPLEN})\n`, 1);
        }
        // pcap_set_snaplen: 0 means the default.
        options.snapLen = snapLen === 0 ? PCAP_DEFAULT_SNAPLEN : snapLen;
        break;
      }
      case 'y': {
        const known = [...LINK_TYPE_NAMES].find(([, names]) => names.name === value.toUpperCase());
        if (known === undefined) return fail(`tcpdump: invalid data link type ${value}\n`, 1);
        options.linkType = known[0];
        break;
      }
      case 'e':
        options.linkLayer = true;
        break;
      case 't':
        options.tflag++;
        break;
      case 'S':
        options.absoluteSeq = true;
        break;
      case 'p':
        options.promiscuous = false;
        break;
      case 'v':
        options.verbose++;
        break;
      case 'q':
        options.quiet = true;
        break;
      case 'K':
        options.noChecksums = true;
        break;
      case 'x':
        options.xflag++;
        break;
      case 'X':
        options.Xflag++;
        break;
      case 'A':
        options.Aflag++;
        break;
      case '#':
        options.packetNumbers = true;
        break;
      case 'D':
        options.listDevices = true;
        break;
      case 'n':
      case 'l':
      case 'U':
        break;
      default:
        return unsupported('tcpdump', `-${flag}`);
    }
  }
  if (options.tflag > 5) return fail('tcpdump: only -t, -tt, -ttt, -tttt and -ttttt are supported\n', 1);
  options.filter = getopt.argv.slice(getopt.optind).join(' ');
  return options;
}

const TIMESTAMP_FORMATS: readonly TimestampFormat[] = [
  'clock',
  'none',
  'epoch',
  'delta',
  'date',
  'since-first',
];

/** -X wins over -x, which wins over -A (pretty_print_packet's order); doubled, the link header is dumped too. */
function packetDump(options: TcpdumpOptions): PacketDump | undefined {
  if (options.Xflag > 0) return { style: 'hex-ascii', withLinkHeader: options.Xflag > 1 };
  if (options.xflag > 0) return { style: 'hex', withLinkHeader: options.xflag > 1 };
  if (options.Aflag > 0) return { style: 'ascii', withLinkHeader: options.Aflag > 1 };
  return undefined;
}

function makePrinter(ns: Namespace, options: TcpdumpOptions, linkType: PrintLinkType): TcpdumpPrinter {
  const dump = packetDump(options);
  return new TcpdumpPrinter({
    linkType,
    showLinkLayer: options.linkLayer,
    timestamp: TIMESTAMP_FORMATS[options.tflag]!,
    nano: options.nano,
    absoluteSeq: options.absoluteSeq,
    verbose: options.verbose,
    quiet: options.quiet,
    noChecksums: options.noChecksums,
    packetNumbers: options.packetNumbers,
    ...(dump === undefined ? {} : { dump }),
    ifName: (ifindex) => ns.byIndex(ifindex)?.name,
  });
}

/** The compiled filter for one link type: does this frame (of this wire length) pass? */
type FrameFilter = (frame: Uint8Array, wireLength?: number) => boolean;

/** The frame filter; a cooked v1 capture takes no expression (the filter compiler has no LINUX_SLL). */
function filterFor(options: TcpdumpOptions, linkType: PrintLinkType): FrameFilter | CommandResult {
  if (linkType === LINKTYPE_LINUX_SLL) {
    if (options.filter.trim() !== '')
      return unsupported('tcpdump', 'filter expressions on LINUX_SLL captures');
    return () => true;
  }
  const compiled = compileFilter(options.filter, { linkType });
  if (!compiled.ok) return fail(`tcpdump: ${compiled.message}\n`, 1);
  const match = compiled.match;
  return (frame, wireLength) => match(frame, linkType, wireLength);
}

/**
 * Starts tcpdump in `ns`; the capture runs while the simulation does. A bad option,
 * interface or filter fails at once, as the real tool does, and captures nothing. With -r
 * the file is read at once and the returned capture is already done.
 */
export function startTcpdump(ns: Namespace, args: string[]): Capture | CommandResult {
  const options = parseOptions(args);
  if (!('filter' in options)) return options;
  if (options.listDevices) {
    const result = { stdout: listDevices(ns), stderr: '', exitCode: 0 };
    return { done: true, stdout: result.stdout, stop: () => result };
  }
  if (options.readFile !== undefined) {
    const result = readCapture(ns, options.readFile, options);
    return { done: true, stdout: result.stdout, stop: () => result };
  }
  const ifaceName =
    options.iface ?? ns.all().find((dev) => dev.kind !== 'loopback' && dev.adminUp)?.name ?? 'lo';
  const any = ifaceName === 'any';
  const devices = any
    ? ns.all()
    : [ns.byName(ifaceName)].filter((dev): dev is NetDevice => dev !== undefined);
  if (devices.length === 0)
    return fail(`tcpdump: ${ifaceName}: No such device exists\n(No such device exists)\n`, 1);
  if (!any && !devices[0]!.adminUp) return fail(`tcpdump: ${ifaceName}: That device is not up\n`, 1);
  const linkType = options.linkType ?? (any ? LINKTYPE_LINUX_SLL2 : LINKTYPE_ETHERNET);
  const offered = any ? [LINKTYPE_LINUX_SLL2, LINKTYPE_LINUX_SLL] : [LINKTYPE_ETHERNET];
  if (!offered.includes(linkType)) {
    return unsupported('tcpdump', `-y ${LINK_TYPE_NAMES.get(linkType)!.name} on ${ifaceName}`);
  }
  const printLinkType = linkType as PrintLinkType;
  const match = filterFor(options, printLinkType);
  if (typeof match !== 'function') return match;
  return new RunningCapture(ns, devices, options, printLinkType, match, ifaceName);
}

/** One entry of pcap_findalldevs: a name, a description, the flags tcpdump -D prints. */
interface FoundDevice {
  readonly name: string;
  readonly description: string | undefined;
  readonly up: boolean;
  readonly running: boolean;
  readonly loopback: boolean;
  readonly wireless: boolean;
  readonly connection: 'connected' | 'disconnected' | 'not-applicable';
}

/** The pseudo-devices libpcap 1.10.3 offers on Linux after the interfaces (as Debian builds it). */
const PSEUDO_DEVICES: readonly FoundDevice[] = [
  ['bluetooth-monitor', 'Bluetooth Linux Monitor', true],
  ['nflog', 'Linux netfilter log (NFLOG) interface', false],
  ['nfqueue', 'Linux netfilter queue (NFQUEUE) interface', false],
  ['dbus-system', 'D-Bus system bus', false],
  ['dbus-session', 'D-Bus session bus', false],
].map(([name, description, wireless]) => ({
  name: name as string,
  description: description as string,
  up: false,
  running: false,
  loopback: false,
  wireless: wireless as boolean,
  connection: 'not-applicable' as const,
}));

/** get_figure_of_merit (libpcap 1.10): lower sorts first; `any` after the others but before loopback and disconnected devices. */
function figureOfMerit(dev: FoundDevice): number {
  let n = 0;
  if (!dev.running) n += 0x8000_0000;
  if (!dev.up) n += 0x4000_0000;
  if (!dev.wireless && dev.connection === 'disconnected') n += 0x2000_0000;
  if (dev.loopback) n += 0x1000_0000;
  if (dev.name === 'any') n += 0x0800_0000;
  return n;
}

/** `tcpdump -D` (show_devices_and_exit): pcap_findalldevs's list, sorted as libpcap inserts it. */
function listDevices(ns: Namespace): string {
  const found: FoundDevice[] = [];
  const add = (dev: FoundDevice) => {
    // add_dev: before the first entry with a greater figure of merit.
    const merit = figureOfMerit(dev);
    const at = found.findIndex((other) => figureOfMerit(other) > merit);
    found.splice(at < 0 ? found.length : at, 0, dev);
  };
  for (const dev of [...ns.all()].sort((a, b) => a.ifindex - b.ifindex)) {
    const loopback = dev.kind === 'loopback';
    add({
      name: dev.name,
      description: undefined,
      up: dev.adminUp,
      running: dev.operUp,
      loopback,
      wireless: false,
      // The ethtool link state of veths, bridges and VXLAN devices is their carrier.
      connection: loopback ? 'not-applicable' : dev.operUp ? 'connected' : 'disconnected',
    });
  }
  add({
    name: 'any',
    description: 'Pseudo-device that captures on all interfaces',
    up: true,
    running: true,
    loopback: false,
    wireless: false,
    connection: 'not-applicable',
  });
  for (const dev of PSEUDO_DEVICES) add(dev);
  return found
    .map((dev, i) => {
      const flags = [dev.up ? 'Up' : '', dev.running ? 'Running' : '', dev.loopback ? 'Loopback' : ''];
      if (dev.wireless) flags.push('Wireless');
      let status = flags.filter((f) => f !== '').join(', ');
      if (status === '') status = 'none';
      if (!dev.wireless && dev.connection === 'connected') status += ', Connected';
      if (!dev.wireless && dev.connection === 'disconnected') status += ', Disconnected';
      const description = dev.description === undefined ? '' : ` (${dev.description})`;
      return `${i + 1}.${dev.name}${description} [${status}]\n`;
    })
    .join('');
}

/** `tcpdump -r FILE`: the file's records through the filter and the printer (or into -w's file). */
function readCapture(ns: Namespace, path: string, options: TcpdumpOptions): CommandResult {
  const bytes = ns.sim.files.get(path);
  if (bytes === undefined) return fail(`tcpdump: ${path}: No such file or directory\n`, 1);
  const read = isPcapng(bytes) ? readPcapng(bytes) : readPcap(bytes);
  const header = read.ok ? read.file : read.header;
  if (header === undefined) return fail(`tcpdump: ${read.ok ? '' : read.message}\n`, 1);
  let stderr = `reading from file ${path}, link-type ${linkTypeText(header.linkType)}, snapshot length ${header.snapLen}\n`;
  if (header.linkType === LINKTYPE_LINUX_SLL2) stderr += 'Warning: interface names might be incorrect\n';
  if (header.linkType > LINKTYPE_MATCHING_MAX) {
    // Past libpcap's table (LINKTYPE_MATCHING_MAX): no DLT at all, and tcpdump says so.
    const unknown = `tcpdump: unknown data link type ${header.linkType} (min ${LINKTYPE_MATCHING_MIN}, max ${LINKTYPE_MATCHING_MAX})\n`;
    return fail(`${stderr}${unknown}`, 1);
  }
  if (!LINK_TYPE_NAMES.has(header.linkType)) {
    return unsupported('tcpdump', `-r of a link-type ${header.linkType} capture`);
  }
  const linkType = header.linkType as PrintLinkType;
  const match = filterFor(options, linkType);
  if (typeof match !== 'function') return { ...match, stderr: `${stderr}${match.stderr}` };
  const records = read.ok ? read.file.records : read.records;
  const printing = options.writeFile === undefined || options.print;
  const printer = printing ? makePrinter(ns, options, linkType) : undefined;
  const writer =
    options.writeFile === undefined
      ? undefined
      : new PcapWriter({ linkType, snapLen: header.snapLen, resolution: options.nano ? 'nano' : 'micro' });
  let stdout = '';
  let seen = 0;
  for (const record of records) {
    if (seen >= options.count) break;
    if (!match(record.data, record.origLen)) continue;
    seen++;
    // ts_sec is 32 bits in the file written (a pcapng offset may carry a date outside them).
    const seconds = ((record.seconds % 2 ** 32) + 2 ** 32) % 2 ** 32;
    // A microsecond fraction past a second, scaled to nanoseconds, wraps at 32 bits as pcap_dump's does.
    const nanos = options.nano ? record.nanos % 2 ** 32 : record.nanos;
    writer?.writeAt(seconds, nanos, record.data, Math.max(record.origLen, record.data.length));
    if (printer !== undefined) {
      stdout += `${printer.formatRecord(record.seconds, record.nanos, record.data, record.origLen)}\n`;
    }
  }
  if (writer !== undefined && options.writeFile !== undefined)
    ns.sim.files.set(options.writeFile, writer.bytes());
  if (!read.ok && seen < options.count)
    return fail(`${stderr}tcpdump: pcap_loop: ${read.message}\n`, 1, stdout);
  return { stdout, stderr, exitCode: 0 };
}

class RunningCapture implements Capture {
  done = false;
  stdout = '';
  private captured = 0;
  readonly banner: string;
  private readonly printer: TcpdumpPrinter | undefined;
  private readonly writer: PcapWriter | undefined;
  private readonly tap: Tap;
  private readonly promiscuous: boolean;

  constructor(
    private readonly ns: Namespace,
    private readonly devices: NetDevice[],
    private readonly options: TcpdumpOptions,
    private readonly linkType: PrintLinkType,
    private readonly match: FrameFilter,
    ifaceName: string,
  ) {
    const listening = `listening on ${ifaceName}, link-type ${linkTypeText(linkType)}, snapshot length ${options.snapLen} bytes\n`;
    this.banner =
      options.writeFile !== undefined || options.verbose > 0
        ? `tcpdump: ${listening}`
        : `tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\n${listening}`;
    this.printer =
      options.writeFile === undefined || options.print ? makePrinter(ns, options, linkType) : undefined;
    this.writer =
      options.writeFile !== undefined
        ? new PcapWriter({ linkType, snapLen: options.snapLen, resolution: options.nano ? 'nano' : 'micro' })
        : undefined;
    this.tap = (dev, pkt, direction) => this.onFrame(dev, pkt, direction);
    for (const dev of devices) dev.taps.push(this.tap);
    // pcap_activate's PACKET_MR_PROMISC (dev_set_promiscuity); `-i any` cannot be promiscuous.
    this.promiscuous = options.promiscuous && linkType === LINKTYPE_ETHERNET;
    if (this.promiscuous) for (const dev of devices) dev.promiscuity++;
  }

  private onFrame(dev: NetDevice, pkt: Packet, direction: 'rx' | 'tx'): void {
    if (this.done) return;
    // libpcap drops the outgoing copy of every frame on lo (pcap-linux.c): it comes back as incoming.
    if (direction === 'tx' && dev.kind === 'loopback') return;
    const frame =
      this.linkType === LINKTYPE_LINUX_SLL2
        ? cooked(dev, pkt, direction)
        : this.linkType === LINKTYPE_LINUX_SLL
          ? cookedV1(dev, pkt, direction)
          : pkt.frame();
    if (!this.match(frame)) return;
    this.captured++;
    const now = this.ns.sim.now;
    this.writer?.write(now, frame);
    if (this.printer !== undefined) {
      // The snapshot length cuts what is printed; the wire length stays the frame's.
      const kept = frame.length > this.options.snapLen ? frame.subarray(0, this.options.snapLen) : frame;
      this.stdout += `${this.printer.formatLine(now, kept, frame.length)}\n`;
    }
    if (this.captured >= this.options.count) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    for (const dev of this.devices) {
      const index = dev.taps.indexOf(this.tap);
      if (index >= 0) dev.taps.splice(index, 1);
      if (this.promiscuous) dev.promiscuity--;
    }
    if (this.writer !== undefined && this.options.writeFile !== undefined)
      this.ns.sim.files.set(this.options.writeFile, this.writer.bytes());
  }

  stop(): CommandResult {
    this.finish();
    const stats = `${this.captured} packets captured\n${this.captured} packets received by filter\n0 packets dropped by kernel\n`;
    return { stdout: this.stdout, stderr: `${this.banner}${stats}`, exitCode: 0 };
  }
}

/** The SLL2 header tcpdump -i any sees in front of the network-layer bytes (af_packet's cooked mode). */
function cooked(dev: NetDevice, pkt: Packet, direction: 'rx' | 'tx'): Uint8Array {
  const frame = pkt.frame();
  const payload =
    frame.length >= ETHERNET_HEADER_LEN ? frame.subarray(ETHERNET_HEADER_LEN) : new Uint8Array(0);
  const out = new Uint8Array(SLL2_HEADER_LEN + payload.length);
  writeU16(out, 0, frame.length >= ETHERNET_HEADER_LEN ? readU16(frame, 12) : 0);
  writeU32(out, 4, dev.ifindex);
  writeU16(out, 8, dev.kind === 'loopback' ? ARPHRD_LOOPBACK : ARPHRD_ETHER);
  out[10] = direction === 'tx' ? PacketType.Outgoing : pkt.pktType;
  out[11] = 6;
  if (frame.length >= 12) writeMac(out, 12, direction === 'tx' ? dev.mac : readMac(frame, 6));
  out.set(payload, SLL2_HEADER_LEN);
  return out;
}

/**
 * The 16-byte SLL (v1) header of `tcpdump -y LINUX_SLL -i any` (libpcap's sll_header): packet
 * type, ARPHRD type, address length, the address padded to 8 bytes, then the protocol.
 */
function cookedV1(dev: NetDevice, pkt: Packet, direction: 'rx' | 'tx'): Uint8Array {
  const frame = pkt.frame();
  const payload =
    frame.length >= ETHERNET_HEADER_LEN ? frame.subarray(ETHERNET_HEADER_LEN) : new Uint8Array(0);
  const out = new Uint8Array(SLL_HEADER_LEN + payload.length);
  writeU16(out, 0, direction === 'tx' ? PacketType.Outgoing : pkt.pktType);
  writeU16(out, 2, dev.kind === 'loopback' ? ARPHRD_LOOPBACK : ARPHRD_ETHER);
  writeU16(out, 4, 6);
  if (frame.length >= 12) writeMac(out, 6, direction === 'tx' ? dev.mac : readMac(frame, 6));
  writeU16(out, 14, frame.length >= ETHERNET_HEADER_LEN ? readU16(frame, 12) : 0);
  out.set(payload, SLL_HEADER_LEN);
  return out;
}

/** `tcpdump` run in the foreground: captures while the simulation runs until `-c` packets or until it is idle; with -r it reads the file. */
export function tcpdump(ns: Namespace, args: string[]): CommandResult {
  const capture = startTcpdump(ns, args);
  if (!('stop' in capture)) return capture;
  const scheduler = ns.sim.scheduler;
  while (!capture.done && scheduler.runNext()) {}
  return capture.stop();
}
