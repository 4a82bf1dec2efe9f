/** Reading real comparisons for the compare view: LeNet int8 against its calibrated and fp16 builds. */
import { describe, expect, it } from 'vitest';
import { openLoadable } from '../../core/loadable/document';
import { goldenBytes } from '../../../test/support/nvdla-fixtures';
import { cellText, differingCells, slotDiffs } from './compare-model';

const doc = (name: string) => openLoadable([{ name: `${name}.nvdla`, bytes: goldenBytes(name) }]);
const int8 = doc('lenet-b1-nv_full-int8-fast-math');
const calib = doc('lenet-b1-nv_full-int8-fast-math-calib');
const fp16 = doc('lenet-b1-nv_full-fp16-fast-math');

describe('compare model', () => {
  it('slots with differing descriptor fields, both values kept; weight bytes apart', () => {
    const { slots, other } = slotDiffs(int8.services.loadable!.compare(calib.services.loadable!));
    expect([...slots.keys()]).toEqual(['0:1', '0:4', '0:7', '0:9', '1:0']);
    expect(slots.get('0:1')!.fields.get('op')!.get('out_cvt.scale')).toEqual({ a: '19669', b: '28150' });
    expect([...slots.get('1:0')!.fields.get('op')!.keys()]).toEqual(['common.input_scale_factor', 'common.output_scale_factor']);
    expect(other.every((d) => d.path.startsWith('blobs["tb-'))).toBe(true);
  });

  it('list cells that differ, and their text on each side', () => {
    const diff = int8.services.loadable!.compare(fp16.services.loadable!);
    const memory = diff.sections.find((s) => s.section === 'memory_list')!;
    const { rows, length } = differingCells(memory);
    expect(length).toBe(false);
    expect([...rows.entries()].map(([i, f]) => [i, [...f].sort()])).toEqual([[1, ['contents', 'size']], [2, ['size']], [3, ['size']]]);
    const oa = int8.services.loadable!.overview();
    const ob = fp16.services.loadable!.overview();
    expect([cellText(oa, 'memory_list', 3, 'size'), cellText(ob, 'memory_list', 3, 'size')]).toEqual(['3584', '6272']);
    expect(cellText(oa, 'memory_list', 1, 'contents')).toContain('tb-5@524288');
    expect(cellText(ob, 'memory_list', 1, 'contents')).toContain('tb-5@1048576');
    expect(cellText(oa, 'task_list', 1, 'pre_actions')).toBe('[1]');
    expect(cellText(oa, 'tensor_desc_list', 0, 'data_type')).toBe('INT8');
    expect(cellText(ob, 'tensor_desc_list', 0, 'data_type')).toBe('HALF');
    expect(cellText(oa, 'reloc_list', 2, 'reloc_type')).toBe('LINE_STRIDE');
    expect(cellText(oa, 'memory_list', 99, 'size')).toBeNull();
  });

  it('a list longer on one side: its extra rows are marked whole', () => {
    const rows = differingCells({ section: 'event_list', equal: false, count: 2, differences: [{ path: 'event_list.length', a: '3', b: '4' }, { path: 'event_list[3]', a: null, b: 'present' }] });
    expect(rows.length).toBe(true);
    expect([...rows.rows.get(3)!]).toEqual(['*']);
  });
});
