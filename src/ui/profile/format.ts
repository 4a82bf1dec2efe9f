/** Time formatting for the profile view: integer microseconds shown in ms, exactly. */

/**
 * `1234567` -> `1,234,567` for a non-negative integer. Number.prototype.toLocaleString builds an
 * Intl.NumberFormat on every call; a systrace drop formats every mark's times (tens of thousands
 * of calls), which made a UI task of over 50 ms. This is plain string work.
 */
export function groupThousands(n: number): string {
  const s = String(n);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (i > 0 && (s.length - i) % 3 === 0) out += ',';
    out += s[i];
  }
  return out;
}

/** `1234567` µs -> `1,234.567 ms`; null -> `open` (a mark without an end). */
export function formatUs(us: number | null): string {
  if (us === null) return 'open (no end mark)';
  const neg = us < 0;
  const a = Math.abs(Math.round(us));
  const ms = Math.floor(a / 1000);
  const frac = String(a % 1000).padStart(3, '0');
  return `${neg ? '-' : ''}${groupThousands(ms)}.${frac} ms`;
}

/** Axis tick label for a time in µs relative to the run start. */
export function tickLabel(us: number, stepUs: number): string {
  const ms = us / 1000;
  const decimals = stepUs >= 1000 ? 0 : stepUs >= 100 ? 1 : stepUs >= 10 ? 2 : 3;
  return `${ms.toFixed(decimals)} ms`;
}
