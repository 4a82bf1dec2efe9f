import { describe, expect, it } from 'vitest';
import { loadableDamageAlert } from './damage-alert';
import { openLoadable } from '../../core/loadable/document';
import { goldenBytes } from '../../../test/support/nvdla-fixtures';
import { damagedLoadable } from '../../../test/support/nvdla-damaged';

describe('the damage alert', () => {
  it('none for a sound file', () => {
    expect(loadableDamageAlert('a.nvdla', openLoadable([{ name: 'a.nvdla', bytes: goldenBytes('lenet-b1-nv_full-int8-fast-math') }]).diagnostics)).toBeNull();
  });

  it('one alert counting the places and quoting the first two with their paths', () => {
    const doc = openLoadable([{ name: 'd.nvdla', bytes: damagedLoadable(goldenBytes('lenet-b1-nv_full-int8-fast-math')) }]);
    expect(loadableDamageAlert('d.nvdla', doc.diagnostics)).toEqual({
      severity: 'error',
      message:
        'd.nvdla: 5 places could not be read or do not fit together (4 errors, 1 warning); everything else is shown. ' +
        'memory_list[1].contents[7]: names blob "tb-99", which the blob list does not have; address_list[16].mem_id: memory 40 is past the memory list (17 entries); and 3 more',
    });
  });

  it('warnings alone (an unknown enum value) give a warning', () => {
    expect(loadableDamageAlert('w.nvdla', [{ severity: 'warning', file: 'w.nvdla', message: '7 is not a known value of in_precision', path: 'task[0].slot[0].op.in_precision' }])?.severity).toBe('warning');
  });
});
