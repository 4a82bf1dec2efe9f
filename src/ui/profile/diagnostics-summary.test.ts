import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseText } from '../../core/systrace/index';
import { countText, profileDiagnosticsAlert } from './diagnostics-summary';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'systrace', 'upstream', 'inputs');
const text = (name: string) => readFileSync(join(FIXTURE, name), 'utf8');

describe('one alert for a profile document', () => {
  it('omr1: names the warning, counts the notes', () => {
    const a = analyseText(text('omr1.trace.txt'), 'omr1.trace.txt');
    expect(profileDiagnosticsAlert('omr1.trace.txt', a.diagnostics)).toEqual({
      severity: 'warning',
      message: 'omr1.trace.txt: No NNAPI Runtime trace present - check your systrace setup (1 warning, 7 notes)',
    });
  });

  it('omr1_incomplete: both warnings named, the second with its line', () => {
    const a = analyseText(text('omr1_incomplete.trace.txt'), 'omr1_incomplete.trace.txt');
    const alert = profileDiagnosticsAlert('omr1_incomplete.trace.txt', a.diagnostics)!;
    expect(alert.severity).toBe('warning');
    expect(alert.message).toBe(
      'omr1_incomplete.trace.txt: No NNAPI Runtime trace present - check your systrace setup; line 9951: Incomplete trace, not able to print all statistics: run 21 (B|13531|[NN_LA_PO]resnet_quantized) has marks still open at its end on thread… (2 warnings, 1 note)',
    );
  });

  it('notes alone give no alert', () => {
    const a = analyseText(text('omr1.trace.txt'), 'omr1.trace.txt');
    const notes = a.diagnostics.filter((d) => d.severity === 'info');
    expect(notes.length).toBe(7);
    expect(profileDiagnosticsAlert('omr1.trace.txt', notes)).toBeNull();
    expect(profileDiagnosticsAlert('omr1.trace.txt', [])).toBeNull();
  });

  it('binary junk named like a capture: an error alert naming the file and the missing header', () => {
    const junk = Array.from({ length: 3000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join('');
    const a = analyseText(junk, 'junk.trace.txt');
    const alert = profileDiagnosticsAlert('junk.trace.txt', a.diagnostics)!;
    expect(alert.severity).toBe('error');
    expect(alert.message).toBe(
      'junk.trace.txt: line 1: no ftrace text found: the file has no "TASK-PID ... TIMESTAMP  FUNCTION" header (is it a systrace capture?) (1 error)',
    );
  });

  it('a truncated capture: the first two warnings named, the rest counted', () => {
    const cut = text('omr1.trace.txt').slice(0, 3000);
    const a = analyseText(cut, 'cut.trace.txt');
    const alert = profileDiagnosticsAlert('cut.trace.txt', a.diagnostics)!;
    expect(alert.message).toBe(
      'cut.trace.txt: the trace-data block is not closed by </script> (truncated HTML?); read to the end of the file; No NNAPI Runtime trace present - check your systrace setup; and 1 more (3 warnings)',
    );
  });

  it('errors come first and make it an error alert; long messages are cut', () => {
    const long = 'x'.repeat(400);
    const alert = profileDiagnosticsAlert('t.trace.txt', [
      { severity: 'warning', file: 't.trace.txt', message: 'w' },
      { severity: 'info', file: 't.trace.txt', message: 'n' },
      { severity: 'error', file: 't.trace.txt', line: 3, message: long },
    ])!;
    expect(alert.severity).toBe('error');
    expect(alert.message.startsWith(`t.trace.txt: line 3: ${'x'.repeat(140)}…; w (`)).toBe(true);
    expect(alert.message.endsWith('(1 error, 1 warning, 1 note)')).toBe(true);
    expect(countText([])).toBe('');
  });
});
