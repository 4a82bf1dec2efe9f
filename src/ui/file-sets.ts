/**
 * Which dropped or picked files open together, by name only (the UI thread never reads a model's
 * bytes): each file set becomes a tab, its first file decides the format in the worker.
 *
 * - A circle model's `.part` / `.ini` sidecars go with the first model.
 * - Caffe: a `.caffemodel` goes with the deploy `.prototxt` whose name shares the longest stem
 *   with it (or the only one); a training net or solver (`*train*`, `*solver*` prototxt) dropped
 *   beside a deploy goes with it (its transform_param gives the run's default scale and mean; a
 *   solver names the net to open). Alone, each still opens: a caffemodel with its embedded net,
 *   a train_test net with its phase selector.
 * - A `.json` dropped with a Caffe net is a calibration table of its NVDLA compile: it goes with
 *   the first Caffe set (the compile form offers it).
 * - Images (`.png`, `.jpg`, `.jpeg`) and `.npy` arrays are not documents: they are inputs of a
 *   run of the net they were dropped with, or of the open tab.
 */
export interface NamedFile {
  name: string;
}

export interface FileSets<F extends NamedFile> {
  sets: F[][];
  runInputs: F[];
}

const PART_SIDECAR = /\.(part|ini)$/i;
const CAFFEMODEL = /\.caffemodel$/i;
const PROTOTXT = /\.(prototxt|pbtxt)$/i;
const TRAINING = /(train|solver)/i;
const RUN_INPUT = /\.(png|jpe?g|npy)$/i;
const CALIBRATION = /\.json$/i;

/** a `.part` (or `.ini`) partition file */
export function isPartName(name: string): boolean {
  return PART_SIDECAR.test(name);
}

export function isRunInputName(name: string): boolean {
  return RUN_INPUT.test(name);
}

function stem(name: string): string {
  return name.replace(/\.[^.]*$/, '').toLowerCase();
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

export function groupFiles<F extends NamedFile>(files: readonly F[]): FileSets<F> {
  const runInputs = files.filter((f) => RUN_INPUT.test(f.name));
  const rest = files.filter((f) => !RUN_INPUT.test(f.name));
  const parts = rest.filter((f) => PART_SIDECAR.test(f.name));
  const weights = rest.filter((f) => CAFFEMODEL.test(f.name));
  const nets = rest.filter((f) => PROTOTXT.test(f.name));
  const deploys = nets.filter((f) => !TRAINING.test(f.name));
  const training = nets.filter((f) => TRAINING.test(f.name));
  const others = rest.filter((f) => !parts.includes(f) && !weights.includes(f) && !nets.includes(f));

  // the nets that head a Caffe set: the deploys; without any, a solver (the net it names goes
  // with it), else each training net
  const solver = training.find((f) => /solver/i.test(f.name));
  const heads = deploys.length ? deploys : solver ? [solver] : training;
  const caffeSets = new Map<F, F[]>(heads.map((h) => [h, [h]]));
  if (deploys.length || solver) for (const t of training) if (t !== heads[0]) caffeSets.get(heads[0]!)!.push(t);
  const alone: F[][] = [];
  for (const w of weights) {
    let best: F | null = null;
    let bestLength = 0;
    for (const h of heads) {
      const n = commonPrefix(stem(h.name), stem(w.name));
      if (n > bestLength) {
        best = h;
        bestLength = n;
      }
    }
    if (best && bestLength >= 3) caffeSets.get(best)!.push(w);
    else if (heads.length === 1) caffeSets.get(heads[0]!)!.push(w);
    else alone.push([w]);
  }
  // a set's head comes first, then the weights, then the other nets (core/caffe/model.ts reads them so)
  const caffe = [...caffeSets.values()].map(([head, ...more]) => [head!, ...more.filter((f) => CAFFEMODEL.test(f.name)), ...more.filter((f) => !CAFFEMODEL.test(f.name))]);
  // calibration tables (JSON) go with the first Caffe net
  const tables = caffe.length ? others.filter((f) => CALIBRATION.test(f.name)) : [];
  if (tables.length) caffe[0]!.push(...tables);

  const mains = others.filter((f) => !tables.includes(f));
  const sets: F[][] = [];
  if (mains.length) mains.forEach((m, i) => sets.push(i === 0 ? [m, ...parts] : [m]));
  else if (parts.length && !caffe.length && !alone.length) sets.push(parts);
  sets.push(...caffe, ...alone);
  return { sets, runInputs };
}

/**
 * The label of a new tab: its file name, or, when an open tab already shows that name, the name
 * with the folder it came from (a dropped folder's relative path) or else the first free ` (N)`
 * suffix, so two `model.circle` tabs are told apart in the tab strip, the status bar and the palette.
 */
export function distinctLabel(name: string, folder: string, openLabels: readonly string[]): string {
  const taken = new Set(openLabels);
  if (!taken.has(name)) return name;
  if (folder) {
    const withFolder = `${folder}/${name}`;
    if (!taken.has(withFolder)) return withFolder;
  }
  for (let n = 2; ; n++) {
    const label = `${name} (${n})`;
    if (!taken.has(label)) return label;
  }
}
