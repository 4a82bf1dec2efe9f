/**
 * A drag handle between two panes (WAI-ARIA window splitter): drag it with the pointer, or focus
 * it (Tab) and use the arrow keys (Shift for bigger steps), Home / End for the smallest / largest
 * size. It sets the size of the pane it belongs to; `grow` says which pointer direction makes that
 * pane bigger (a side panel on the right grows leftwards, on the left rightwards; the bottom dock
 * upwards).
 */
import { useCallback, type PointerEvent as ReactPointerEvent } from 'react';

export interface SplitterProps {
  /** accessible name, e.g. "Resize the side panel" */
  label: string;
  /** the separator's own orientation: 'vertical' between side-by-side panes, 'horizontal' above a dock */
  orientation: 'vertical' | 'horizontal';
  /** which way the pointer moves to make the pane bigger */
  grow: 'left' | 'right' | 'up';
  /** the pane's size now, in CSS pixels */
  value: number;
  min: number;
  /** the largest size, read when a drag or key press starts (it depends on the window) */
  max(): number;
  onChange(size: number): void;
  className?: string;
}

const STEP = 16;

export function clampSize(v: number, min: number, max: number): number {
  return Math.round(Math.min(Math.max(min, max), Math.max(min, v)));
}

export function Splitter({ label, orientation, grow, value, min, max, onChange, className }: SplitterProps) {
  const onPointerDown = useCallback(
    (e: ReactPointerEvent<HTMLDivElement>) => {
      if (e.button !== 0) return;
      e.preventDefault();
      const start = grow === 'up' ? e.clientY : e.clientX;
      const sign = grow === 'right' ? -1 : 1;
      const startSize = value;
      const hi = max();
      const move = (ev: PointerEvent) => {
        const at = grow === 'up' ? ev.clientY : ev.clientX;
        onChange(clampSize(startSize + sign * (start - at), min, hi));
      };
      const up = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
        document.body.classList.remove('resizing');
      };
      document.body.classList.add('resizing');
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    },
    [grow, value, min, max, onChange],
  );

  const hi = max();
  return (
    <div
      className={`splitter splitter-${orientation}${className ? ` ${className}` : ''}`}
      role="separator"
      aria-orientation={orientation}
      aria-label={label}
      aria-valuenow={Math.round(value)}
      aria-valuemin={min}
      aria-valuemax={Math.round(hi)}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={(e) => {
        const step = e.shiftKey ? STEP * 4 : STEP;
        const bigger = grow === 'left' ? 'ArrowLeft' : grow === 'right' ? 'ArrowRight' : 'ArrowUp';
        const smaller = grow === 'left' ? 'ArrowRight' : grow === 'right' ? 'ArrowLeft' : 'ArrowDown';
        let next: number | null = null;
        if (e.key === bigger) next = value + step;
        else if (e.key === smaller) next = value - step;
        else if (e.key === 'Home') next = min;
        else if (e.key === 'End') next = hi;
        if (next === null) return;
        e.preventDefault();
        onChange(clampSize(next, min, max()));
      }}
    />
  );
}
