/**
 * Dead-item cleanup after the passes: tensors no operator, graph input/output or signature reads;
 * buffers no tensor or metadata entry uses; op codes no operator uses. Every index is renumbered
 * (operator inputs/outputs/intermediates, graph inputs/outputs, signature defs, tensor buffers,
 * metadata, opcode indices). buffers[0] stays.
 */
import type { CircleModel } from '../circle/model';
import { referencedBuffers, removeBuffers } from '../origin/buffers';

export interface CleanupCounts {
  tensors: number;
  buffers: number;
  opcodes: number;
}

export function removeDeadItems(model: CircleModel): { model: CircleModel; removed: CleanupCounts } {
  let tensorsRemoved = 0;
  const subgraphs = model.subgraphs.map((sg, si) => {
    const used = new Set<number>([...sg.inputs, ...sg.outputs]);
    for (const op of sg.operators) for (const t of [...op.inputs, ...op.outputs, ...op.intermediates]) if (t >= 0) used.add(t);
    for (const sd of model.signatureDefs) if (sd.subgraphIndex === si) for (const m of [...sd.inputs, ...sd.outputs]) used.add(m.tensorIndex);
    if (used.size >= sg.tensors.length) return { sg, map: null };
    const map = new Int32Array(sg.tensors.length).fill(-1);
    const tensors = sg.tensors.filter((_, i) => used.has(i));
    let k = 0;
    sg.tensors.forEach((_, i) => {
      if (used.has(i)) map[i] = k++;
    });
    tensorsRemoved += sg.tensors.length - tensors.length;
    const to = (t: number) => (t >= 0 ? map[t]! : t);
    return {
      sg: {
        ...sg,
        tensors,
        inputs: sg.inputs.map(to),
        outputs: sg.outputs.map(to),
        operators: sg.operators.map((op) => ({ ...op, inputs: op.inputs.map(to), outputs: op.outputs.map(to), intermediates: op.intermediates.map(to) })),
      },
      map,
    };
  });
  const signatureDefs = model.signatureDefs.map((sd) => {
    const map = subgraphs[sd.subgraphIndex]?.map;
    if (!map) return sd;
    const to = (m: { name: string; tensorIndex: number }) => ({ ...m, tensorIndex: map[m.tensorIndex] ?? m.tensorIndex });
    return { ...sd, inputs: sd.inputs.map(to), outputs: sd.outputs.map(to) };
  });
  let m: CircleModel = { ...model, subgraphs: subgraphs.map((x) => x.sg), signatureDefs };

  const usedBuffers = referencedBuffers(m);
  const deadBuffers = new Set<number>();
  m.buffers.forEach((_, i) => {
    if (i !== 0 && !usedBuffers.has(i)) deadBuffers.add(i);
  });
  m = removeBuffers(m, deadBuffers);

  const usedCodes = new Set<number>();
  for (const sg of m.subgraphs) for (const op of sg.operators) usedCodes.add(op.opcodeIndex);
  let opcodesRemoved = 0;
  if (usedCodes.size < m.operatorCodes.length) {
    const map = new Int32Array(m.operatorCodes.length).fill(-1);
    const operatorCodes = m.operatorCodes.filter((_, i) => usedCodes.has(i));
    let k = 0;
    m.operatorCodes.forEach((_, i) => {
      if (usedCodes.has(i)) map[i] = k++;
    });
    opcodesRemoved = m.operatorCodes.length - operatorCodes.length;
    m = {
      ...m,
      operatorCodes,
      subgraphs: m.subgraphs.map((sg) => ({ ...sg, operators: sg.operators.map((op) => ({ ...op, opcodeIndex: map[op.opcodeIndex] ?? op.opcodeIndex })) })),
    };
  }
  return { model: m, removed: { tensors: tensorsRemoved, buffers: deadBuffers.size, opcodes: opcodesRemoved } };
}
