// `tcpdump` on a namespace's devices: taps one interface (Ethernet) or `any` (Linux cooked v2), filters with the
// pcap-filter language, prints tcpdump 4.99's lines or writes a pcap file into the simulation's file store.
// Options: -i -n -nn -e -c -w -t -tt --nano -S -l -q(ignored) ; no -v decoding, no -X, no -r.

import { compileFilter, type FilterPredicate } from '../capture/filter/index.ts';
import { PcapWriter } from '../capture/pcap.ts';
import { TcpdumpPrinter, type TimestampFormat } from '../capture/print.ts';
import { type Packet, PacketType } from '../core/packet.ts';
import type { NetDevice, Tap } from '../link/device.ts';
import type { Namespace } from '../netns/namespace.ts';
import { readMac, writeMac } from '../wire/address.ts';
import { readU16, writeU16, writeU32 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN } from '../wire/ethernet.ts';
import { ARPHRD_ETHER, ARPHRD_LOOPBACK, SLL2_HEADER_LEN } from '../wire/sll2.ts';
import { type CommandResult, fail } from './result.ts';

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_LINUX_SLL2 = 276;
const SNAPLEN = 262144;

interface TcpdumpOptions {
  iface: string | undefined;
  count: number;
  writeFile: string | undefined;
  linkLayer: boolean;
  timestamp: TimestampFormat;
  nano: boolean;
  absoluteSeq: boolean;
  /** False with -p: the capture does not put the interface in promiscuous mode. */
  promiscuous: boolean;
  filter: string;
}

/** A capture running in the background until `-c` packets or `stop()`, as `tcpdump ... &` in a shell. */
export interface Capture {
  /** True once `-c` packets were captured (the process exited by itself) or after stop(). */
  readonly done: boolean;
  /** Lines printed so far. */
  readonly stdout: string;
  /** Ends the capture (if still running) and returns what tcpdump printed, with its statistics on stderr. */
  stop(): CommandResult;
}

function parseOptions(args: string[]): TcpdumpOptions | string {
  const options: TcpdumpOptions = {
    iface: undefined,
    count: Number.POSITIVE_INFINITY,
    writeFile: undefined,
    linkLayer: false,
    timestamp: 'clock',
    nano: false,
    absoluteSeq: false,
    promiscuous: true,
    filter: '',
  };
  const expression: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--nano' || arg === '--time-stamp-precision=nano') {
      options.nano = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      expression.push(arg);
      continue;
    }
    const flags = arg.slice(1);
    for (let j = 0; j < flags.length; j++) {
      const flag = flags[j]!;
      const takesValue = flag === 'i' || flag === 'c' || flag === 'w';
      const value = takesValue ? (j + 1 < flags.length ? flags.slice(j + 1) : args[++i]) : undefined;
      switch (flag) {
        case 'i':
          options.iface = value;
          break;
        case 'c': {
          const count = Number(value);
          if (!Number.isInteger(count) || count <= 0) return `tcpdump: invalid packet count ${value}`;
          options.count = count;
          break;
        }
        case 'w':
          options.writeFile = value;
          break;
        case 'e':
          options.linkLayer = true;
          break;
        case 't':
          options.timestamp = options.timestamp === 'none' ? 'epoch' : 'none';
          break;
        case 'S':
          options.absoluteSeq = true;
          break;
        case 'p':
          options.promiscuous = false;
          break;
        case 'n':
        case 'l':
        case 'q':
          break;
        default:
          return `tcpdump: invalid option -- '${flag}'`;
      }
      if (takesValue) {
        if (value === undefined) return `tcpdump: option requires an argument -- '${flag}'`;
        break;
      }
    }
  }
  options.filter = expression.join(' ');
  return options;
}

/**
 * Starts tcpdump in `ns`; the capture runs while the simulation does. A bad option,
 * interface or filter fails at once, as the real tool does, and captures nothing.
 */
export function startTcpdump(ns: Namespace, args: string[]): Capture | CommandResult {
  const options = parseOptions(args);
  if (typeof options === 'string') return fail(`${options}\n`, 1);
  const ifaceName =
    options.iface ?? ns.all().find((dev) => dev.kind !== 'loopback' && dev.adminUp)?.name ?? 'lo';
  const any = ifaceName === 'any';
  const devices = any
    ? ns.all()
    : [ns.byName(ifaceName)].filter((dev): dev is NetDevice => dev !== undefined);
  if (devices.length === 0)
    return fail(`tcpdump: ${ifaceName}: No such device exists\n(No such device exists)\n`, 1);
  if (!any && !devices[0]!.adminUp) return fail(`tcpdump: ${ifaceName}: That device is not up\n`, 1);
  const linkType = any ? LINKTYPE_LINUX_SLL2 : LINKTYPE_ETHERNET;
  const compiled = compileFilter(options.filter, { linkType });
  if (!compiled.ok) return fail(`tcpdump: ${compiled.message}\n`, 1);
  return new RunningCapture(ns, devices, options, linkType, compiled.match, ifaceName);
}

class RunningCapture implements Capture {
  done = false;
  stdout = '';
  private captured = 0;
  private readonly banner: string;
  private readonly printer: TcpdumpPrinter;
  private readonly writer: PcapWriter | undefined;
  private readonly tap: Tap;

  constructor(
    private readonly ns: Namespace,
    private readonly devices: NetDevice[],
    private readonly options: TcpdumpOptions,
    private readonly linkType: 1 | 276,
    private readonly match: FilterPredicate,
    ifaceName: string,
  ) {
    const linkName = linkType === LINKTYPE_LINUX_SLL2 ? 'LINUX_SLL2 (Linux cooked v2)' : 'EN10MB (Ethernet)';
    const listening = `listening on ${ifaceName}, link-type ${linkName}, snapshot length ${SNAPLEN} bytes\n`;
    this.banner =
      options.writeFile !== undefined
        ? `tcpdump: ${listening}`
        : `tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\n${listening}`;
    this.printer = new TcpdumpPrinter({
      linkType,
      showLinkLayer: options.linkLayer,
      timestamp: options.timestamp,
      nano: options.nano,
      absoluteSeq: options.absoluteSeq,
      ifName: (ifindex) => ns.byIndex(ifindex)?.name,
    });
    this.writer =
      options.writeFile !== undefined ? new PcapWriter({ linkType, snapLen: SNAPLEN }) : undefined;
    this.tap = (dev, pkt, direction) => this.onFrame(dev, pkt, direction);
    for (const dev of devices) dev.taps.push(this.tap);
    // pcap_activate's PACKET_MR_PROMISC (dev_set_promiscuity); `-i any` cannot be promiscuous.
    this.promiscuous = options.promiscuous && linkType === LINKTYPE_ETHERNET;
    if (this.promiscuous) for (const dev of devices) dev.promiscuity++;
  }

  private readonly promiscuous: boolean;

  private onFrame(dev: NetDevice, pkt: Packet, direction: 'rx' | 'tx'): void {
    if (this.done) return;
    // libpcap drops the outgoing copy of every frame on lo (pcap-linux.c): it comes back as incoming.
    if (direction === 'tx' && dev.kind === 'loopback') return;
    const frame = this.linkType === LINKTYPE_LINUX_SLL2 ? cooked(dev, pkt, direction) : pkt.frame();
    if (!this.match(frame, this.linkType)) return;
    this.captured++;
    const now = this.ns.sim.now;
    if (this.writer !== undefined) this.writer.write(now, frame);
    else this.stdout += `${this.printer.formatLine(now, frame)}\n`;
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

/** `tcpdump` run in the foreground: captures while the simulation runs until `-c` packets or until it is idle. */
export function tcpdump(ns: Namespace, args: string[]): CommandResult {
  const capture = startTcpdump(ns, args);
  if (!('stop' in capture)) return capture;
  const scheduler = ns.sim.scheduler;
  while (!capture.done && scheduler.runNext()) {}
  return capture.stop();
}
