/** Prints a header and rows as a Markdown table, each column as wide as its widest cell, so it reads in a terminal and pastes into bench/README.md. */
export function printMarkdownTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(format(header));
  console.log(format(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(format(row));
}
