// Plain-text tables and number formatting for bench output (pasteable into bench/README.md).

/** Formats rows as a Markdown-compatible table with padded columns. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    '| ' + widths.map((w, i) => (i === 0 ? (cells[i] ?? '').padEnd(w) : (cells[i] ?? '').padStart(w))).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

/** 12345678 → "12.35 M". */
export function perSecond(value: number): string {
  if (value >= 1e6) return (value / 1e6).toFixed(2) + ' M';
  if (value >= 1e3) return (value / 1e3).toFixed(1) + ' k';
  return value.toFixed(0);
}

/** A ratio to the best as "1.00×". */
export function ratio(value: number, best: number): string {
  return (value / best).toFixed(2) + '×';
}

export function millis(value: number): string {
  return value < 10 ? value.toFixed(2) + ' ms' : value.toFixed(1) + ' ms';
}
