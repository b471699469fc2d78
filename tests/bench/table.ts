/**
 * Small helpers to summarise and print benchmark results.
 *
 * @module
 */

/** Returns the median of `values` (mean of the middle two for even counts), or null if empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const hi = s[mid] as number;
  return s.length % 2 === 1 ? hi : ((s[mid - 1] as number) + hi) / 2;
}

/** Formats `value` with `digits` decimals, or `n/a` when null. */
export function fixed(value: number | null, digits: number): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

/**
 * Renders rows as a plain-text table: the first row is the header, columns
 * are right-aligned, a rule separates header and body.
 */
export function renderTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]) =>
    row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  ");
  const [header, ...body] = rows;
  if (!header) return "";
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...body.map(line)].join("\n");
}
