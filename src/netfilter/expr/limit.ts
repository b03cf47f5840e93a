// The limit and quota statements on packets (nft_limit.c, nft_quota.c): a token bucket refilled on virtual time, and
// a byte count against a quota. Named limit and quota objects are not modelled.

import type { LimitExpr, QuotaExpr } from '../ir.ts';

const NSEC_PER_SEC = 1e9;

/** nft_limit_init: the bucket's size in ns of credit; packet limits without a burst get 5 (NFT_LIMIT_PKT_BURST_DEFAULT). */
export function limitTokensMax(limit: LimitExpr): number {
  const nsecs = limit.unit * NSEC_PER_SEC;
  if (limit.mode === 'packets') return Math.floor(nsecs / limit.rate) * (limit.burst === 0 ? 5 : limit.burst);
  return Math.floor((nsecs * (limit.rate + limit.burst)) / limit.rate);
}

/**
 * Whether the packet matches (mirrors nft_limit.c: nft_limit_eval, nft_limit_pkts_eval, nft_limit_bytes_eval): credit
 * grows by the ns elapsed up to the bucket's size, and a packet that costs no more than the credit takes it. The
 * bucket starts full. Without `over` the packets within the rate match; with it, those beyond.
 */
export function limitMatches(limit: LimitExpr, now: number, length: number): boolean {
  const max = limitTokensMax(limit);
  const bucket = limit.bucket;
  if (bucket.last < 0) {
    bucket.tokens = max;
    bucket.last = now;
  }
  const nsecs = limit.unit * NSEC_PER_SEC;
  const cost =
    limit.mode === 'packets' ? Math.floor(nsecs / limit.rate) : Math.floor((nsecs * length) / limit.rate);
  let tokens = bucket.tokens + (now - bucket.last);
  if (tokens > max) tokens = max;
  bucket.last = now;
  if (tokens - cost >= 0) {
    bucket.tokens = tokens - cost;
    return !limit.invert;
  }
  bucket.tokens = tokens;
  return limit.invert;
}

/** nft_quota_do_eval: the packet's length is counted first; within the quota means consumed <= quota. */
export function quotaMatches(quota: QuotaExpr, length: number): boolean {
  quota.consumed.bytes += length;
  const over = quota.consumed.bytes > quota.bytes;
  return over === quota.invert;
}
