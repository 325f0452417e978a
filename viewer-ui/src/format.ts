/** Number formatting of the viewer (as the reports: three decimals, n/a for none). */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}

export function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

/** up / down / flat, for the colour of a change. */
export function direction(value: number): "up" | "down" | "flat" {
  return value > 0 ? "up" : value < 0 ? "down" : "flat";
}

/** Characters as the record counts them (code points). */
export function codePoints(text: string): number {
  return [...text].length;
}
