/**
 * RUBIK (data reshape), firmware `rubik.c` and nvdla/hw cmod `rubik/NV_NVDLA_rbk.cpp`:
 *
 * - CONTRACT (deconvolution output): the input holds stride_x x stride_y phases one after the
 *   other, each all output channels in atom-aligned surfaces; phase (py, px) of input pixel
 *   (x, y) goes to output pixel (x x stride_x + px, y x stride_y + py): input surface
 *   ((py x stride_x + px) x surfaces_out + s) (cmod RubikRdmaSequenceContract).
 * - SPLIT: feature data to planar, one plane per channel `plane_stride` apart.
 * - MERGE: planar to feature data.
 * Neither side may be on the fly (firmware asserts it).
 */
import type { DecodedStruct } from '../../loadable/structs';
import { MEM_TYPE, channelsPerAtom, cubeOf, featureExtent, planarExtent, readFeature, readPlanar, writeFeature, writePlanar } from '../cube';
import { checkOverlap, fail, featureRef, num, type EngineContext, type EngineOutput } from './context';

const MODE = { CONTRACT: 0, SPLIT: 1, MERGE: 2 } as const;

export function runRubik(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct): { output: EngineOutput } {
  const n = (p: string) => num(ctx, op, p, 'op');
  const mode = n('mode');
  const precision = n('precision');
  if (precision > 2) fail(ctx, 'corrupt', 'op.precision', `${precision} is not INT8, INT16 or FP16`);
  const src = cubeOf(surface, 'src_data');
  const dst = cubeOf(surface, 'dst_data');
  if (!src || !dst) fail(ctx, 'corrupt', 'surface', 'the RUBIK surface descriptor is incomplete');
  if (src.type === MEM_TYPE.HW || dst.type === MEM_TYPE.HW) fail(ctx, 'corrupt', 'surface.src_data.type', 'RUBIK reads and writes memory, never on the fly');
  const name = precision === 0 ? 'INT8' : precision === 1 ? 'INT16' : 'FP16';
  const res = (data: Float64Array | Float32Array, c: number, h: number, w: number): { output: EngineOutput } => ({ output: { channel: c, height: h, width: w, precision: name, where: 'memory', data, saturated: 0 } });
  if (mode === MODE.SPLIT) {
    if (dst.channel !== src.channel || dst.width !== src.width || dst.height !== src.height) fail(ctx, 'corrupt', 'surface.dst_data', 'split keeps the cube size');
    if (dst.planeStride === 0 && dst.channel > 1) fail(ctx, 'corrupt', 'surface.dst_data.plane_stride', '0 for several planes');
    const sref = featureRef(ctx, src, precision, 'src_data');
    const data = readFeature(sref, src, precision, ctx.hw.atomBytes);
    const size = planarExtent(dst, precision);
    const dref = ctx.mem.forWrite(ctx.mem.resolve(ctx.task, ctx.taskIndex, dst.address, dst.offset, size, ctx.place, 'surface.dst_data.address'));
    checkOverlap(ctx, dref, size, [{ ref: sref, size: featureExtent(src, precision, ctx.hw.atomBytes), field: 'src_data' }]);
    writePlanar(dref, dst, precision, data);
    return res(data, dst.channel, dst.height, dst.width);
  }
  if (mode === MODE.MERGE) {
    if (dst.channel !== src.channel || dst.width !== src.width || dst.height !== src.height) fail(ctx, 'corrupt', 'surface.dst_data', 'merge keeps the cube size');
    if (src.planeStride === 0 && src.channel > 1) fail(ctx, 'corrupt', 'surface.src_data.plane_stride', '0 for several planes (firmware asserts it is set)');
    const size = planarExtent(src, precision);
    const sref = ctx.mem.resolve(ctx.task, ctx.taskIndex, src.address, src.offset, size, ctx.place, 'surface.src_data.address');
    const data = readPlanar(sref, src, precision);
    const dref = ctx.mem.forWrite(featureRef(ctx, dst, precision, 'dst_data'));
    checkOverlap(ctx, dref, featureExtent(dst, precision, ctx.hw.atomBytes), [{ ref: sref, size, field: 'src_data' }]);
    writeFeature(dref, dst, precision, ctx.hw.atomBytes, data);
    return res(data, dst.channel, dst.height, dst.width);
  }
  if (mode !== MODE.CONTRACT) fail(ctx, 'corrupt', 'op.mode', `${mode} is not CONTRACT, SPLIT or MERGE`);
  const sx = n('stride_x');
  const sy = n('stride_y');
  if (sx < 1 || sy < 1) fail(ctx, 'corrupt', 'op.stride_x', `deconvolution stride ${sx}x${sy} is below 1`);
  if (dst.width !== src.width * sx || dst.height !== src.height * sy) {
    fail(ctx, 'corrupt', 'surface.dst_data', `contracting ${src.width}x${src.height} by ${sx}x${sy} gives ${src.width * sx}x${src.height * sy}, not ${dst.width}x${dst.height}`);
  }
  const per = channelsPerAtom(precision, ctx.hw.atomBytes);
  const outSurfaces = Math.ceil(dst.channel / per);
  const phaseChannels = outSurfaces * per;
  if (src.channel < phaseChannels * sx * sy) fail(ctx, 'corrupt', 'surface.src_data.channel', `${src.channel} channels hold fewer than ${sx * sy} phases of ${phaseChannels}`);
  const sref = featureRef(ctx, src, precision, 'src_data');
  const input = readFeature(sref, src, precision, ctx.hw.atomBytes);
  const out = new Float64Array(dst.channel * dst.height * dst.width);
  for (let py = 0; py < sy; py++)
    for (let px = 0; px < sx; px++) {
      const phase = py * sx + px;
      for (let c = 0; c < dst.channel; c++) {
        const ic = phase * phaseChannels + c;
        for (let y = 0; y < src.height; y++)
          for (let x = 0; x < src.width; x++) out[(c * dst.height + y * sy + py) * dst.width + x * sx + px] = input[(ic * src.height + y) * src.width + x]!;
      }
    }
  const dref = ctx.mem.forWrite(featureRef(ctx, dst, precision, 'dst_data'));
  checkOverlap(ctx, dref, featureExtent(dst, precision, ctx.hw.atomBytes), [{ ref: sref, size: featureExtent(src, precision, ctx.hw.atomBytes), field: 'src_data' }]);
  writeFeature(dref, dst, precision, ctx.hw.atomBytes, out);
  return res(out, dst.channel, dst.height, dst.width);
}
