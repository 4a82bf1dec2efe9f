/**
 * One alert for a damaged loadable instead of one per damaged place: the Damage view lists
 * every place and each is marked on its row, so the alert counts them and quotes the first two.
 * Plain text, never HTML.
 */
import type { Diagnostic } from '../../core/errors';
import { countText } from '../profile/diagnostics-summary';

const QUOTED = 2;

export function loadableDamageAlert(file: string, diagnostics: readonly Diagnostic[]): { severity: 'error' | 'warning'; message: string } | null {
  if (diagnostics.length === 0) return null;
  const first = diagnostics.slice(0, QUOTED).map((d) => `${d.path ? `${d.path}: ` : ''}${d.message}`);
  const more = diagnostics.length > QUOTED ? `; and ${diagnostics.length - QUOTED} more` : '';
  const n = diagnostics.length;
  return {
    severity: diagnostics.some((d) => d.severity === 'error') ? 'error' : 'warning',
    message: `${file}: ${n} place${n === 1 ? '' : 's'} could not be read or do not fit together (${countText(diagnostics)}); everything else is shown. ${first.join('; ')}${more}`,
  };
}
