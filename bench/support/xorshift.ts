// xorshift32: replayable pseudo-random numbers for benchmark inputs (not src/: the simulation uses core/rng.ts).

export function xorshift32(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}
