/** A windowed list of fixed-height rows (ARIA table rows): only the rows in view are in the DOM. */
import { useEffect, useRef, useState, type ReactNode } from 'react';

export const ROW_HEIGHT = 24;
const OVERSCAN = 8;

export interface VirtualRowsProps {
  count: number;
  /** visible height in px (the body scrolls inside it) */
  height: number;
  label: string;
  header: ReactNode;
  row(index: number): ReactNode;
  /** a row index to bring into view when it changes */
  reveal?: number | null;
}

export function VirtualRows({ count, height, label, header, row, reveal }: VirtualRowsProps) {
  const body = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  useEffect(() => {
    const el = body.current;
    if (!el || reveal === null || reveal === undefined || reveal < 0) return;
    const y = reveal * ROW_HEIGHT;
    if (y < el.scrollTop || y + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, y - el.clientHeight / 3);
  }, [reveal]);
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(row(i));
  return (
    <div role="table" aria-label={label} aria-rowcount={count + 1} className="vt">
      <div role="rowgroup" className="vt-head">
        {header}
      </div>
      <div
        ref={body}
        role="rowgroup"
        className="vt-body"
        style={{ height: Math.min(height, Math.max(ROW_HEIGHT, count * ROW_HEIGHT)) }}
        onScroll={(e) => setTop(e.currentTarget.scrollTop)}
      >
        <div style={{ height: count * ROW_HEIGHT, position: 'relative' }}>
          <div style={{ position: 'absolute', left: 0, right: 0, top: first * ROW_HEIGHT }}>{rows}</div>
        </div>
      </div>
    </div>
  );
}
