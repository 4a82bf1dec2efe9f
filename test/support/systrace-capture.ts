/**
 * The ~4 MB systrace capture the benches measure: omr1 (AOSP's own test capture, 12,200 marks,
 * 5 runs). The fixture holds the ftrace block of omr1.html (1.2 MB); the 3.8 MB HTML is rebuilt
 * around it with the same amount of non-trace content (the viewer's JavaScript is not in the
 * fixtures), so a reader also has to skip ~2.6 MB before the trace. Node only (reads the fixture).
 */
import { readFileSync } from 'node:fs';

export const OMR1_TRACE_PATH = 'test/fixtures/systrace/upstream/inputs/omr1.trace.txt';
export const OMR1_EXPECTED_PATH = 'test/fixtures/systrace/upstream/expected/omr1.txt';
/** size of the original omr1.html upstream */
const OMR1_HTML_BYTES = 3_845_528;

export function omr1Trace(): string {
  return readFileSync(OMR1_TRACE_PATH, 'utf8');
}

/** omr1.html rebuilt: a stand-in for the Catapult viewer, then the trace-data block. */
export function omr1Html(trace = omr1Trace()): string {
  const line = '  // trace viewer code (stand-in of the Catapult viewer in the real file)\n';
  const filler = `<!DOCTYPE html>\n<html>\n<head>\n<script>\n${line.repeat(Math.ceil((OMR1_HTML_BYTES - trace.length) / line.length))}</script>\n</head>\n<body>\n`;
  return `${filler}${trace}\n</body>\n</html>\n`;
}
