/**
 * The one seeded pseudo-random generator of the project: random inputs of the value checks,
 * chef's gaussian fillers, synthetic models and graphs for tests and benches. The same seed gives
 * the same numbers in the browser, the worker, Node and every test.
 *
 * mulberry32 (Tommy Ettinger's 32-bit generator): written out here rather than taken from a
 * library because it is six lines, has a 2^32 period (plenty for inputs of at most millions of
 * values), and keeps every seeded input the tests and samples were made with unchanged.
 */

/** A generator of numbers uniform in [0, 1), from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
