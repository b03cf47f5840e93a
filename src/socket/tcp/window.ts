// TCP receive-window arithmetic: the initial window and scale (tcp_select_initial_window), the clamp once established
// (tcp_init_buffer_space), the window each segment advertises (tcp_select_window), and the receive MSS estimate
// delayed ACKs use (tcp_initialize_rcv_mss).
//
// Linux 6.x turns buffer bytes into window bytes with a scaling ratio that starts at one half
// (TCP_DEFAULT_SCALING_RATIO) and is re-measured from full-sized segments' truesize; packetlab
// keeps one half. The window therefore grows only where Linux grows it without truesize
// (never, for the exchanges the harness checks): tcp_grow_window and rcvbuf autotuning are not
// modelled (docs/deviations.md).

/** TCP_MAX_WSCALE (RFC 7323). */
const MAX_WSCALE = 14;
/** TCP_MSS_DEFAULT: the MSS assumed for a peer before it proves otherwise. */
export const TCP_MSS_DEFAULT = 536;
/** TCP_MIN_MSS. */
const TCP_MIN_MSS = 88;

/** tcp_win_from_space with the default scaling ratio (128/256): the window a buffer of `space` bytes backs. */
export function windowFromSpace(space: number): number {
  return Math.max(0, Math.floor(space / 2));
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
 * tcp_select_initial_window: `fullSpace` (tcp_full_space) rounded down to a multiple of `mss`,
 * capped at 65535; the scale is the one that fits the largest buffer the socket may grow to
 * (max of tcp_rmem[2] and rmem_max), ilog2(space) - 15.
 */
export function selectInitialWindow(
  fullSpace: number,
  mss: number,
  wscaleOk: boolean,
  maxBuffer: number,
): InitialWindow {
  let space = fullSpace;
  if (space > mss) space = Math.floor(space / mss) * mss;
  const rcvWnd = Math.min(space, 0xffff);
  let rcvWscale = 0;
  if (wscaleOk) {
    const largest = Math.max(space, maxBuffer);
    rcvWscale = Math.min(Math.max(Math.floor(Math.log2(largest)) - 15, 0), MAX_WSCALE);
  }
  return { rcvWnd, rcvWscale, windowClamp: 0xffff * 2 ** rcvWscale };
}

/**
 * tcp_init_buffer_space's clamp once the connection is established: no more than the buffer
 * backs, less one segment kept in reserve (tcp_app_win, 31 by default); rcv_ssthresh starts at
 * the window offered, under that clamp. With the clamp one segment below the buffer and
 * rcv_ssthresh at the clamp, tcp_grow_window finds no room until the scaling ratio is
 * re-measured from a full-sized segment (not modelled).
 */
export function initBufferSpace(state: ReceiveWindow, maxwin: number, advmss: number, appWin: number): void {
  if (state.windowClamp >= maxwin) {
    state.windowClamp = maxwin;
    if (appWin > 0 && maxwin > 4 * advmss)
      state.windowClamp = Math.max(maxwin - Math.floor(maxwin / 2 ** appWin), 4 * advmss);
  }
  if (appWin > 0 && state.windowClamp > 2 * advmss && state.windowClamp + advmss > maxwin)
    state.windowClamp = Math.max(2 * advmss, maxwin - advmss);
  state.rcvSsthresh = Math.min(state.rcvWnd, state.windowClamp);
}

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
}

/**
 * tcp_select_window (without window shrinking, the default): the free space, capped by
 * rcv_ssthresh, rounded up to the scale unit, never less than what is still offered; records
 * it as rcv_wnd/rcv_wup and returns the scaled value for the header.
 */
export function selectWindow(state: ReceiveWindow, freeSpace: number): number {
  const unit = 2 ** state.rcvWscale;
  const stillOffered = Math.max(0, (state.rcvWup + state.rcvWnd - state.rcvNxt) | 0);
  let window = Math.min(freeSpace, state.rcvSsthresh, state.windowClamp);
  window = state.rcvWscale > 0 ? Math.ceil(window / unit) * unit : window;
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
