/**
 * One alert for a whole profile document instead of one per diagnostic: the Diagnostics panel of
 * the Profile view lists every one with its line, so the alert only names the errors and
 * warnings (the first few) and counts the rest. Notes alone (marks on untracked threads) give no
 * alert at all. Plain text, never HTML.
 */
import type { Diagnostic } from '../../core/errors';

export interface DiagnosticsAlert {
  severity: 'error' | 'warning';
  message: string;
}

/** How many errors and warnings the alert quotes; the others are only counted. */
const NAMED = 2;
const MAX_MESSAGE = 140;

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `*** No NNAPI Runtime trace present - check your systrace setup ***` -> without the stars; long messages cut. */
function shortMessage(d: Diagnostic): string {
  let text = d.message.replace(/^\*+\s*/, '').replace(/\s*\*+$/, '').replace(/[\r\n\t]+/g, ' ').trim();
  if (text.length > MAX_MESSAGE) {
    // cut at a word boundary, so that no number or name is shown cut short
    const cut = text.slice(0, MAX_MESSAGE);
    const space = cut.lastIndexOf(' ');
    text = `${(space > MAX_MESSAGE / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
  }
  return d.line !== undefined ? `line ${d.line}: ${text}` : text;
}

/** `1 error, 1 warning, 7 notes` (only the severities present). */
export function countText(diagnostics: readonly Diagnostic[]): string {
  let errors = 0;
  let warnings = 0;
  let notes = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else if (d.severity === 'warning') warnings++;
    else notes++;
  }
  const parts: string[] = [];
  if (errors) parts.push(plural(errors, 'error', 'errors'));
  if (warnings) parts.push(plural(warnings, 'warning', 'warnings'));
  if (notes) parts.push(plural(notes, 'note', 'notes'));
  return parts.join(', ');
}

/**
 * The single alert for a profile document's diagnostics, or null when there are only notes (or
 * nothing). E.g. `omr1.trace.txt: No NNAPI Runtime trace present - check your systrace setup
 * (1 warning, 7 notes)`.
 */
export function profileDiagnosticsAlert(file: string, diagnostics: readonly Diagnostic[]): DiagnosticsAlert | null {
  const serious = [...diagnostics.filter((d) => d.severity === 'error'), ...diagnostics.filter((d) => d.severity === 'warning')];
  if (serious.length === 0) return null;
  const named = serious.slice(0, NAMED).map(shortMessage);
  if (serious.length > NAMED) named.push(`and ${serious.length - NAMED} more`);
  return {
    severity: serious[0]!.severity === 'error' ? 'error' : 'warning',
    message: `${file}: ${named.join('; ')} (${countText(diagnostics)})`,
  };
}
