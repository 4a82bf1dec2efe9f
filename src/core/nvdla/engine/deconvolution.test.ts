/**
 * A strided deconvolution whose output channels are not a multiple of the channel group (3 and 20
 * channels, stride 2; 16 FP16 / 32 INT8 channels a group on nv_full, 8 INT8 on nv_small), run on
 * the DLA model against the Caffe float pass of the same seeded weights.
 *
 * The phase convolutions' outputs are concatenated along C, and that concat places each input
 * after the whole channel groups of the ones before it, as a Caffe concat does (concat-gaps.ts).
 * Here that does not leave the buffer short: the deconvolution's output surface is suggested with
 * its channels rounded up to the group (upstream `ConvCoreDeconvolutionOpNode::suggestSurfaceDims`,
 * suggest.ts), its fused SDP takes those dims, so every phase is whole groups, the concat's plain
 * sum of its inputs' channels is already the group-aligned total, and the Rubik contract reads
 * phase p at channel p x roundUp(C, group), which is where it was written. These tests keep it so:
 * the values (per layer, in dB), the layout the Rubik reads, and the memory plan (no op slot
 * writes past the end of its buffer, none overwrites a tensor a later slot still reads).
 */
import { describe, expect, it } from 'vitest';
import { cubeOf, type Cube } from '../../dla/cube';
import { read } from '../../loadable/read';
import { decodeTasks, type OpSlot } from '../../loadable/tasks';
import { compileNvdla, type NvdlaCompileResult } from '../compile';
import { readDeploy } from '../network/caffe-files';
import { synthetic } from '../../../../test/support/nvdla/fixtures';
import { int8Agreement } from '../../../../test/support/nvdla/int8-agreement';

/** conv c1 (16 channels), the deconvolution `up` (C channels, 2x2 kernel, stride 2), conv c2 reading it */
const net = (c: number) => `name: "deconv${c}"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 4 dim: 6 dim: 6 } } }
layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }
layer { name: "up" type: "Deconvolution" bottom: "c1" top: "up" convolution_param { num_output: ${c} kernel_size: 2 stride: 2 } }
layer { name: "c2" type: "Convolution" bottom: "up" top: "c2" convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
`;

const TARGETS = [
  { configtarget: 'nv_full', cprecision: 'fp16', group: 16, atomBytes: 32, elementBytes: 2, floor: 60 },
  { configtarget: 'nv_full', cprecision: 'int8', group: 32, atomBytes: 32, elementBytes: 1, floor: 32 },
  { configtarget: 'nv_small', cprecision: 'int8', group: 8, atomBytes: 8, elementBytes: 1, floor: 32 },
] as const;
const CASES = [3, 20].flatMap((channels) => TARGETS.map((t) => ({ channels, ...t })));

/** where a descriptor's cube sits: memory entry and byte range of what the engine touches (whole atoms, as the hardware does) */
interface Extent {
  mem: number;
  start: number;
  end: number;
}

function extentOf(l: ReturnType<typeof read>, task: number, cube: Cube | null, atomBytes: number, elementBytes: number): Extent | null {
  if (!cube || cube.address < 0 || cube.type === 2) return null; // on the fly (HW) or no address
  const id = l.task_list[task]!.address_list[cube.address]!;
  const a = l.address_list[id]!;
  const groups = Math.ceil(cube.channel / (atomBytes / elementBytes));
  const start = a.offset + cube.offset;
  return { mem: a.mem_id, start, end: start + (groups - 1) * cube.surfStride + (cube.height - 1) * cube.lineStride + cube.width * atomBytes };
}

/**
 * Every op slot's reads and writes as the loadable programs them, beside the buffer the compiler
 * planned for each (`tb-N`, its size and where the surface sits in it). Problems found: a write or
 * read past its buffer's end, and a write over a tensor (another buffer) that a later slot reads.
 */
function memoryProblems(r: NvdlaCompileResult, atomBytes: number, elementBytes: number): { problems: string[]; checked: { slots: number; reads: number; writes: number } } {
  const l = read(r.bytes!, 'deconv.nvdla');
  const g = r.passes.at(-1)!.graph!;
  const edges = new Map(g.edges.map((e) => [e.id, e]));
  const surfaces = new Map(g.surfaces.map((s) => [s.id, s]));
  const buffers = new Map(g.buffers.map((b) => [b.id, b]));
  const bySlot = new Map<string, (typeof g.nodes)[number]>();
  for (const n of g.nodes) if (n.taskId >= 0 && n.dependency[0]!.slot >= 0) bySlot.set(`${n.taskId}:${n.dependency[0]!.slot}`, n);
  const memorySurface = (edgeId: string | undefined) => {
    const s = edgeId === undefined ? undefined : surfaces.get(edges.get(edgeId)!.surface!);
    // feature data only (the network input is an image, pitch linear: not in atoms)
    return s && s.category !== 'STREAM' && s.buffer && s.format.startsWith('NVDLA_FEATURE_DATA') ? s : null;
  };
  const problems: string[] = [];
  const io: { name: string; reads: (Extent & { buffer: string })[]; writes: (Extent & { buffer: string })[] }[] = [];
  const decoded = decodeTasks(l);
  for (const t of decoded.tasks) {
    if (t.kind !== 'DLA') continue;
    for (const slot of t.slots as OpSlot[]) {
      const n = bySlot.get(`${t.index}:${slot.slot}`);
      if (!n || !slot.surface) continue;
      const entry = { name: `${n.name} (slot ${t.index}.${slot.slot})`, reads: [] as (Extent & { buffer: string })[], writes: [] as (Extent & { buffer: string })[] };
      const sides = [
        { cube: cubeOf(slot.surface, 'src_data'), surface: memorySurface(n.inputEdges[0]), list: entry.reads, what: 'reads' },
        { cube: cubeOf(slot.surface, 'dst_data'), surface: memorySurface(n.outputEdges[0]), list: entry.writes, what: 'writes' },
      ];
      for (const side of sides) {
        const x = extentOf(l, t.index, side.cube, atomBytes, elementBytes);
        if (!x || !side.surface) continue;
        const buffer = buffers.get(side.surface.buffer!)!;
        const bufferStart = x.start - side.surface.bufferOffset;
        if (x.end > bufferStart + buffer.size) problems.push(`${entry.name} ${side.what} ${x.end - x.start} bytes of ${side.surface.id} at ${side.surface.bufferOffset} in ${buffer.id}: ${x.end - bufferStart - buffer.size} bytes past its ${buffer.size}`);
        side.list.push({ ...x, buffer: buffer.id });
      }
      io.push(entry);
    }
  }
  io.forEach((w, i) => {
    for (const out of w.writes)
      for (let j = i + 1; j < io.length; j++)
        for (const rd of io[j]!.reads) {
          if (rd.buffer === out.buffer || rd.mem !== out.mem || !(rd.start < out.end && out.start < rd.end)) continue;
          // the read tensor was written before this write: this write destroys it
          if (io.slice(0, i).some((o) => o.writes.some((x) => x.buffer === rd.buffer))) problems.push(`${w.name} writes over ${rd.buffer}, read later by ${io[j]!.name}`);
        }
  });
  const count = (k: 'reads' | 'writes') => io.reduce((n, x) => n + x[k].length, 0);
  return { problems, checked: { slots: io.length, reads: count('reads'), writes: count('writes') } };
}

describe('strided deconvolution with output channels not a multiple of the channel group', () => {
  it.each(CASES)('$channels channels, $configtarget $cprecision: up (the Rubik contract) and c2 after it above $floor dB against Caffe; the Rubik reads the phases where they were written', async ({ channels, configtarget, cprecision, group, atomBytes, elementBytes, floor }) => {
    const text = net(channels);
    const deploy = readDeploy(text, `deconv${channels}.prototxt`);
    const r = await int8Agreement(text, deploy, synthetic(deploy), { configtarget, cprecision, profile: 'fast-math' }, { lo: -1, hi: 1 });
    expect(r.compile.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);

    // 4 phase convolutions (+ SDP each), their concat read whole by the Rubik: phase p at channel p x roundUp(C, group)
    const phaseChannels = Math.ceil(channels / group) * group;
    const l = read(r.compile.bytes!, 'deconv.nvdla');
    const slots = decodeTasks(l).tasks.flatMap((t) => (t.kind === 'DLA' ? t.slots : []));
    const rubik = slots.filter((s) => s.engine === 'RUBIK');
    expect(rubik.length).toBe(1);
    const src = cubeOf(rubik[0]!.surface!, 'src_data')!;
    const dst = cubeOf(rubik[0]!.surface!, 'dst_data')!;
    expect({ src: [src.channel, src.height, src.width], dst: [dst.channel, dst.height, dst.width] }).toEqual({ src: [4 * phaseChannels, 6, 6], dst: [phaseChannels, 12, 12] });
    const phaseWrites = slots.filter((s) => s.engine === 'SDP').map((s) => cubeOf(s.surface!, 'dst_data')!).filter((c) => c.width === 6 && c.channel === channels);
    const phaseBytes = (phaseChannels / (atomBytes / elementBytes)) * src.surfStride;
    expect(phaseWrites.map((c) => c.offset - src.offset)).toEqual([0, 1, 2, 3].map((p) => p * phaseBytes));

    // the values: the deconvolution itself (its first C surface channels) and the convolution reading it
    expect(r.rows.map((row) => `${row.layer} ${row.engine}`)).toEqual(['c1 SDP', 'up RUBIK', 'c2 SDP']);
    const low = r.rows.filter((row) => !(row.metrics.snrDb > floor)).map((row) => `${row.layer}: ${row.metrics.snrDb.toFixed(1)} dB`);
    expect(low).toEqual([]);
  }, 120_000);

  // a Rubik writes its channels rounded up to the group: as a concat input starting on a group
  // boundary (concat-gaps.ts) the extra channels fall in the gap or in its own last group
  it.each(TARGETS)('two deconvolutions (20 and 3 channels) into a Caffe concat, $configtarget $cprecision: every layer above $floor dB less 2', async ({ configtarget, cprecision, floor }) => {
    const text = `name: "deconvcat"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 4 dim: 6 dim: 6 } } }
layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }
layer { name: "up" type: "Deconvolution" bottom: "c1" top: "up" convolution_param { num_output: 3 kernel_size: 2 stride: 2 } }
layer { name: "up2" type: "Deconvolution" bottom: "c1" top: "up2" convolution_param { num_output: 20 kernel_size: 2 stride: 2 } }
layer { name: "cat" type: "Concat" bottom: "up2" bottom: "up" top: "cat" }
layer { name: "c2" type: "Convolution" bottom: "cat" top: "c2" convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
`;
    const deploy = readDeploy(text, 'deconvcat.prototxt');
    const r = await int8Agreement(text, deploy, synthetic(deploy), { configtarget, cprecision, profile: 'fast-math' }, { lo: -1, hi: 1 });
    expect(r.rows.map((row) => `${row.layer} ${row.engine}`)).toEqual(['c1 SDP', 'up RUBIK', 'up2 RUBIK', 'c2 SDP']);
    // in INT8 the concat's inputs take its scale (calibration ties): up2 at 32.5 dB there, 36.8 alone
    const low = r.rows.filter((row) => !(row.metrics.snrDb > floor - 2)).map((row) => `${row.layer}: ${row.metrics.snrDb.toFixed(1)} dB`);
    expect(low).toEqual([]);
  }, 120_000);

  // the memory plan on its own (compiled without a calibration table: the same layout), so that a
  // fault shows here even where the DLA model would refuse to run the loadable
  it.each(CASES)('$channels channels, $configtarget $cprecision: every op slot reads and writes inside its buffer, and none writes over a tensor a later slot reads', ({ channels, configtarget, cprecision, atomBytes, elementBytes }) => {
    const deploy = readDeploy(net(channels), `deconv${channels}.prototxt`);
    const r = compileNvdla(deploy, synthetic(deploy), { configtarget, cprecision, profile: 'fast-math' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const mem = memoryProblems(r, atomBytes, elementBytes);
    // 13 slots: c1, the 4 phases and c2 as a convolution and its SDP each, the Rubik; reads: the 4
    // phase convolutions (c1's output), the Rubik (the phases' concat), c2 (the Rubik's output);
    // writes: the SDPs of c1, the 4 phases and c2, the Rubik (c1's image input is not feature data)
    expect(mem.checked).toEqual({ slots: 13, reads: 6, writes: 7 });
    expect(mem.problems).toEqual([]);
  });
});
