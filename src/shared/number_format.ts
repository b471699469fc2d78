/**
 * Numbers for people: counts with thousands separators and byte sizes in
 * binary units, the same on every machine (no locale).
 *
 * @module
 */

/** `16369` -> `16,369`. */
export function formatCount(value: number): string {
  const sign = value < 0 ? "-" : "";
  const digits = String(Math.trunc(Math.abs(value)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `1245184` -> `1.2 MiB`; bytes below 1 KiB stay exact. */
export function formatBytes(bytes: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = "B";
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${unit}`;
}
