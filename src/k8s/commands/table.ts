// Go's text/tabwriter as kubectl and crictl use it: cells aligned per column to the widest cell plus padding, at least
// `minWidth`; the last cell of a row is never padded. No tab expansion, no flags (AlignRight, Debug) beyond that.

export interface TableStyle {
  /** tabwriter's minwidth: kubectl 6 (printers.GetNewTabWriter), crictl 20 (display.go newDefaultTableDisplay). */
  readonly minWidth: number;
  /** tabwriter's padding: 3 for both. */
  readonly padding: number;
}

export const KUBECTL_TABLE: TableStyle = { minWidth: 6, padding: 3 };
export const CRICTL_TABLE: TableStyle = { minWidth: 20, padding: 3 };

/**
 * The rows as tabwriter prints them (mirrors text/tabwriter Writer.format for rows of equal length): every column but
 * the last is as wide as max(minWidth, widest cell + padding). Each row ends with a newline.
 */
export function formatTable(rows: readonly (readonly string[])[], style: TableStyle): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (let column = 0; column < row.length - 1; column++) {
      const width = Math.max(style.minWidth, (row[column] ?? '').length + style.padding);
      if (width > (widths[column] ?? 0)) widths[column] = width;
    }
  }
  let out = '';
  for (const row of rows) {
    for (let column = 0; column < row.length; column++) {
      const cell = row[column] ?? '';
      out += column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0);
    }
    out += '\n';
  }
  return out;
}
