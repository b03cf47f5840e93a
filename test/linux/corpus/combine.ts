// What both rule corpora build their lines with: every combination of one value from each list.

/** Every combination of one value from each list, joined by spaces. */
export function product(...lists: readonly (readonly string[])[]): string[] {
  return lists.reduce<string[]>(
    (acc, list) => acc.flatMap((prefix) => list.map((item) => `${prefix} ${item}`.trim())),
    [''],
  );
}
