// TCP (print-tcp.c's tcp_print): flags, relative sequence numbers, options, length, DNS on port 53 and HTTP on ports 80/8080; no MPTCP detail, no other application protocols.

import { formatIpv4 } from '../../wire/address.ts';
import { pseudoHeaderSum } from '../../wire/checksum.ts';
import { domainOverTcpPrint } from './domain.ts';
import { httpPrint } from './http.ts';
import { IPPROTO_TCP } from './ipproto.ts';
import {
  type Dissector,
  hex2,
  hex4,
  type IpContext,
  inCksum,
  inCksumShouldbe,
  printableChar,
  TRUNCATED,
} from './netdissect.ts';
import { TcpSeqTable } from './tcp-seq.ts';

// TCP flags in tcpdump's print order (tcp_flag_values).
const TCP_FLAG_LETTERS: readonly [number, string][] = [
  [0x01, 'F'],
  [0x02, 'S'],
  [0x04, 'R'],
  [0x08, 'P'],
  [0x10, '.'],
  [0x20, 'U'],
  [0x40, 'E'],
  [0x80, 'W'],
];
const TH_FIN = 0x01;
const TH_SYN = 0x02;
const TH_RST = 0x04;
const TH_ACK = 0x10;
const TH_URG = 0x20;

const TCP_OPTION_NAMES = new Map<number, string>([
  [0, 'eol'],
  [1, 'nop'],
  [2, 'mss'],
  [3, 'wscale'],
  [4, 'sackOK'],
  [5, 'sack'],
  [6, 'echo'],
  [7, 'echoreply'],
  [8, 'TS'],
  [11, 'cc'],
  [12, 'ccnew'],
  [13, ''],
  [19, 'md5'],
  [20, 'scps'],
  [28, 'uto'],
  [29, 'tcp-ao'],
  [30, 'mptcp'],
  [34, 'tfo'],
  [254, 'exp'],
]);

const MAX_RST_DATA_LEN = 30;
const NAMESERVER_PORT = 53;
const HTTP_PORT = 80;
const HTTP_PORT_ALT = 8080;

/** TCP (print-tcp.c's tcp_print): flags, numbers, checksum with -v, options, length, HTTP lines. */
export function tcpPrint(d: Dissector, at: number, length: number, ip: IpContext): void {
  d.protocol = 'tcp';
  const src = formatIpv4(ip.src);
  const dst = formatIpv4(ip.dst);
  // The two header checks end the line here (tcp_print's own `trunc:`), not the whole frame: an
  // ICMP error quoting this segment goes on after it.
  if (!d.has(at + 2, 2)) {
    d.print(`${src} > ${dst}:`);
    d.printTrunc();
    return;
  }
  const srcPort = d.u16(at);
  const dstPort = d.u16(at + 2);
  d.print(`${src}.${srcPort} > ${dst}.${dstPort}: `);
  if (!d.has(at, 20)) {
    d.printTrunc();
    return;
  }
  let hlen = (d.u8(at + 12) >>> 4) * 4;
  if (hlen < 20) {
    d.print(` tcp ${(length - hlen) >>> 0} [bad hdr length ${hlen} - too short, < 20]`);
    return;
  }
  let seq = d.u32(at + 4);
  let ack = d.u32(at + 8);
  const win = d.u16(at + 14);
  const urp = d.u16(at + 18);
  const flags = d.u8(at + 13);
  if (d.qflag) {
    d.print(`tcp ${(length - hlen) >>> 0}`);
    if (hlen > length) d.print(` [bad hdr length ${hlen} - too long, > ${length}]`);
    return;
  }
  let flagText = '';
  for (const [bit, letter] of TCP_FLAG_LETTERS) if ((flags & bit) !== 0) flagText += letter;
  d.print(`Flags [${flagText === '' ? 'none' : flagText}]`);
  let baseSeq = 0;
  let baseAck = 0;
  let reversed = false;
  if (d.options.absoluteSeq !== true && (flags & TH_ACK) !== 0) {
    const table = d.options.tcpSeq ?? new TcpSeqTable();
    const related = table.relate(ip.src, ip.dst, srcPort, dstPort, (flags & TH_SYN) !== 0, seq, ack);
    seq = related.seq;
    ack = related.ack;
    baseSeq = related.baseSeq;
    baseAck = related.baseAck;
    reversed = related.reversed;
  }
  if (hlen > length) {
    d.print(` [bad hdr length ${hlen} - too long, > ${length}]`);
    return;
  }
  if (d.vflag > 0 && !d.kflag && !ip.fragmented && d.has(at, length)) {
    // tcp_cksum: the pseudo-header, then the whole segment as captured.
    const sum = inCksum(d.bytes, at, at + length, pseudoHeaderSum(ip.src, ip.dst, IPPROTO_TCP, length));
    const field = d.u16(at + 16);
    d.print(`, cksum 0x${hex4(field)}`);
    d.print(sum !== 0 ? ` (incorrect -> 0x${hex4(inCksumShouldbe(field, sum))})` : ' (correct)');
  }
  const dataLen = length - hlen;
  if (d.vflag > 1 || dataLen > 0 || (flags & (TH_SYN | TH_FIN | TH_RST)) !== 0) {
    d.print(`, seq ${seq}`);
    if (dataLen > 0) d.print(`:${(seq + dataLen) >>> 0}`);
  }
  if ((flags & TH_ACK) !== 0) d.print(`, ack ${ack}`);
  d.print(`, win ${win}`);
  if ((flags & TH_URG) !== 0) d.print(`, urg ${urp}`);
  if (hlen > 20) {
    const ok = tcpOptionsPrint(d, at + 20, hlen - 20, { baseSeq, baseAck, reversed });
    if (!ok) return;
  }
  d.print(`, length ${dataLen}`);
  if (dataLen === 0) return;
  hlen = (d.u8(at + 12) >>> 4) * 4;
  if (!d.has(at, hlen)) {
    d.print(` [remaining caplen(${d.available(at)}) < header length(${hlen})]`);
    throw TRUNCATED;
  }
  const data = at + hlen;
  if ((flags & TH_RST) !== 0 && d.vflag > 0) {
    rstDataPrint(d, data, dataLen);
    return;
  }
  if (srcPort === NAMESERVER_PORT || dstPort === NAMESERVER_PORT) {
    domainOverTcpPrint(d, data, dataLen);
    return;
  }
  if (
    srcPort === HTTP_PORT ||
    dstPort === HTTP_PORT ||
    srcPort === HTTP_PORT_ALT ||
    dstPort === HTTP_PORT_ALT
  ) {
    d.print(': ');
    httpPrint(d, data, dataLen);
  }
}

/** RFC 1122's text in a reset (print_tcp_rst_data): up to 30 characters, ` [RST+ ...]` when longer. */
function rstDataPrint(d: Dissector, at: number, length: number): void {
  d.print(d.has(at, length) ? ' [RST' : ' [!RST');
  let n = length;
  if (n > MAX_RST_DATA_LEN) {
    n = MAX_RST_DATA_LEN;
    d.print('+');
  }
  d.print(' ');
  for (let i = at; n > 0 && i < d.snapEnd; i++, n--) d.print(printableChar(d.bytes[i]!));
  d.print(']');
}

/**
 * The options list, `, options [...]`. Returns false when tcpdump stops the line inside it
 * (`[bad opt]`, or a truncation it reports itself with a closing `>`).
 */
function tcpOptionsPrint(
  d: Dissector,
  start: number,
  optionsLen: number,
  seqBase: { baseSeq: number; baseAck: number; reversed: boolean },
): boolean {
  let hlen = optionsLen;
  let cp = start;
  let separator = '';
  d.print(', options [');
  const bad = (): false => {
    d.print('[bad opt]');
    if (separator !== '') d.print(']');
    return false;
  };
  const trunc = (): false => {
    d.printTrunc();
    if (separator !== '') d.print('>');
    return false;
  };
  while (hlen > 0) {
    d.print(separator);
    const opt = d.u8(cp);
    cp++;
    let len: number;
    if (opt === 0 || opt === 1) {
      len = 1;
    } else {
      len = d.u8(cp);
      cp++;
      if (len < 2 || len > hlen) return bad();
      hlen--;
    }
    hlen--;
    let datalen = 0;
    // tcpdump's LENCHECK: past the declared option area is a bad option, past the capture a truncation.
    const lencheck = (l: number): 'ok' | 'bad' | 'trunc' => {
      if (l > hlen) return 'bad';
      if (!d.has(cp, l)) return 'trunc';
      return 'ok';
    };
    d.print(TCP_OPTION_NAMES.get(opt) ?? `unknown-${opt}`);
    let check: 'ok' | 'bad' | 'trunc' = 'ok';
    switch (opt) {
      case 2: // mss
        datalen = 2;
        check = lencheck(datalen);
        if (check === 'ok') d.print(` ${d.u16(cp)}`);
        break;
      case 3: // wscale
        datalen = 1;
        check = lencheck(datalen);
        if (check === 'ok') d.print(` ${d.u8(cp)}`);
        break;
      case 5: // sack
        datalen = len - 2;
        if (datalen % 8 !== 0) {
          d.print(' invalid sack');
        } else {
          d.print(` ${datalen / 8} `);
          for (let i = 0; i < datalen && check === 'ok'; i += 8) {
            check = lencheck(i + 4);
            if (check !== 'ok') break;
            let s = d.u32(cp + i);
            check = lencheck(i + 8);
            if (check !== 'ok') break;
            let e = d.u32(cp + i + 4);
            const base = seqBase.reversed ? seqBase.baseSeq : seqBase.baseAck;
            s = (s - base) >>> 0;
            e = (e - base) >>> 0;
            d.print(`{${s}:${e}}`);
          }
        }
        break;
      case 6:
      case 7:
      case 11:
      case 12:
      case 13:
        datalen = 4;
        check = lencheck(datalen);
        if (check === 'ok') d.print(` ${d.u32(cp)}`);
        break;
      case 8: // timestamps
        datalen = 8;
        check = lencheck(datalen);
        if (check === 'ok') d.print(` val ${d.u32(cp)} ecr ${d.u32(cp + 4)}`);
        break;
      case 19: // md5 signature: tcpdump cannot check it without the secret
        datalen = 16;
        check = lencheck(datalen);
        if (check === 'ok') {
          d.print(" can't check - ");
          for (let i = 0; i < 16; i++) d.print(hex2(d.u8(cp + i)));
        }
        break;
      case 20: // scps
        datalen = 2;
        check = lencheck(datalen);
        if (check === 'ok') d.print(` cap ${hex2(d.u8(cp))} id ${d.u8(cp + 1)}`);
        break;
      case 29: // tcp-ao
        datalen = len - 2;
        if (datalen < 2) {
          d.print(' (invalid)');
        } else {
          check = lencheck(1);
          if (check !== 'ok') break;
          d.print(` keyid ${d.u8(cp)}`);
          check = lencheck(2);
          if (check !== 'ok') break;
          d.print(` rnextkeyid ${d.u8(cp + 1)}`);
          if (datalen > 2) {
            d.print(' mac 0x');
            for (let i = 2; i < datalen; i++) {
              check = lencheck(i + 1);
              if (check !== 'ok') break;
              d.print(hex2(d.u8(cp + i)));
            }
          }
        }
        break;
      case 0:
      case 1:
      case 4:
        break;
      case 28: {
        // uto
        datalen = 2;
        check = lencheck(datalen);
        if (check !== 'ok') break;
        const raw = d.u16(cp);
        d.print(` 0x${raw.toString(16)} ${(raw & 1) !== 0 ? (raw >>> 1) * 60 : raw >>> 1}`);
        break;
      }
      case 34: // tfo
        datalen = len - 2;
        check = lencheck(datalen);
        if (check !== 'ok') break;
        d.print(' ');
        fastOpenPrint(d, cp, datalen, false);
        break;
      case 254: {
        datalen = len - 2;
        check = lencheck(datalen);
        if (check !== 'ok') break;
        if (datalen < 2) {
          check = 'bad';
          break;
        }
        const magic = d.u16(cp);
        d.print('-');
        if (magic === 0xf989) fastOpenPrint(d, cp + 2, datalen - 2, true);
        else d.print(hex4(magic));
        break;
      }
      default:
        datalen = len - 2;
        if (datalen > 0) d.print(' 0x');
        for (let i = 0; i < datalen; i++) {
          check = lencheck(i + 1);
          if (check !== 'ok') break;
          d.print(hex2(d.u8(cp + i)));
        }
        break;
    }
    if (check === 'bad') return bad();
    if (check === 'trunc') return trunc();
    cp += datalen;
    hlen -= datalen;
    datalen += opt === 0 || opt === 1 ? 1 : 2;
    if (datalen !== len) d.print(`[len ${len}]`);
    separator = ',';
    if (opt === 0) break;
  }
  d.print(']');
  return true;
}

function fastOpenPrint(d: Dissector, at: number, datalen: number, experimental: boolean): void {
  if (experimental) d.print('tfo');
  if (datalen === 0) {
    d.print(' cookiereq');
  } else if (datalen % 2 !== 0 || datalen < 4 || datalen > 16) {
    d.print(' (invalid)');
  } else {
    d.print(' cookie ');
    for (let i = 0; i < datalen; i++) d.print(hex2(d.u8(at + i)));
  }
}
