/** Time formatting for the profile view: integer microseconds shown in ms, exactly. */
import { grouped } from '../capabilities';

/**
 * `1234567` -> `1,234,567`: the studio's one hand-written grouping (`grouped`, ui/capabilities.ts;
 * Number.prototype.toLocaleString built an Intl.NumberFormat per call, and a systrace drop formats
 * every mark's times, tens of thousands of calls, which made a UI task of over 50 ms).
 */
export { grouped as groupThousands } from '../capabilities';

/** `1234567` µs -> `1,234.567 ms`; null -> `open` (a mark without an end). */
export function formatUs(us: number | null): string {
  if (us === null) return 'open (no end mark)';
  const neg = us < 0;
  const a = Math.abs(Math.round(us));
  const ms = Math.floor(a / 1000);
  const frac = String(a % 1000).padStart(3, '0');
  return `${neg ? '-' : ''}${grouped(ms)}.${frac} ms`;
}

/** Axis tick label for a time in µs relative to the run start. */
export function tickLabel(us: number, stepUs: number): string {
  const ms = us / 1000;
  const decimals = stepUs >= 1000 ? 0 : stepUs >= 100 ? 1 : stepUs >= 10 ? 2 : 3;
  return `${ms.toFixed(decimals)} ms`;
}
