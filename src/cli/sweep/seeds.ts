// `--seeds A..B` as a list of seeds, and one shard's part of it (`--shard-index I --shards N`): contiguous blocks, so
// the shards' lines concatenated in index order are the one run's lines. Integer seeds only (no names, no steps).

/** An inclusive range of integer seeds. */
export interface SeedRange {
  readonly first: number;
  readonly last: number;
}

/** The most seeds one sweep runs (a range beyond is a typo more often than a wish). */
export const MAX_SEEDS = 10_000_000;

/** Parses `A..B` (0 ≤ A ≤ B, integers), or returns the error's text. */
export function parseSeedRange(text: string): SeedRange | { readonly error: string } {
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (match === null) return { error: `'--seeds' takes A..B (two integers, A <= B), not '${text}'` };
  const first = Number(match[1]);
  const last = Number(match[2]);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last))
    return { error: `'--seeds' ${text}: seeds must be below 2^53` };
  if (first > last) return { error: `'--seeds' ${text}: the first seed is after the last` };
  if (last - first + 1 > MAX_SEEDS)
    return { error: `'--seeds' ${text}: ${last - first + 1} seeds, at most ${MAX_SEEDS} in one sweep` };
  return { first, last };
}

export function seedCount(range: SeedRange): number {
  return range.last - range.first + 1;
}

/**
 * Shard `index` of `shards` (0-based): the block of seeds from first + ⌊index·count/shards⌋ up to (not including)
 * first + ⌊(index+1)·count/shards⌋; undefined when that block is empty (more shards than seeds).
 */
export function shardOf(range: SeedRange, index: number, shards: number): SeedRange | undefined {
  const count = seedCount(range);
  const from = range.first + Math.floor((index * count) / shards);
  const to = range.first + Math.floor(((index + 1) * count) / shards);
  return to > from ? { first: from, last: to - 1 } : undefined;
}

/** `A..B` as --seeds writes it. */
export function formatSeedRange(range: SeedRange): string {
  return `${range.first}..${range.last}`;
}
