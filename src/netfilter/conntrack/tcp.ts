// The TCP tracker: the kernel's tcp_conntracks state machine, tcp_in_window sequence/window tracking and timeout choice, over the table's per-entry state; no SYN proxy, no NAT sequence adjustment, no per-rule timeout policies.
//
// Mirrors net/netfilter/nf_conntrack_proto_tcp.c (Linux 6.x): nf_conntrack_tcp_packet,
// tcp_new, tcp_error, tcp_in_window, tcp_init_sender, tcp_options, tcp_sack,
// nf_tcp_handle_invalid and tcp_can_early_drop. What is modelled exactly: the state table,
// the ignore/resync logic (last_index, last_dir, last_seq, last_end, last_win, last_wscale,
// last_flags), window tracking per direction (td_end, td_maxend, td_maxwin, td_maxack, td_scale,
// flags), retransmission counting, RST validation, the timeout ladder (RETRANS, CLOSE on RST,
// UNACK, last_win == 0) and ASSURED. Differences: nf_ct_seq_offset is always 0 (no seqadj);
// the SYN-proxy keep-alive case is absent; the checksum is verified only when asked (see
// ConntrackSettings.checksum); nothing is logged for invalid packets.
//
// State in the table's 56-byte proto area of an entry (see table.ts):
//   i32 words 0-3 / 4-7   seen[ORIGINAL] / seen[REPLY]: td_end, td_maxend, td_maxwin, td_maxack
//   i32 words 8, 9, 10    last_seq, last_ack, last_end
//   bytes 44-53           state, last_dir, last_index, retrans, last_wscale, last_flags,
//                         td_scale[2], flags[2]
//   u16 at byte 54        last_win

import { checksumIsValid, pseudoHeaderSum } from '../../wire/checksum.ts';
import {
  type ConnTable,
  DIR_ORIGINAL,
  DIR_REPLY,
  IPCT_ASSURED,
  IPCT_PROTOINFO,
  IPS_ASSURED,
  IPS_CONFIRMED,
  IPS_FIXED_TIMEOUT,
  IPS_SEEN_REPLY,
  TCP_WORDS,
  TRACK_ACCEPT,
  TRACK_INVALID,
  TRACK_REPEAT,
} from './table.ts';
import { IPPROTO_TCP } from './tuple.ts';

// enum tcp_conntrack
export const TCP_CONNTRACK_NONE = 0;
export const TCP_CONNTRACK_SYN_SENT = 1;
export const TCP_CONNTRACK_SYN_RECV = 2;
export const TCP_CONNTRACK_ESTABLISHED = 3;
export const TCP_CONNTRACK_FIN_WAIT = 4;
export const TCP_CONNTRACK_CLOSE_WAIT = 5;
export const TCP_CONNTRACK_LAST_ACK = 6;
export const TCP_CONNTRACK_TIME_WAIT = 7;
export const TCP_CONNTRACK_CLOSE = 8;
export const TCP_CONNTRACK_SYN_SENT2 = 9;
export const TCP_CONNTRACK_MAX = 10;
export const TCP_CONNTRACK_IGNORE = 11;
export const TCP_CONNTRACK_RETRANS = 12;
export const TCP_CONNTRACK_UNACK = 13;
export const TCP_CONNTRACK_TIMEOUT_MAX = 14;

/** tcp_conntrack_names, as /proc and conntrack -L print them. */
export const TCP_STATE_NAMES = [
  'NONE',
  'SYN_SENT',
  'SYN_RECV',
  'ESTABLISHED',
  'FIN_WAIT',
  'CLOSE_WAIT',
  'LAST_ACK',
  'TIME_WAIT',
  'CLOSE',
  'SYN_SENT2',
] as const;
export type TcpStateName = (typeof TCP_STATE_NAMES)[number];

/** Linux's default tcp_timeouts in seconds, indexed by TCP_CONNTRACK_* (sysctl nf_conntrack_tcp_timeout_*). */
export const TCP_DEFAULT_TIMEOUTS_SEC: readonly number[] = [
  0, // NONE (never used)
  120, // SYN_SENT
  60, // SYN_RECV
  432_000, // ESTABLISHED (5 days)
  120, // FIN_WAIT
  60, // CLOSE_WAIT
  30, // LAST_ACK
  120, // TIME_WAIT
  10, // CLOSE
  120, // SYN_SENT2
  0, // MAX
  0, // IGNORE
  300, // RETRANS
  300, // UNACK
];

// IP_CT_TCP_FLAG_* (include/uapi/linux/netfilter/nf_conntrack_tcp.h)
export const IP_CT_TCP_FLAG_WINDOW_SCALE = 0x01;
export const IP_CT_TCP_FLAG_SACK_PERM = 0x02;
export const IP_CT_TCP_FLAG_CLOSE_INIT = 0x04;
export const IP_CT_TCP_FLAG_BE_LIBERAL = 0x08;
export const IP_CT_TCP_FLAG_DATA_UNACKNOWLEDGED = 0x10;
export const IP_CT_TCP_FLAG_MAXACK_SET = 0x20;
export const IP_CT_EXP_CHALLENGE_ACK = 0x40;
export const IP_CT_TCP_SIMULTANEOUS_OPEN = 0x80;

/** The TCP sysctls of one network namespace (net.netfilter.nf_conntrack_tcp_*). */
export interface TcpSettings {
  /** Timeouts in ns indexed by TCP_CONNTRACK_* (RETRANS and UNACK included). */
  readonly timeouts: Float64Array;
  /** nf_conntrack_tcp_be_liberal: only out-of-window RSTs are INVALID. Default false. */
  beLiberal: boolean;
  /** nf_conntrack_tcp_loose: pick up connections from a mid-stream ACK. Default true. */
  loose: boolean;
  /** nf_conntrack_tcp_max_retrans. Default 3. */
  maxRetrans: number;
  /** nf_conntrack_tcp_ignore_invalid_rst. Default false. */
  ignoreInvalidRst: boolean;
}

export function defaultTcpSettings(): TcpSettings {
  return {
    timeouts: Float64Array.from(TCP_DEFAULT_TIMEOUTS_SEC, (s) => s * 1_000_000_000),
    beLiberal: false,
    loose: true,
    maxRetrans: 3,
    ignoreInvalidRst: false,
  };
}

// enum tcp_bit_set
const TCP_SYN_SET = 0;
const TCP_SYNACK_SET = 1;
const TCP_FIN_SET = 2;
const TCP_ACK_SET = 3;
const TCP_RST_SET = 4;
const TCP_NONE_SET = 5;

const sNO = TCP_CONNTRACK_NONE;
const sSS = TCP_CONNTRACK_SYN_SENT;
const sSR = TCP_CONNTRACK_SYN_RECV;
const sES = TCP_CONNTRACK_ESTABLISHED;
const sFW = TCP_CONNTRACK_FIN_WAIT;
const sCW = TCP_CONNTRACK_CLOSE_WAIT;
const sLA = TCP_CONNTRACK_LAST_ACK;
const sTW = TCP_CONNTRACK_TIME_WAIT;
const sCL = TCP_CONNTRACK_CLOSE;
const sS2 = TCP_CONNTRACK_SYN_SENT2;
const sIV = TCP_CONNTRACK_MAX;
const sIG = TCP_CONNTRACK_IGNORE;

/** tcp_conntracks[dir][index][old_state], flattened: dir * 60 + index * 10 + state. */
// biome-ignore format: the kernel's table layout
const TCP_CONNTRACKS = Uint8Array.from([
  // ORIGINAL   sNO  sSS  sSR  sES  sFW  sCW  sLA  sTW  sCL  sS2
  /* syn    */ sSS, sSS, sIG, sIG, sIG, sIG, sIG, sSS, sSS, sS2,
  /* synack */ sIV, sIV, sSR, sIV, sIV, sIV, sIV, sIV, sIV, sSR,
  /* fin    */ sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV,
  /* ack    */ sES, sIV, sES, sES, sCW, sCW, sTW, sTW, sCL, sIV,
  /* rst    */ sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL,
  /* none   */ sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV,
  // REPLY
  /* syn    */ sIV, sS2, sIV, sIV, sIV, sIV, sIV, sSS, sIV, sS2,
  /* synack */ sIV, sSR, sIG, sIG, sIG, sIG, sIG, sIG, sIG, sSR,
  /* fin    */ sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV,
  /* ack    */ sIV, sIG, sSR, sES, sCW, sCW, sTW, sTW, sCL, sIG,
  /* rst    */ sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL,
  /* none   */ sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV,
]);

/** The state the kernel's table moves to (exported for tests). */
export function tcpTransition(dir: number, flagsByte: number, oldState: number): number {
  return TCP_CONNTRACKS[dir * 60 + conntrackIndex(flagsByte) * 10 + oldState]!;
}

const TH_FIN = 0x01;
const TH_SYN = 0x02;
const TH_RST = 0x04;
const TH_PSH = 0x08;
const TH_ACK = 0x10;
const TH_URG = 0x20;
const TH_ECE = 0x40;
const TH_CWR = 0x80;

/** tcp_valid_flags: the combinations of FIN, SYN, RST, ACK and URG that tcp_error accepts. */
const TCP_VALID_FLAGS = new Uint8Array(64);
for (const flags of [
  TH_SYN,
  TH_SYN | TH_URG,
  TH_SYN | TH_ACK,
  TH_RST,
  TH_RST | TH_ACK,
  TH_FIN | TH_ACK,
  TH_FIN | TH_ACK | TH_URG,
  TH_ACK,
  TH_ACK | TH_URG,
]) {
  TCP_VALID_FLAGS[flags] = 1;
}

const TCP_HEADER_LEN = 20;
const TCP_MAX_WSCALE = 14;
const MAXACKWINCONST = 66000;
const TCPOPT_EOL = 0;
const TCPOPT_NOP = 1;
const TCPOPT_WINDOW = 3;
const TCPOPT_SACK_PERM = 4;
const TCPOPT_SACK = 5;
const TCPOPT_TIMESTAMP = 8;
const TCPOLEN_WINDOW = 3;
const TCPOLEN_SACK_PERM = 2;
const TCPOLEN_SACK_BASE = 2;
const TCPOLEN_SACK_PERBLOCK = 8;
const TCPOLEN_TIMESTAMP = 10;
const TCPOLEN_TSTAMP_ALIGNED = 12;

// Layout of an entry's TCP slot from table.tcpBase (words of tcp32, bytes of tcp8 from base * 4, halfwords of tcp16 from base * 2).
const W_SEEN = 0; // + dir * 4: td_end, td_maxend, td_maxwin, td_maxack
const W_LAST_SEQ = 8;
const W_LAST_ACK = 9;
const W_LAST_END = 10;
const B_STATE = 44;
const B_LAST_DIR = 45;
const B_LAST_INDEX = 46;
const B_RETRANS = 47;
const B_LAST_WSCALE = 48;
const B_LAST_FLAGS = 49;
const B_SCALE = 50; // + dir
const B_FLAGS = 52; // + dir
const H_LAST_WIN = 27;

function conntrackIndex(flags: number): number {
  // get_conntrack_index
  if ((flags & TH_RST) !== 0) return TCP_RST_SET;
  if ((flags & TH_SYN) !== 0) return (flags & TH_ACK) !== 0 ? TCP_SYNACK_SET : TCP_SYN_SET;
  if ((flags & TH_FIN) !== 0) return TCP_FIN_SET;
  if ((flags & TH_ACK) !== 0) return TCP_ACK_SET;
  return TCP_NONE_SET;
}

/** before() of include/net/tcp.h: seq1 precedes seq2 in 32-bit sequence space. */
function before(seq1: number, seq2: number): boolean {
  return ((seq1 - seq2) | 0) < 0;
}

function after(seq1: number, seq2: number): boolean {
  return ((seq2 - seq1) | 0) < 0;
}

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/**
 * tcp_options into a packed value: flags (WINDOW_SCALE, SACK_PERM) | td_scale << 8, or -1 when
 * the header has no options (the kernel then leaves the state untouched).
 */
function parseOptions(buf: Uint8Array, dataoff: number, doff: number): number {
  let length = doff - TCP_HEADER_LEN;
  if (length <= 0) return -1;
  let at = dataoff + TCP_HEADER_LEN;
  let flags = 0;
  let scale = 0;
  while (length > 0) {
    const opcode = buf[at++]!;
    if (opcode === TCPOPT_EOL) break;
    if (opcode === TCPOPT_NOP) {
      length--;
      continue;
    }
    if (length < 2) break;
    const opsize = buf[at++]!;
    if (opsize < 2 || opsize > length) break; // "silly options", partial options
    if (opcode === TCPOPT_SACK_PERM && opsize === TCPOLEN_SACK_PERM) {
      flags |= IP_CT_TCP_FLAG_SACK_PERM;
    } else if (opcode === TCPOPT_WINDOW && opsize === TCPOLEN_WINDOW) {
      scale = Math.min(buf[at]!, TCP_MAX_WSCALE);
      flags |= IP_CT_TCP_FLAG_WINDOW_SCALE;
    }
    at += opsize - 2;
    length -= opsize;
  }
  return flags | (scale << 8);
}

/** tcp_options applied to seen[dir]: td_scale and the option flags (BE_LIBERAL survives). */
function applyOptions(p8: Uint8Array, b: number, dir: number, packed: number): void {
  if (packed < 0) return;
  p8[b + B_SCALE + dir] = packed >>> 8;
  p8[b + B_FLAGS + dir] = (p8[b + B_FLAGS + dir]! & IP_CT_TCP_FLAG_BE_LIBERAL) | (packed & 0xff);
}

/** tcp_sack: the highest right edge of the SACK blocks that is after `sack`. */
function highestSack(buf: Uint8Array, dataoff: number, doff: number, sack: number): number {
  let length = doff - TCP_HEADER_LEN;
  if (length <= 0) return sack;
  let at = dataoff + TCP_HEADER_LEN;
  // Fast path for the timestamp-only option (NOP, NOP, TS).
  if (
    length === TCPOLEN_TSTAMP_ALIGNED &&
    buf[at] === TCPOPT_NOP &&
    buf[at + 1] === TCPOPT_NOP &&
    buf[at + 2] === TCPOPT_TIMESTAMP &&
    buf[at + 3] === TCPOLEN_TIMESTAMP
  ) {
    return sack;
  }
  let result = sack;
  while (length > 0) {
    const opcode = buf[at++]!;
    if (opcode === TCPOPT_EOL) return result;
    if (opcode === TCPOPT_NOP) {
      length--;
      continue;
    }
    if (length < 2) return result;
    const opsize = buf[at++]!;
    if (opsize < 2 || opsize > length) return result;
    if (
      opcode === TCPOPT_SACK &&
      opsize >= TCPOLEN_SACK_BASE + TCPOLEN_SACK_PERBLOCK &&
      (opsize - TCPOLEN_SACK_BASE) % TCPOLEN_SACK_PERBLOCK === 0
    ) {
      for (let i = 0; i < opsize - TCPOLEN_SACK_BASE; i += TCPOLEN_SACK_PERBLOCK) {
        const edge = readU32(buf, at + i + 4);
        if (after(edge, result)) result = edge;
      }
      return result;
    }
    at += opsize - 2;
    length -= opsize;
  }
  return result;
}

/** The TCP state of an entry (TCP_CONNTRACK_*). */
export function tcpState(table: ConnTable, index: number): number {
  const w = table.tcpBase(index);
  return w < 0 ? 0 : table.tcp8[w * 4 + B_STATE]!;
}

/** tcp_can_early_drop: closing states may be evicted near nf_conntrack_max even when ASSURED. */
export function tcpCanEarlyDrop(table: ConnTable, index: number): boolean {
  if (table.protocol(index) !== IPPROTO_TCP) return false;
  const state = tcpState(table, index);
  return state === sFW || state === sLA || state === sTW || state === sCL || state === sCW;
}

/** Window data of one direction, for tests and debugging. */
export interface TcpWindowState {
  readonly tdEnd: number;
  readonly tdMaxEnd: number;
  readonly tdMaxWin: number;
  readonly tdMaxAck: number;
  readonly tdScale: number;
  readonly flags: number;
}

export function tcpWindow(table: ConnTable, index: number, dir: number): TcpWindowState {
  const base = table.tcpBase(index);
  const w = base + W_SEEN + dir * 4;
  const b = base * 4;
  const p32 = table.tcp32;
  return {
    tdEnd: p32[w]! >>> 0,
    tdMaxEnd: p32[w + 1]! >>> 0,
    tdMaxWin: p32[w + 2]! >>> 0,
    tdMaxAck: p32[w + 3]! >>> 0,
    tdScale: table.tcp8[b + B_SCALE + dir]!,
    flags: table.tcp8[b + B_FLAGS + dir]!,
  };
}

/** The segment as one call sees it. */
interface Segment {
  seq: number;
  ackSeq: number;
  flags: number;
  window: number;
  doff: number;
  /** segment_seq_plus_len: seq + payload length + SYN + FIN. */
  end: number;
}

const segment: Segment = { seq: 0, ackSeq: 0, flags: 0, window: 0, doff: 0, end: 0 };

/**
 * nf_conntrack_tcp_packet for the segment at `dataoff` (the IPv4 payload, `end` its end) of
 * entry `index` travelling in `dir`. Returns TRACK_ACCEPT, TRACK_INVALID (the packet keeps no
 * conntrack; an unconfirmed entry is freed by the caller) or TRACK_REPEAT (the old entry was
 * killed to reopen a closed connection: look up again). The checksum (over the pseudo-header of
 * the IPv4 header at `nhoff`) is verified only when `verifyChecksum`.
 */
export function tcpPacket(
  table: ConnTable,
  index: number,
  dir: number,
  buf: Uint8Array,
  nhoff: number,
  dataoff: number,
  end: number,
  verifyChecksum: boolean,
  settings: TcpSettings,
  now: number,
): number {
  // tcp_error
  const tcplen = end - dataoff;
  if (tcplen < TCP_HEADER_LEN) return TRACK_INVALID;
  const doff = (buf[dataoff + 12]! >>> 4) * 4;
  if (doff < TCP_HEADER_LEN || tcplen < doff) return TRACK_INVALID;
  if (
    verifyChecksum &&
    !checksumIsValid(
      buf,
      dataoff,
      end,
      pseudoHeaderSum(readU32(buf, nhoff + 12), readU32(buf, nhoff + 16), IPPROTO_TCP, tcplen),
    )
  ) {
    return TRACK_INVALID;
  }
  const flags = buf[dataoff + 13]!;
  if (TCP_VALID_FLAGS[flags & ~(TH_ECE | TH_CWR | TH_PSH) & 0x3f] === 0) return TRACK_INVALID;

  const th = segment;
  th.seq = readU32(buf, dataoff + 4);
  th.ackSeq = readU32(buf, dataoff + 8);
  th.flags = flags;
  th.window = (buf[dataoff + 14]! << 8) | buf[dataoff + 15]!;
  th.doff = doff;
  th.end =
    (th.seq + (tcplen - doff) + ((flags & TH_SYN) !== 0 ? 1 : 0) + ((flags & TH_FIN) !== 0 ? 1 : 0)) >>> 0;

  const confirmed = (table.status(index) & IPS_CONFIRMED) !== 0;
  if (!confirmed && !tcpNew(table, index, buf, dataoff, th, settings)) return TRACK_INVALID;

  const p32 = table.tcp32;
  const p16 = table.tcp16;
  const p8 = table.tcp8;
  const w = table.tcpBase(index);
  const b = w * 4;
  const other = 1 - dir;

  let oldState = p8[b + B_STATE]!;
  const bitIndex = conntrackIndex(flags);
  let newState = TCP_CONNTRACKS[dir * 60 + bitIndex * 10 + oldState]!;
  let skipWindow = false;
  let ignore = newState === sIG;

  switch (newState) {
    case sSS:
      if (oldState < sTW) break;
      // RFC 1122 reopening from TIME_WAIT or CLOSE, or a client aborting and starting over.
      if (
        ((p8[b + B_FLAGS + dir]! | p8[b + B_FLAGS + other]!) & IP_CT_TCP_FLAG_CLOSE_INIT) !== 0 ||
        (p8[b + B_LAST_DIR] === dir && p8[b + B_LAST_INDEX] === TCP_RST_SET)
      ) {
        return table.kill(index, now) ? TRACK_REPEAT : TRACK_INVALID;
      }
      ignore = true;
      break;
    case sIV:
      return TRACK_INVALID;
    case sTW:
      // RFC 5961 challenge ACK answering a SYN in LAST_ACK: do not take it as the last ACK.
      if (
        oldState === sLA &&
        bitIndex === TCP_ACK_SET &&
        p8[b + B_LAST_DIR] !== dir &&
        p8[b + B_LAST_INDEX] === TCP_SYN_SET &&
        (p8[b + B_LAST_FLAGS]! & IP_CT_EXP_CHALLENGE_ACK) !== 0
      ) {
        p8[b + B_LAST_FLAGS] = p8[b + B_LAST_FLAGS]! & ~IP_CT_EXP_CHALLENGE_ACK;
        return TRACK_ACCEPT;
      }
      break;
    case sS2:
      p8[b + B_LAST_FLAGS] = p8[b + B_LAST_FLAGS]! | IP_CT_TCP_SIMULTANEOUS_OPEN;
      break;
    case sSR:
      if (
        dir === DIR_REPLY &&
        bitIndex === TCP_ACK_SET &&
        (p8[b + B_LAST_FLAGS]! & IP_CT_TCP_SIMULTANEOUS_OPEN) !== 0
      ) {
        newState = sES;
      }
      break;
    case sCL: {
      if (bitIndex !== TCP_RST_SET) break;
      if (tcpCanEarlyDrop(table, index)) {
        skipWindow = true;
        break;
      }
      const seq = th.seq;
      if (
        (p8[b + B_FLAGS + other]! & IP_CT_TCP_FLAG_MAXACK_SET) !== 0 &&
        p8[b + B_LAST_INDEX] !== TCP_SYN_SET
      ) {
        const maxack = p32[w + W_SEEN + other * 4 + 3]!;
        const established = oldState === sES && (table.status(index) & IPS_ASSURED) !== 0;
        if (seq === 0 && !established) break;
        if (before(seq, maxack) && !settings.ignoreInvalidRst) return TRACK_INVALID; // invalid rst
        if (!established || seq === maxack >>> 0) break;
        if (
          p8[b + B_LAST_INDEX] === TCP_ACK_SET &&
          p8[b + B_LAST_DIR] === dir &&
          seq === p32[w + W_LAST_END]! >>> 0
        ) {
          break;
        }
        // The RST does not match exactly: keep the state to allow a challenge ACK.
        newState = oldState;
      }
      const status = table.status(index);
      const lastIndex = p8[b + B_LAST_INDEX]!;
      if (
        (((status & IPS_SEEN_REPLY) !== 0 && lastIndex === TCP_SYN_SET) ||
          ((status & IPS_ASSURED) === 0 && lastIndex === TCP_ACK_SET)) &&
        th.ackSeq === p32[w + W_LAST_END]! >>> 0
      ) {
        // RST answering a SYN or ACK we let through while ignoring: skip the window check.
        skipWindow = true;
        break;
      }
      if (
        oldState === sSS &&
        lastIndex === TCP_ACK_SET &&
        p8[b + B_LAST_DIR] === DIR_REPLY &&
        seq === p32[w + W_LAST_ACK]! >>> 0
      ) {
        skipWindow = true; // reset in response to a challenge ACK we let through
      }
      break;
    }
    default:
      break;
  }

  if (ignore) {
    // Our entry may be out of sync: let the packet through without changing the state, and
    // remember it, so that an answering SYN/ACK can resynchronise us.
    const lastDir = p8[b + B_LAST_DIR]!;
    if (
      bitIndex === TCP_SYNACK_SET &&
      p8[b + B_LAST_INDEX] === TCP_SYN_SET &&
      lastDir !== dir &&
      th.ackSeq === p32[w + W_LAST_END]! >>> 0
    ) {
      // b) The SYN/ACK acknowledges a SYN we ignored: client and server are in sync, we are not.
      oldState = sSS;
      newState = sSR;
      const lw = w + W_SEEN + lastDir * 4;
      p32[lw] = p32[w + W_LAST_END]!;
      p32[lw + 1] = p32[w + W_LAST_END]!;
      const lastWin = p16[w * 2 + H_LAST_WIN]!;
      p32[lw + 2] = lastWin === 0 ? 1 : lastWin;
      p8[b + B_SCALE + lastDir] = p8[b + B_LAST_WSCALE]!;
      p8[b + B_LAST_FLAGS] = p8[b + B_LAST_FLAGS]! & ~IP_CT_EXP_CHALLENGE_ACK;
      p8[b + B_FLAGS + lastDir] = p8[b + B_LAST_FLAGS]!;
      // nf_ct_tcp_state_reset(&seen[dir])
      const dw = w + W_SEEN + dir * 4;
      p32[dw] = 0;
      p32[dw + 1] = 0;
      p32[dw + 2] = 0;
      p32[dw + 3] = 0;
      p8[b + B_SCALE + dir] = 0;
      p8[b + B_FLAGS + dir] = p8[b + B_FLAGS + dir]! & IP_CT_TCP_FLAG_BE_LIBERAL;
    } else {
      p8[b + B_LAST_INDEX] = bitIndex;
      p8[b + B_LAST_DIR] = dir;
      p32[w + W_LAST_SEQ] = th.seq;
      p32[w + W_LAST_END] = th.end;
      p16[w * 2 + H_LAST_WIN] = th.window;
      if (bitIndex === TCP_SYN_SET && dir === DIR_ORIGINAL) {
        // a) A SYN in ORIGINAL: note its options, for the SYN/ACK that may follow.
        const packed = parseOptions(buf, dataoff, doff);
        let lastFlags = 0;
        let lastWscale = 0;
        if (packed >= 0 && (packed & IP_CT_TCP_FLAG_WINDOW_SCALE) !== 0) {
          lastFlags |= IP_CT_TCP_FLAG_WINDOW_SCALE;
          lastWscale = packed >>> 8;
        }
        if (packed >= 0 && (packed & IP_CT_TCP_FLAG_SACK_PERM) !== 0) lastFlags |= IP_CT_TCP_FLAG_SACK_PERM;
        // A challenge ACK may answer it; in LAST_ACK that ACK must not be taken as the last one.
        if (oldState === sLA) lastFlags |= IP_CT_EXP_CHALLENGE_ACK;
        p8[b + B_LAST_FLAGS] = lastFlags;
        p8[b + B_LAST_WSCALE] = lastWscale;
      }
      // A possible challenge ACK answering a SYN.
      if (oldState === sSS && bitIndex === TCP_ACK_SET && dir === DIR_REPLY) p32[w + W_LAST_ACK] = th.ackSeq;
      return TRACK_ACCEPT;
    }
  }

  if (!skipWindow) {
    const verdict = tcpInWindow(table, index, dir, bitIndex, buf, dataoff, th, oldState, settings);
    if (verdict === WINDOW_IGNORE) return TRACK_ACCEPT;
    if (verdict === WINDOW_INVALID) {
      handleInvalid(table, index, dir, bitIndex, settings, now);
      return TRACK_INVALID;
    }
  }

  // in_window: from now on the packet is in window.
  p8[b + B_LAST_INDEX] = bitIndex;
  p8[b + B_LAST_DIR] = dir;
  p8[b + B_STATE] = newState;
  if (oldState !== newState && newState === sFW) {
    p8[b + B_FLAGS + dir] = p8[b + B_FLAGS + dir]! | IP_CT_TCP_FLAG_CLOSE_INIT;
  }

  const timeouts = settings.timeouts;
  let timeout: number;
  if (p8[b + B_RETRANS]! >= settings.maxRetrans && timeouts[newState]! > timeouts[TCP_CONNTRACK_RETRANS]!) {
    timeout = timeouts[TCP_CONNTRACK_RETRANS]!;
  } else if (bitIndex === TCP_RST_SET) {
    timeout = timeouts[TCP_CONNTRACK_CLOSE]!;
  } else if (
    ((p8[b + B_FLAGS]! | p8[b + B_FLAGS + 1]!) & IP_CT_TCP_FLAG_DATA_UNACKNOWLEDGED) !== 0 &&
    timeouts[newState]! > timeouts[TCP_CONNTRACK_UNACK]!
  ) {
    timeout = timeouts[TCP_CONNTRACK_UNACK]!;
  } else if (p16[w * 2 + H_LAST_WIN] === 0 && timeouts[newState]! > timeouts[TCP_CONNTRACK_RETRANS]!) {
    timeout = timeouts[TCP_CONNTRACK_RETRANS]!;
  } else {
    timeout = timeouts[newState]!;
  }

  if (newState !== oldState) table.cacheEvent(index, IPCT_PROTOINFO);

  const status = table.status(index);
  if ((status & IPS_SEEN_REPLY) === 0) {
    // If the only reply is a RST, there is no connection: delete the entry at once.
    if ((flags & TH_RST) !== 0) {
      table.kill(index, now);
      return TRACK_ACCEPT;
    }
    // Do not renew the timeout on a SYN retransmit (port reuse could keep the entry forever).
    if (bitIndex === TCP_SYN_SET && oldState === sSS) return TRACK_ACCEPT;
    // ESTABLISHED without SEEN_REPLY is a loose pick-up: no 5-day timeout.
    if (newState === sES && timeout > timeouts[TCP_CONNTRACK_UNACK]!)
      timeout = timeouts[TCP_CONNTRACK_UNACK]!;
  } else if ((status & IPS_ASSURED) === 0 && (oldState === sSR || oldState === sES) && newState === sES) {
    // A valid ACK in ESTABLISHED after SYN_RECV, or a valid answer to a picked-up connection.
    table.setStatus(index, IPS_ASSURED);
    table.cacheEvent(index, IPCT_ASSURED);
  }
  table.refresh(index, timeout, now);
  return TRACK_ACCEPT;
}

/** tcp_new: whether a first packet may create an entry, and the window state it starts with. */
function tcpNew(
  table: ConnTable,
  index: number,
  buf: Uint8Array,
  dataoff: number,
  th: Segment,
  settings: TcpSettings,
): boolean {
  const newState = TCP_CONNTRACKS[conntrackIndex(th.flags) * 10 + sNO]!;
  if (newState >= TCP_CONNTRACK_MAX) return false;
  const p32 = table.tcp32;
  const p8 = table.tcp8;
  const w = table.tcpBase(index);
  const b = w * 4;
  for (let k = w; k < w + TCP_WORDS; k++) p32[k] = 0;
  const maxwin = th.window === 0 ? 1 : th.window;
  if (newState === sSS) {
    p32[w + W_SEEN] = th.end;
    p32[w + W_SEEN + 2] = maxwin;
    p32[w + W_SEEN + 1] = th.end;
    applyOptions(p8, b, DIR_ORIGINAL, parseOptions(buf, dataoff, th.doff));
  } else if (!settings.loose) {
    return false;
  } else {
    // Mid-stream pick-up: the history is lost, use what the packet says, assume SACK and be liberal.
    p32[w + W_SEEN] = th.end;
    p32[w + W_SEEN + 2] = maxwin;
    p32[w + W_SEEN + 1] = th.end + maxwin;
    p8[b + B_FLAGS] = IP_CT_TCP_FLAG_SACK_PERM | IP_CT_TCP_FLAG_BE_LIBERAL;
    p8[b + B_FLAGS + 1] = IP_CT_TCP_FLAG_SACK_PERM | IP_CT_TCP_FLAG_BE_LIBERAL;
  }
  p8[b + B_LAST_INDEX] = TCP_NONE_SET;
  return true;
}

const WINDOW_IGNORE = 0;
const WINDOW_INVALID = 1;
const WINDOW_ACCEPT = 2;

/** tcp_init_sender: a SYN/ACK answering a SYN, or a SYN from the reply side in a simultaneous open. */
function initSender(
  p32: Int32Array,
  p8: Uint8Array,
  w: number,
  b: number,
  dir: number,
  buf: Uint8Array,
  dataoff: number,
  th: Segment,
): void {
  const sw = w + W_SEEN + dir * 4;
  p32[sw] = th.end;
  p32[sw + 1] = th.end;
  p32[sw + 2] = th.window === 0 ? 1 : th.window;
  applyOptions(p8, b, dir, parseOptions(buf, dataoff, th.doff));
  // RFC 1323: window scaling only when both sides send the option.
  const other = 1 - dir;
  if (
    dir === DIR_REPLY &&
    !(
      (p8[b + B_FLAGS + dir]! & IP_CT_TCP_FLAG_WINDOW_SCALE) !== 0 &&
      (p8[b + B_FLAGS + other]! & IP_CT_TCP_FLAG_WINDOW_SCALE) !== 0
    )
  ) {
    p8[b + B_SCALE + dir] = 0;
    p8[b + B_SCALE + other] = 0;
  }
}

/** nf_tcp_log_invalid: with be_liberal (the sysctl or the sender's flag) everything passes. */
function logInvalid(p8: Uint8Array, b: number, dir: number, settings: TcpSettings, verdict: number): number {
  if (settings.beLiberal || (p8[b + B_FLAGS + dir]! & IP_CT_TCP_FLAG_BE_LIBERAL) !== 0) return WINDOW_ACCEPT;
  return verdict;
}

/** tcp_in_window: the sequence and acknowledgement checks, then the window bookkeeping. */
function tcpInWindow(
  table: ConnTable,
  index: number,
  dir: number,
  bitIndex: number,
  buf: Uint8Array,
  dataoff: number,
  th: Segment,
  state: number,
  settings: TcpSettings,
): number {
  const p32 = table.tcp32;
  const p16 = table.tcp16;
  const p8 = table.tcp8;
  const w = table.tcpBase(index);
  const b = w * 4;
  const other = 1 - dir;
  const sw = w + W_SEEN + dir * 4; // sender
  const rw = w + W_SEEN + other * 4; // receiver
  const flags = th.flags;
  const isSyn = (flags & TH_SYN) !== 0;
  const isAck = (flags & TH_ACK) !== 0;
  const isRst = (flags & TH_RST) !== 0;

  let seq = th.seq;
  let ack = th.ackSeq;
  let sack = ack;
  const winRaw = th.window;
  let win = winRaw;
  let end = th.end;

  if ((p8[b + B_FLAGS + other]! & IP_CT_TCP_FLAG_SACK_PERM) !== 0)
    sack = highestSack(buf, dataoff, th.doff, sack);

  if (p32[sw + 2] === 0) {
    // Initialise the sender's data.
    if (isSyn) {
      initSender(p32, p8, w, b, dir, buf, dataoff, th);
      if (!isAck) return WINDOW_ACCEPT; // simultaneous open
    } else {
      // Mid-connection: the history is lost, use the packet.
      p32[sw] = end;
      const swin = (win << p8[b + B_SCALE + dir]!) >>> 0;
      p32[sw + 2] = swin === 0 ? 1 : swin;
      p32[sw + 1] = end + (p32[sw + 2]! >>> 0);
      if (p32[rw + 2] === 0) {
        // No traffic the other way yet: make III and IV pass until there is.
        p32[rw] = sack;
        p32[rw + 1] = sack;
      } else if (sack === (p32[rw]! + 1) >>> 0) {
        p32[rw] = p32[rw]! + 1; // likely a reply to a keepalive
      }
    }
  } else if (isSyn && after(end, p32[sw]!) && (state === sSS || state === sSR)) {
    // RFC 793: a reinitialised TCP may reuse the connection with higher sequence numbers.
    initSender(p32, p8, w, b, dir, buf, dataoff, th);
    if (dir === DIR_REPLY && !isAck) return WINDOW_ACCEPT;
  }

  if (!isAck) {
    ack = p32[rw]! >>> 0;
    sack = ack;
  } else if ((flags & (TH_ACK | TH_RST)) === (TH_ACK | TH_RST) && ack === 0) {
    // Broken stacks send RST+ACK with a zero acknowledgement.
    ack = p32[rw]! >>> 0;
    sack = ack;
  }

  if (isRst && seq === 0 && state === sSS) {
    // RST answering a SYN.
    seq = p32[sw]! >>> 0;
    end = seq;
  }

  const senderMaxwin = p32[sw + 2]! >>> 0;
  const maxAckWindow = Math.max(senderMaxwin, MAXACKWINCONST);
  const receiverMaxwin = p32[rw + 2]! >>> 0;

  if (!before(seq, p32[sw + 1]! + 1)) {
    const overshot = (end - p32[sw + 1]! + 1) >>> 0;
    const ackOk = after(sack, p32[rw]! - maxAckWindow - 1);
    const inRecvWin = receiverMaxwin !== 0 && after(end, p32[sw]! - receiverMaxwin - 1);
    if (inRecvWin && ackOk && overshot <= receiverMaxwin && before(sack, p32[rw]! + 1)) {
      // A TCP sending more than the receive window allows: note the data for the ACK to come.
      p32[sw] = end;
      p8[b + B_FLAGS + dir] = p8[b + B_FLAGS + dir]! | IP_CT_TCP_FLAG_DATA_UNACKNOWLEDGED;
      return logInvalid(p8, b, dir, settings, WINDOW_IGNORE);
    }
    return logInvalid(p8, b, dir, settings, WINDOW_INVALID); // SEQ is over the upper bound
  }
  if (!before(sack, p32[rw]! + 1)) return logInvalid(p8, b, dir, settings, WINDOW_INVALID); // ACK over upper bound
  const inRecvWin = receiverMaxwin === 0 || after(end, p32[sw]! - receiverMaxwin - 1);
  if (!inRecvWin) return logInvalid(p8, b, dir, settings, WINDOW_IGNORE); // SEQ under lower bound
  if (!after(sack, p32[rw]! - maxAckWindow - 1)) return logInvalid(p8, b, dir, settings, WINDOW_IGNORE);

  // Window scaling (RFC 1323).
  if (!isSyn) win = (win << p8[b + B_SCALE + dir]!) >>> 0;

  // Update the sender's data.
  const swin = (win + ((sack - ack) >>> 0)) >>> 0;
  if (p32[sw + 2]! >>> 0 < swin) p32[sw + 2] = swin;
  if (after(end, p32[sw]!)) {
    p32[sw] = end;
    p8[b + B_FLAGS + dir] = p8[b + B_FLAGS + dir]! | IP_CT_TCP_FLAG_DATA_UNACKNOWLEDGED;
  }
  if (isAck) {
    if ((p8[b + B_FLAGS + dir]! & IP_CT_TCP_FLAG_MAXACK_SET) === 0) {
      p32[sw + 3] = ack;
      p8[b + B_FLAGS + dir] = p8[b + B_FLAGS + dir]! | IP_CT_TCP_FLAG_MAXACK_SET;
    } else if (after(ack, p32[sw + 3]!)) {
      p32[sw + 3] = ack;
    }
  }

  // Update the receiver's data.
  if (p32[rw + 2] !== 0 && after(end, p32[sw + 1]!)) p32[rw + 2] = p32[rw + 2]! + ((end - p32[sw + 1]!) | 0);
  if (after(sack + win, p32[rw + 1]! - 1)) {
    p32[rw + 1] = sack + win;
    if (win === 0) p32[rw + 1] = p32[rw + 1]! + 1;
  }
  if (ack === p32[rw]! >>> 0)
    p8[b + B_FLAGS + other] = p8[b + B_FLAGS + other]! & ~IP_CT_TCP_FLAG_DATA_UNACKNOWLEDGED;

  // Retransmissions.
  if (bitIndex === TCP_ACK_SET) {
    const h = w * 2 + H_LAST_WIN;
    if (
      p8[b + B_LAST_DIR] === dir &&
      p32[w + W_LAST_SEQ]! >>> 0 === seq &&
      p32[w + W_LAST_ACK]! >>> 0 === ack &&
      p32[w + W_LAST_END]! >>> 0 === end &&
      p16[h] === winRaw
    ) {
      if (p8[b + B_RETRANS]! < 255) p8[b + B_RETRANS] = p8[b + B_RETRANS]! + 1;
    } else {
      p8[b + B_LAST_DIR] = dir;
      p32[w + W_LAST_SEQ] = seq;
      p32[w + W_LAST_ACK] = ack;
      p32[w + W_LAST_END] = end;
      p16[h] = winRaw;
      p8[b + B_RETRANS] = 0;
    }
  }
  return WINDOW_ACCEPT;
}

/**
 * nf_tcp_handle_invalid: an out-of-window FIN or RST answering the other side's FIN or RST
 * shortens an ASSURED entry's timeout to UNACK, so dead connections do not linger 5 days.
 */
function handleInvalid(
  table: ConnTable,
  index: number,
  dir: number,
  bitIndex: number,
  settings: TcpSettings,
  now: number,
): void {
  const status = table.status(index);
  if ((status & IPS_ASSURED) === 0 || (status & IPS_FIXED_TIMEOUT) !== 0) return;
  if (bitIndex !== TCP_RST_SET && bitIndex !== TCP_FIN_SET) return;
  const p8 = table.tcp8;
  const b = table.tcpBase(index) * 4;
  const lastIndex = p8[b + B_LAST_INDEX]!;
  if (p8[b + B_LAST_DIR] !== dir && (lastIndex === TCP_FIN_SET || lastIndex === TCP_RST_SET)) {
    const expires = table.timeout(index) - now;
    if (expires < 120 * 1_000_000_000) return;
    const unack = settings.timeouts[TCP_CONNTRACK_UNACK]!;
    if (expires > unack) table.setExpiry(index, now + unack);
  } else {
    p8[b + B_LAST_INDEX] = bitIndex;
    p8[b + B_LAST_DIR] = dir;
  }
}
