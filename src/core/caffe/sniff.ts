/**
 * Which kind of Caffe file a set of bytes is, without the schema (caffe.md section 2.3):
 * binary when the first 256 characters hold a NUL or another control character (Netron's rule),
 * otherwise text; a text file is a net when its top-level fields include `layer` or `layers`,
 * a solver when they include `net`, `train_net` or `net_param`.
 */
export type CaffeFileKind = 'binary' | 'net' | 'solver' | 'text';

export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 256);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c < 9 || (c > 13 && c < 32) || c === 127) return true;
  }
  return false;
}

/** Top-level field names of a protobuf text (comments and strings skipped). */
export function topLevelFields(text: string, limit = 1 << 20): Set<string> {
  const names = new Set<string>();
  let depth = 0;
  const n = Math.min(text.length, limit);
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < n && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '{' || c === '<') {
      depth++;
      i++;
    } else if (c === '}' || c === '>') {
      depth--;
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(text[j]!)) j++;
      if (depth === 0) {
        let k = j;
        while (k < n && /\s/.test(text[k]!)) k++;
        if (text[k] === ':' || text[k] === '{' || text[k] === '<') names.add(text.slice(i, j));
      }
      i = j;
    } else {
      i++;
    }
  }
  return names;
}

export function sniffCaffe(bytes: Uint8Array): CaffeFileKind {
  if (looksBinary(bytes)) return 'binary';
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, Math.min(bytes.length, 1 << 20)));
  const fields = topLevelFields(text);
  if (fields.has('layer') || fields.has('layers')) return 'net';
  if (fields.has('net') || fields.has('train_net') || fields.has('net_param')) return 'solver';
  return 'text';
}

export function isCaffemodelName(name: string): boolean {
  return /\.caffemodel$/i.test(name);
}

/** NumPy's `.npy` magic (\x93NUMPY): an array, never a net, whatever its bytes look like. */
function isNpyMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 6 && bytes[0] === 0x93 && bytes[1] === 0x4e && bytes[2] === 0x55 && bytes[3] === 0x4d && bytes[4] === 0x50 && bytes[5] === 0x59;
}

/**
 * Whether the main file of a set is a Caffe file (the format registry's detect, so cheap: the
 * name, or the top-level field names of the first MiB of a text): a `.caffemodel`, a net
 * (`layer` / `layers`), a solver, or a `.prototxt` / `.pbtxt` text.
 */
export function detectCaffe(bytes: Uint8Array, name: string): boolean {
  if (bytes.length === 0) return false;
  if (isCaffemodelName(name)) return true;
  if (looksBinary(bytes) || isNpyMagic(bytes)) return false;
  const kind = sniffCaffe(bytes);
  if (kind === 'net' || kind === 'solver') return true;
  return /\.(prototxt|pbtxt)$/i.test(name) && kind === 'text';
}
