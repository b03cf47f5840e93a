// TCP receive-window arithmetic: the initial window and scale (tcp_select_initial_window), the clamp once established
// (tcp_init_buffer_space), the buffer-to-window scaling ratio re-measured from a segment's truesize
// (tcp_measure_rcv_mss, tcp_set_window_clamp), window growth (tcp_grow_window), the window each segment advertises
// (__tcp_select_window, tcp_select_window) and the receive MSS estimate delayed ACKs use (tcp_initialize_rcv_mss).
//
// The receive buffer is charged each queued segment's truesize, which packetlab models as the
// payload plus one fixed head (SEGMENT_OVERHEAD, measured on a veth); no memory pressure, no
// tcp_shrink_window. The buffer's growth by DRS (tcp_rcv_space_adjust) is rcv-autotune.ts.

/** TCP_MAX_WSCALE (RFC 7323). */
const MAX_WSCALE = 14;
/** TCP_MSS_DEFAULT: the MSS assumed for a peer before it proves otherwise. */
export const TCP_MSS_DEFAULT = 536;
/** TCP_MIN_MSS. */
const TCP_MIN_MSS = 88;
/** TCP_DEFAULT_SCALING_RATIO: a buffer byte backs half a window byte until a full segment is measured. */
export const DEFAULT_SCALING_RATIO = 128;
/** TCP_RMEM_TO_WIN_SCALE. */
const RMEM_TO_WIN_SCALE = 8;
/** SOCK_MIN_RCVBUF / 2 = TCP_SKB_MIN_TRUESIZE (2048 + the cache-aligned struct sk_buff): the smallest window clamp. */
const MIN_WINDOW_CLAMP = 2048 + 256;

/**
 * What a received segment costs the receive buffer beyond its payload (skb->truesize - len).
 * A segment crossing a veth is the sender's own skb: the payload sits in page fragments and the
 * head is SKB_TRUESIZE(256) = 256 + 256 (struct sk_buff, cache-aligned) + 320 (struct
 * skb_shared_info) = 832 bytes. Measured on Linux 6.18: ten 1448-byte segments queued on a socket
 * whose application does not read show `skmem:(r22800,...)` in `ss -m`, 2280 bytes each; the
 * scaling ratio becomes 1448 * 256 / 2280 = 162.
 */
export const SEGMENT_OVERHEAD = 832;

/** The receive side's window state, as tcp_sock keeps it. */
export interface ReceiveWindow {
  /** The window last advertised, in bytes. */
  rcvWnd: number;
  /** rcv_nxt when that window was advertised. */
  rcvWup: number;
  rcvNxt: number;
  rcvSsthresh: number;
  windowClamp: number;
  rcvWscale: number;
  /** tp->scaling_ratio: window bytes per 256 buffer bytes. */
  scalingRatio: number;
  /** sk_rcvbuf. */
  rcvbuf: number;
  /** sk_rmem_alloc: the truesize of what is queued and not yet read. */
  rmemAlloc: number;
}

/** tcp_win_from_space: the window a buffer of `space` bytes backs at the current scaling ratio. */
export function winFromSpace(state: ReceiveWindow, space: number): number {
  return Math.floor((space * state.scalingRatio) / 2 ** RMEM_TO_WIN_SCALE);
}

/** tcp_full_space: the window the whole receive buffer backs. */
export function fullSpace(state: ReceiveWindow): number {
  return winFromSpace(state, state.rcvbuf);
}

/** tcp_space: the window the free part of the receive buffer backs (negative when overcommitted). */
export function freeSpace(state: ReceiveWindow): number {
  return winFromSpace(state, state.rcvbuf - state.rmemAlloc);
}

export interface InitialWindow {
  /** The window the SYN or SYN-ACK offers (never scaled). */
  readonly rcvWnd: number;
  /** Our window scale shift (0 without window scaling). */
  readonly rcvWscale: number;
  /** The largest window we will ever offer. */
  readonly windowClamp: number;
}

/**
 * tcp_select_initial_window: `fullSpace` (tcp_full_space) rounded down to a multiple of `mss`; the scale is the one that fits the largest buffer the socket may grow to
 * (max of tcp_rmem[2] and rmem_max), ilog2(space) - 15. A `clamp` (nonzero when SO_RCVBUF locked
 * the buffer: tcp_connect_init and tcp_openreq_init_rwin clamp to tcp_full_space) bounds the
 * window, the space the scale must cover and the clamp returned.
 */
export function selectInitialWindow(
  fullSpace: number,
  mss: number,
  wscaleOk: boolean,
  maxBuffer: number,
  clamp = 0,
): InitialWindow {
  const windowClamp = clamp > 0 ? clamp : 0xffff * 2 ** MAX_WSCALE;
  let space = Math.min(fullSpace, windowClamp);
  if (space > mss) space = Math.floor(space / mss) * mss;
  // No 64 KiB cap since 6.10 ("tcp: remove 64 KByte limit for initial tp->rcv_wnd value"): the SYN's
  // header carries at most 65535, what follows may offer the rest.
  const rcvWnd = space;
  let rcvWscale = 0;
  if (wscaleOk) {
    const largest = Math.min(Math.max(space, maxBuffer), windowClamp);
    rcvWscale = Math.min(Math.max(Math.floor(Math.log2(largest)) - 15, 0), MAX_WSCALE);
  }
  return { rcvWnd, rcvWscale, windowClamp: Math.min(0xffff * 2 ** rcvWscale, windowClamp) };
}

/**
 * tcp_init_buffer_space's clamp once the connection is established: no more than the buffer
 * backs, less one segment kept in reserve (tcp_app_win, 31 by default); rcv_ssthresh starts at
 * the window offered, under that clamp. `advmss` is tp->advmss (the MSS we announced, less the
 * timestamp option when timestamps are on).
 */
export function initBufferSpace(state: ReceiveWindow, advmss: number, appWin: number): void {
  const maxwin = fullSpace(state);
  if (state.windowClamp >= maxwin) {
    state.windowClamp = maxwin;
    if (appWin > 0 && maxwin > 4 * advmss)
      state.windowClamp = Math.max(maxwin - Math.floor(maxwin / 2 ** appWin), 4 * advmss);
  }
  if (appWin > 0 && state.windowClamp > 2 * advmss && state.windowClamp + advmss > maxwin)
    state.windowClamp = Math.max(2 * advmss, maxwin - advmss);
  state.rcvSsthresh = Math.min(state.rcvWnd, state.windowClamp);
}

/**
 * The scaling-ratio part of tcp_measure_rcv_mss: a segment of at least rcv_mss bytes, of a size
 * not seen before, re-measures the ratio from its truesize; a new ratio resets the window clamp
 * to what the buffer backs (tcp_set_window_clamp).
 */
export function measureScalingRatio(state: ReceiveWindow, len: number, rcvMss: number): void {
  if (len < rcvMss || len === rcvMss) return;
  const ratio = Math.floor((len * 2 ** RMEM_TO_WIN_SCALE) / (len + SEGMENT_OVERHEAD));
  const old = state.scalingRatio;
  state.scalingRatio = ratio > 0 ? ratio : 1;
  if (old !== state.scalingRatio) setWindowClamp(state, fullSpace(state));
}

/** tcp_set_window_clamp for a nonzero value: a smaller clamp pulls rcv_ssthresh down, a larger one lets it reach rcv_wnd. */
export function setWindowClamp(state: ReceiveWindow, value: number): void {
  const old = state.windowClamp;
  state.windowClamp = Math.max(MIN_WINDOW_CLAMP, value);
  if (state.windowClamp < old) state.rcvSsthresh = Math.min(state.rcvSsthresh, state.windowClamp);
  else state.rcvSsthresh = Math.max(Math.min(state.rcvWnd, state.windowClamp), state.rcvSsthresh);
}

/**
 * tcp_grow_window for an in-order segment of `len` bytes (with truesize_adjust: its payload sits in
 * page fragments, so the head is not counted): rcv_ssthresh grows by two segments while the clamp
 * and the free buffer leave room. True when it grew (the caller then sets icsk_ack.quick |= 1).
 */
export function growWindow(state: ReceiveWindow, len: number, advmss: number): boolean {
  const room = Math.min(state.windowClamp, freeSpace(state)) - state.rcvSsthresh;
  if (room <= 0) return false;
  // The adjusted truesize is the payload, and a ratio under 256 backs less window than that: the
  // check #2 of tcp_grow_window always passes, and __tcp_grow_window is never needed.
  const incr = Math.max(2 * advmss, 2 * len);
  state.rcvSsthresh += Math.min(room, incr);
  return true;
}

/**
 * __tcp_select_window without window shrinking (tcp_shrink_window = 0, the default): the free
 * space, capped by rcv_ssthresh, rounded up to the scale unit (rounded to the MSS without
 * scaling); zero when the free space falls under an MSS or 1/16 of the buffer. `belowHalf` tells
 * the caller the free space fell under half the buffer (the kernel then leaves quick-ACK mode).
 */
export function computeWindow(state: ReceiveWindow, rcvMss: number): number {
  const allowed = fullSpace(state);
  const full = Math.min(state.windowClamp, allowed);
  let mss = rcvMss;
  let free = freeSpace(state);
  if (mss > full) {
    mss = full;
    if (mss <= 0) return 0;
  }
  const unit = 2 ** state.rcvWscale;
  if (free < Math.floor(full / 2)) {
    free = Math.floor(free / unit) * unit;
    if (free < Math.floor(allowed / 16) || free < mss) return 0;
  }
  if (free > state.rcvSsthresh) free = state.rcvSsthresh;
  if (state.rcvWscale > 0) return Math.ceil(free / unit) * unit;
  let window = state.rcvWnd;
  if (window <= free - mss || window > free) window = Math.floor(free / mss) * mss;
  else if (mss === full && free > window + Math.floor(full / 2)) window = free;
  return window;
}

/** The free-space test of __tcp_select_window that ends quick-ACK mode. */
export function spaceBelowHalf(state: ReceiveWindow): boolean {
  return freeSpace(state) < Math.floor(Math.min(state.windowClamp, fullSpace(state)) / 2);
}

/** tcp_receive_window: what is still offered of the last window advertised. */
export function receiveWindow(state: ReceiveWindow): number {
  return Math.max(0, (state.rcvWup + state.rcvWnd - state.rcvNxt) | 0);
}

/**
 * tcp_select_window: the window computed now, but never less than what is still offered;
 * records it as rcv_wnd/rcv_wup and returns the scaled value for the header.
 */
export function selectWindow(state: ReceiveWindow, rcvMss: number): number {
  const unit = 2 ** state.rcvWscale;
  const stillOffered = receiveWindow(state);
  let window = computeWindow(state, rcvMss);
  if (window < stillOffered) window = Math.ceil(stillOffered / unit) * unit;
  state.rcvWnd = window;
  state.rcvWup = state.rcvNxt;
  return Math.min(window, 0xffff * unit) / unit;
}

/** tcp_initialize_rcv_mss: a conservative guess of the peer's segment size until full segments arrive. */
export function initialRcvMss(advmss: number, sendMss: number, rcvWnd: number): number {
  let hint = Math.min(advmss, sendMss);
  hint = Math.min(hint, Math.floor(rcvWnd / 2));
  hint = Math.min(hint, TCP_MSS_DEFAULT);
  return Math.max(hint, TCP_MIN_MSS);
}
