// "did you mean" suggestions as nft 1.0.6 makes them (misspell.c): an edit distance with a threshold relative to
// the longer name. nft's distance table is indexed with a row stride one too short and compares the characters
// one past each position; the suggestions users see come from that arithmetic, so it is reproduced as is.

function stringDistance(a: string, b: string): number {
  const lenA = a.length;
  const lenB = b.length;
  const distance = new Array<number>((lenA + 1) * (lenB + 1)).fill(0);
  const at = (i: number, j: number): number => i * lenB + j;
  // C strings: reading at the length gives the terminating NUL.
  const charA = (i: number): string => (i < lenA ? a[i]! : '\0');
  const charB = (j: number): string => (j < lenB ? b[j]! : '\0');
  for (let i = 0; i <= lenA; i++) distance[at(i, 0)] = i;
  for (let j = 0; j <= lenB; j++) distance[at(0, j)] = j;
  for (let i = 1; i <= lenA; i++) {
    for (let j = 1; j <= lenB; j++) {
      const subcost = charA(i) === charB(j) ? 0 : 1;
      let value = Math.min(
        distance[at(i - 1, j)]! + 1,
        distance[at(i, j - 1)]! + 1,
        distance[at(i - 1, j - 1)]! + subcost,
      );
      if (i > 1 && j > 1 && charA(i) === charB(j - 1) && charA(i - 1) === charB(j))
        value = Math.min(value, distance[at(i - 2, j - 2)]! + subcost);
      distance[at(i, j)] = value;
    }
  }
  return distance[at(lenA, lenB)]!;
}

/** Picks the closest of several names as nft's string_misspell_update does (first best wins). */
export class Misspell<T> {
  private minDistance = Number.POSITIVE_INFINITY;
  best: T | undefined;

  /** `existing` is the known object's name, `wanted` what the user typed. Returns true if it became the best. */
  update(existing: string, wanted: string, candidate: T): boolean {
    const maxLen = Math.max(existing.length, wanted.length);
    const minLen = Math.min(existing.length, wanted.length);
    if (maxLen <= 1) return false;
    const threshold = maxLen - minLen <= 1 ? Math.max(Math.ceil(maxLen / 3), 1) : Math.ceil((maxLen + 2) / 3);
    const distance = stringDistance(existing, wanted);
    if (distance > threshold || distance >= this.minDistance) return false;
    this.minDistance = distance;
    this.best = candidate;
    return true;
  }
}
