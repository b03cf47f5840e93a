// A per-client rate limit as Traefik's RateLimit middleware applies it (pkg/middlewares/ratelimiter/rate_limiter.go,
// with golang.org/x/time/rate's token bucket): one bucket per source, `average` requests per `period` refilling
// up to `burst`; a request that finds no token waits for one when the wait is at most maxDelay (500 ms below one
// request a second, else half the interval between two requests), and is answered 429 otherwise, with Retry-After
// and X-Retry-In. What the source is (the TCP peer, the PROXY header's address, X-Forwarded-For) is the server's
// choice. Not modelled: the TTL map that forgets idle sources (an idle bucket is full again anyway), Redis.

export interface RateLimitOptions {
  /** Requests allowed per period, on average. */
  readonly average: number;
  /** The period in milliseconds (Traefik's default 1 s). */
  readonly periodMs?: number;
  /** Requests a source may make at once (Traefik's default 1). */
  readonly burst?: number;
}

/** What the limiter decided for one request. */
export type RateDecision =
  /** Served after `delayNs` (0: at once). */
  | { readonly kind: 'serve'; readonly delayNs: number }
  /** Refused: the wait for a token, `delayNs`, was beyond maxDelay. */
  | { readonly kind: 'reject'; readonly delayNs: number };

interface Bucket {
  tokens: number;
  /** Virtual time (ns) the tokens were last computed at. */
  last: number;
}

export class ClientRateLimiter {
  /** rate.Limit: tokens per second. */
  private readonly perSecond: number;
  private readonly burst: number;
  private readonly maxDelayNs: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions) {
    // rate_limiter.go New: rtl = average * time.Second / period; maxDelay 500 ms below 1/s, else 1 s / (2 * rtl).
    this.perSecond = (options.average * 1000) / (options.periodMs ?? 1000);
    this.burst = options.burst ?? 1;
    this.maxDelayNs = this.perSecond < 1 ? 500e6 : Math.trunc(1e9 / (Math.trunc(this.perSecond) * 2));
  }

  /** One request from `source` at virtual time `now` (ns): mirrors rate.Limiter.reserveN, then Traefik's maxDelay test. */
  take(source: string, now: number): RateDecision {
    let bucket = this.buckets.get(source);
    if (bucket === undefined) {
      // rate.NewLimiter starts full.
      bucket = { tokens: this.burst, last: now };
      this.buckets.set(source, bucket);
    }
    // advance (tokensFromDuration): seconds elapsed times the limit, capped at burst.
    const tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.last) / 1e9) * this.perSecond);
    const after = tokens - 1;
    // durationFromTokens: time.Duration(float64(time.Second) * tokens / limit), truncated to nanoseconds.
    const delayNs = after < 0 ? Math.trunc(1e9 * (-after / this.perSecond)) : 0;
    if (delayNs > this.maxDelayNs) {
      // res.Cancel(): the token goes back (this was the latest reservation).
      bucket.tokens = tokens;
      bucket.last = now;
      return { kind: 'reject', delayNs };
    }
    bucket.tokens = after;
    bucket.last = now;
    return { kind: 'serve', delayNs };
  }
}

/** Go's time.Duration.String: `1.5s`, `2m3s`, `250ms`, `1.5µs`, `0s`. */
export function goDuration(ns: number): string {
  const d = Math.trunc(ns);
  if (d === 0) return '0s';
  const sign = d < 0 ? '-' : '';
  const u = Math.abs(d);
  if (u < 1000) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${Math.trunc(u / 1000)}${fraction(u % 1000, 3)}µs`;
  if (u < 1e9) return `${sign}${Math.trunc(u / 1e6)}${fraction(u % 1e6, 6)}ms`;
  const seconds = Math.trunc(u / 1e9);
  const secText = `${seconds % 60}${fraction(u % 1e9, 9)}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes === 0) return `${sign}${secText}`;
  const hours = Math.trunc(minutes / 60);
  if (hours === 0) return `${sign}${minutes}m${secText}`;
  return `${sign}${hours}h${minutes % 60}m${secText}`;
}

/** fmtFrac: `.ddd` without trailing zeros, nothing for a zero fraction. */
function fraction(value: number, digits: number): string {
  if (value === 0) return '';
  return `.${String(value).padStart(digits, '0').replace(/0+$/, '')}`;
}
