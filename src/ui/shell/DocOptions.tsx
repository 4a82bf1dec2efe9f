import { useEffect, useState } from 'react';
import type { DocumentOption } from '../../worker/api';
import { setDocOption } from '../actions';
import type { Doc } from '../store';

/**
 * The document's options (`summary.options`: Caffe's phase and batch) as toolbar controls.
 * Changing one re-opens the file set in the worker with the new value (actions.setDocOption);
 * the controls show the values the document on screen was opened with.
 */
export function DocOptions({ doc }: { doc: Doc }) {
  const options = doc.summary.options ?? [];
  if (!options.length) return null;
  return (
    <span className="doc-options" role="group" aria-label="Document options">
      {options.map((o) => (o.kind === 'choice' ? <ChoiceOption key={o.name} doc={doc} option={o} /> : <IntOption key={o.name} doc={doc} option={o} />))}
    </span>
  );
}

function ChoiceOption({ doc, option }: { doc: Doc; option: DocumentOption }) {
  return (
    <label title={option.help}>
      <span className="muted">{option.label} </span>
      <select aria-label={option.label} value={String(option.value)} onChange={(e) => void setDocOption(doc.id, option.name, e.currentTarget.value)}>
        {(option.choices ?? []).map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A whole number, applied on Enter or when the field loses focus (each value re-opens the net). */
function IntOption({ doc, option }: { doc: Doc; option: DocumentOption }) {
  const [text, setText] = useState(String(option.value));
  useEffect(() => setText(String(option.value)), [option.value, doc.workerDocId]);
  const commit = () => {
    const v = Number(text);
    if (text.trim() === '' || !Number.isInteger(v) || v === option.value) {
      setText(String(option.value));
      return;
    }
    void setDocOption(doc.id, option.name, v);
  };
  return (
    <label title={option.help}>
      <span className="muted">{option.label} </span>
      <input
        aria-label={option.label}
        className="int-option"
        type="number"
        inputMode="numeric"
        min={option.min}
        max={option.max}
        step={1}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit();
          if (e.key === 'Escape') setText(String(option.value));
        }}
      />
    </label>
  );
}
