/** The open Caffe models to pair with a loadable (to compare with, or to calibrate from). */
import type { Doc } from '../store';

export function CaffeModelSelect({ caffes, value, label, onChange }: { caffes: readonly Doc[]; value: string | null; label: string; onChange: (tabId: string | null) => void }) {
  return (
    <label>
      Caffe model{' '}
      <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value || null)}>
        {caffes.map((d) => (
          <option key={d.id} value={d.id}>
            {d.title}
          </option>
        ))}
      </select>
    </label>
  );
}
