// ss's column engine (misc/ss.c: out, field_next, render_calc_width, render) for output into a pipe (compact
// columns, no screen width); no multi-line column wrapping, which needs a terminal.

// ---- the column engine (ss.c: out, field_next, render_calc_width, render) -------------------

export type ColumnId =
  | 'netid'
  | 'state'
  | 'recvQ'
  | 'sendQ'
  | 'addr'
  | 'serv'
  | 'raddr'
  | 'rserv'
  | 'ext'
  | 'proc';

interface Column {
  readonly id: ColumnId;
  readonly header: string;
  readonly alignRight: boolean;
  readonly ldelim: string;
}

/** ss.c's columns: alignment, header, left delimiter. */
export const COLUMNS: readonly Column[] = [
  { id: 'netid', header: 'Netid', alignRight: false, ldelim: '' },
  { id: 'state', header: 'State', alignRight: false, ldelim: ' ' },
  { id: 'recvQ', header: 'Recv-Q', alignRight: false, ldelim: ' ' },
  { id: 'sendQ', header: 'Send-Q', alignRight: false, ldelim: ' ' },
  { id: 'addr', header: 'Local Address:', alignRight: true, ldelim: ' ' },
  { id: 'serv', header: 'Port', alignRight: false, ldelim: '' },
  { id: 'raddr', header: 'Peer Address:', alignRight: true, ldelim: ' ' },
  { id: 'rserv', header: 'Port', alignRight: false, ldelim: '' },
  { id: 'ext', header: 'Process', alignRight: false, ldelim: '' },
  // The last column: print_header stops before it; rows leave it empty without -p.
  { id: 'proc', header: '', alignRight: false, ldelim: '' },
];

/**
 * Lays the tokens out as render() does with no terminal (compact output): each column as wide as
 * its longest token plus its left delimiter (none for the first column with content), right- or
 * left-aligned, padding written even at the end of a line.
 */
export function render(columns: readonly Column[], lines: readonly (readonly string[])[]): string {
  let first = true;
  const widths = columns.map((column, i) => {
    // The last token of the output is never flushed (field_flush), so it does not widen its column.
    const counted = column.id === 'ext' ? lines.slice(0, -1) : lines;
    const maxLen = Math.max(0, ...counted.map((tokens) => tokens[i]!.length));
    const width = !first && maxLen > 0 ? maxLen + columns[i]!.ldelim.length : maxLen;
    if (width > 0) first = false;
    return width;
  });
  let text = '';
  for (const tokens of lines) {
    tokens.forEach((token, i) => {
      const column = columns[i]!;
      const width = widths[i]!;
      let printed = 0;
      if (i > 0) {
        text += column.ldelim;
        printed = column.ldelim.length;
      }
      if (column.alignRight && width > 0) {
        const spacing = width - token.length - printed;
        if (spacing > 0) {
          text += ' '.repeat(spacing);
          printed += spacing;
        }
      }
      text += token;
      printed += token.length;
      if (!column.alignRight && width > printed) text += ' '.repeat(width - printed);
    });
    text += '\n';
  }
  return text;
}
