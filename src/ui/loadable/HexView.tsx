/**
 * A virtualised hex view of one blob: 16 bytes a row, only the rows in view in the DOM, the
 * bytes asked of the worker 4 KiB at a time as they scroll into view (a 125 MB blob never
 * crosses to the UI whole). Past the browser's element height the scroll position maps onto the
 * rows proportionally. Bytes inside a descriptor are tinted per descriptor, named in a tooltip,
 * and labelled at the row where the descriptor starts.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { blobBytesOf, hex } from './data';
import { grouped } from '../capabilities';

const ROW = 18;
const PER_ROW = 16;
const PAGE = 4096;
/** the scrolled element's height is capped here (browsers stop near 16-33 M px) */
const MAX_HEIGHT = 4_000_000;
const VIEW = 22;

export interface HexRange {
  offset: number;
  size: number;
  label: string;
  node: number | null;
}

interface Props {
  workerDocId: string;
  blob: number;
  name: string;
  length: number;
  ranges: readonly HexRange[];
  /** a byte to bring into view (changes move the view) */
  reveal: number | null;
  onRange?: (r: HexRange) => void;
  /** called once, when the first window of bytes has arrived (or could not be read) */
  onFirstWindow?: () => void;
}

export function HexView({ workerDocId, blob, name, length, ranges, reveal, onRange, onFirstWindow }: Props) {
  const rows = Math.ceil(length / PER_ROW);
  const viewH = Math.min(VIEW, Math.max(1, rows)) * ROW;
  const fullH = rows * ROW;
  const virtH = Math.min(fullH, MAX_HEIGHT);
  const scale = fullH > virtH ? (fullH - viewH) / Math.max(1, virtH - viewH) : 1;
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const pages = useRef(new Map<number, Uint8Array | 'pending'>());
  const [, setVersion] = useState(0);
  const [goto, setGoto] = useState('');
  const [error, setError] = useState<string | null>(null);

  // a new blob (or document) starts from an empty page cache
  const key = `${workerDocId}:${blob}`;
  const lastKey = useRef(key);
  if (lastKey.current !== key) {
    lastKey.current = key;
    pages.current = new Map();
  }

  const firstPx = top * scale;
  const first = Math.min(Math.max(0, rows - 1), Math.floor(firstPx / ROW));
  const shift = firstPx - first * ROW;
  const count = Math.min(rows - first, Math.ceil(viewH / ROW) + 1);

  useEffect(() => {
    const lo = Math.floor((first * PER_ROW) / PAGE);
    const hi = Math.floor(((first + count) * PER_ROW - 1) / PAGE);
    for (let p = lo; p <= hi; p++) {
      if (pages.current.has(p) || p * PAGE >= length) continue;
      pages.current.set(p, 'pending');
      const want = key;
      blobBytesOf(workerDocId, blob, p * PAGE, PAGE)
        .then((bytes) => {
          if (lastKey.current !== want) return;
          pages.current.set(p, bytes);
          setVersion((v) => v + 1);
          onFirstWindow?.();
        })
        .catch((e: unknown) => {
          pages.current.delete(p);
          setError(e instanceof Error ? e.message : String(e));
          onFirstWindow?.();
        });
    }
  }, [first, count, key, length, workerDocId, blob]);

  const scrollTo = (offset: number) => {
    const el = scroller.current;
    if (!el) return;
    const row = Math.floor(Math.max(0, Math.min(length - 1, offset)) / PER_ROW);
    el.scrollTop = (row * ROW) / scale;
    setTop(el.scrollTop);
  };
  useEffect(() => {
    if (reveal !== null) scrollTo(reveal);
  }, [reveal, key]); // eslint-disable-line react-hooks/exhaustive-deps

  const sorted = useMemo(() => [...ranges].sort((a, b) => a.offset - b.offset), [ranges]);
  const rangeAt = (off: number): number => {
    let a = 0;
    let b = sorted.length - 1;
    while (a <= b) {
      const m = (a + b) >> 1;
      const r = sorted[m]!;
      if (off < r.offset) b = m - 1;
      else if (off >= r.offset + r.size) a = m + 1;
      else return m;
    }
    return -1;
  };

  const byteAt = (off: number): number | null => {
    const page = pages.current.get(Math.floor(off / PAGE));
    if (!page || page === 'pending') return null;
    const v = page[off % PAGE];
    return v === undefined ? null : v;
  };

  const lines = [];
  for (let i = 0; i < count; i++) {
    const row = first + i;
    const base = row * PER_ROW;
    const cells = [];
    let ascii = '';
    let startLabel: HexRange | null = null;
    for (let k = 0; k < PER_ROW; k++) {
      const off = base + k;
      if (off >= length) {
        cells.push(<span key={k} className="lv-hx-b lv-hx-none">{'  '}</span>);
        continue;
      }
      const v = byteAt(off);
      const ri = sorted.length ? rangeAt(off) : -1;
      const r = ri >= 0 ? sorted[ri]! : null;
      if (r && r.offset === off && !startLabel) startLabel = r;
      cells.push(
        <span key={k} className={`lv-hx-b${r ? ` lv-hx-r${ri % 2}` : ''}`} title={r ? `${r.label} · byte ${off} (+${off - r.offset} in it)` : `byte ${off}`}>
          {v === null ? '··' : v.toString(16).padStart(2, '0')}
        </span>,
      );
      ascii += v === null ? ' ' : v >= 0x20 && v < 0x7f ? String.fromCharCode(v) : '.';
    }
    lines.push(
      <div key={row} className="lv-hx-row" data-offset={base} style={{ height: ROW }}>
        <span className="lv-hx-off">{base.toString(16).padStart(8, '0')}</span>
        <span className="lv-hx-bytes">{cells}</span>
        <span className="lv-hx-ascii">{ascii}</span>
        {startLabel &&
          (onRange && startLabel.node !== null ? (
            <button type="button" className="link lv-hx-label" onClick={() => onRange(startLabel!)}>
              {startLabel.label}
            </button>
          ) : (
            <span className="lv-hx-label muted">{startLabel.label}</span>
          ))}
      </div>,
    );
  }

  return (
    <div className="lv-hex" data-testid="hex-view">
      <form
        className="lv-hex-bar"
        onSubmit={(e) => {
          e.preventDefault();
          const t = goto.trim().toLowerCase();
          const n = t.startsWith('0x') ? parseInt(t.slice(2), 16) : Number(t);
          if (Number.isFinite(n)) scrollTo(n);
        }}
      >
        <span className="muted">
          {name}: {grouped(length)} bytes{rows > 0 ? ` · rows ${hex(first * PER_ROW, 8)}–${hex(Math.min(length, (first + count) * PER_ROW), 8)}` : ''}
        </span>
        <span className="spacer" />
        <label>
          Go to byte <input aria-label="Go to byte" value={goto} onChange={(e) => setGoto(e.target.value)} placeholder="1234 or 0x4d2" size={12} />
        </label>
      </form>
      {error && <div className="diag-error">{error}</div>}
      {length === 0 ? (
        <p className="muted">The blob holds no bytes.</p>
      ) : (
        <div
          ref={scroller}
          className="lv-hx-scroll"
          role="region"
          aria-label={`Bytes of blob ${name}`}
          tabIndex={0}
          style={{ height: viewH }}
          onScroll={(e) => setTop(e.currentTarget.scrollTop)}
        >
          <div style={{ height: virtH, position: 'relative', overflow: 'hidden' }}>
            <div style={{ position: 'absolute', left: 0, right: 0, top: top - shift }}>{lines}</div>
          </div>
        </div>
      )}
    </div>
  );
}
