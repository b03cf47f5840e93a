// kube-proxy's test helper sortNFTablesTransaction (pkg/proxy/nftables/helpers_test.go): blank and `#` lines
// dropped, lines ordered by object type (table, chain, rule, set, map, element), then object name, rules kept in
// their order, other lines by their whole text.

const OBJECT_ORDER: Readonly<Record<string, number>> = {
  table: 10,
  chain: 9,
  rule: 8,
  set: 7,
  map: 6,
  element: 5,
};

export function sortNFTablesTransaction(tx: string): string {
  const lines = tx.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  const indexed = lines.map((line, index) => ({ line, index, words: line.split(' ') }));
  indexed.sort((a, b) => {
    if (a.words.length >= 5 && b.words.length >= 5) {
      const typeA = a.words[1]!;
      const typeB = b.words[1]!;
      if (typeA !== typeB) return (OBJECT_ORDER[typeB] ?? 0) - (OBJECT_ORDER[typeA] ?? 0);
      if (a.words[4] !== b.words[4]) return a.words[4]! < b.words[4]! ? -1 : 1;
      if (typeA !== 'rule' && a.line !== b.line) return a.line < b.line ? -1 : 1;
    }
    return a.index - b.index;
  });
  return indexed.map((entry) => entry.line).join('\n');
}
