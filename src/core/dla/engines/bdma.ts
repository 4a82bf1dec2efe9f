/**
 * BDMA (bridge DMA: memory to memory copies), firmware `bdma.c`: up to 20 transfers per op,
 * each `surface_repeat` surfaces of `line_repeat` lines of `line_size` bytes, with source and
 * destination line / surface strides; addresses are task address-list indexes (no offset).
 * The firmware's checks are kept: line_size a multiple of 32, repeats at most 8192, strides at
 * least a line / a surface.
 */
import type { DecodedStruct } from '../../loadable/structs';
import { member, valueOf } from '../../loadable/structs';
import { checkOverlap, fail, num, type EngineContext, type EngineOutput } from './context';

export function runBdma(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct): { output: EngineOutput; bytes: number } {
  const count = num(ctx, surface, 'num_transfers', 'surface');
  if (count > 20) fail(ctx, 'corrupt', 'surface.num_transfers', `${count} is more than the 20 transfers a BDMA op holds`);
  const opCount = num(ctx, op, 'num_transfers', 'op');
  if (opCount !== count) fail(ctx, 'corrupt', 'op.num_transfers', `${opCount} differs from the surface descriptor's ${count}`);
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const t = member(surface, `transfers.${i}`)!;
    const f = `surface.transfers.${i}`;
    const v = (k: string) => valueOf(t, k) ?? 0;
    const lineSize = v('line_size');
    const lines = v('line_repeat');
    const surfaces = v('surface_repeat');
    if (lineSize % 32 !== 0) fail(ctx, 'corrupt', `${f}.line_size`, `${lineSize} is not a multiple of 32 bytes`);
    if (lines > 8192 || surfaces > 8192) fail(ctx, 'corrupt', `${f}.line_repeat`, `repeats ${lines} x ${surfaces} exceed 8192`);
    if (v('source_line') < lineSize || v('destination_line') < lineSize) fail(ctx, 'corrupt', `${f}.source_line`, 'a line stride is shorter than the line');
    if (v('source_surface') < v('source_line') * lines || v('destination_surface') < v('destination_line') * lines) fail(ctx, 'corrupt', `${f}.source_surface`, 'a surface stride is shorter than its lines');
    if (lineSize === 0 || lines === 0 || surfaces === 0) continue;
    const extent = (line: number, surf: number) => (surfaces - 1) * surf + (lines - 1) * line + lineSize;
    const srcSize = extent(v('source_line'), v('source_surface'));
    const dstSize = extent(v('destination_line'), v('destination_surface'));
    const s = ctx.mem.resolve(ctx.task, ctx.taskIndex, v('source_address'), 0, srcSize, ctx.place, `${f}.source_address`);
    const d = ctx.mem.forWrite(ctx.mem.resolve(ctx.task, ctx.taskIndex, v('destination_address'), 0, dstSize, ctx.place, `${f}.destination_address`));
    checkOverlap(ctx, d, dstSize, [{ ref: s, size: srcSize, field: `${f} source` }]);
    for (let k = 0; k < surfaces; k++)
      for (let l = 0; l < lines; l++) {
        const from = s.base + k * v('source_surface') + l * v('source_line');
        const to = d.base + k * v('destination_surface') + l * v('destination_line');
        d.buf.set(s.buf.subarray(from, from + lineSize), to);
        bytes += lineSize;
      }
  }
  return { output: { channel: 0, height: 0, width: 0, precision: 'INT8', where: 'memory', data: new Float64Array(0), saturated: 0 }, bytes };
}
