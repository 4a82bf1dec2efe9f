/**
 * Small pieces every loadable view uses: the damage mark, the engine swatch, a decoded struct as
 * a tree of fields (the side panel and the compare view), and a link to a blob's bytes.
 * Text only: names and strings from the file are never injected as HTML.
 */
import { useState, type ReactNode } from 'react';
import type { FieldView, StructView } from '../../worker/api';
import { engineColor } from '../graph/style';
import { hex } from './data';

/** A ⚠ with the reasons in its accessible name and tooltip; nothing without reasons. */
export function DamageMark({ messages, label = 'damaged' }: { messages: readonly string[] | undefined; label?: string }) {
  if (!messages || messages.length === 0) return null;
  const text = messages.join('\n');
  return (
    <span className="lv-damage" role="img" aria-label={`${label}: ${messages.join('; ')}`} title={text} data-damage={messages.length}>
      ⚠
    </span>
  );
}

export function EngineSwatch({ engine, theme }: { engine: string; theme: 'light' | 'dark' }) {
  return <span className="lv-swatch" aria-hidden="true" style={{ background: engineColor(engine, theme) }} />;
}

/** `blob "task-0-op_list" + 116` as a button that opens the Blobs view there. */
export function BlobLink({ blob, offset, onOpen, children }: { blob: string; offset: number; onOpen?: () => void; children?: ReactNode }) {
  const text = children ?? `${blob} + ${offset} (${hex(offset)})`;
  if (!onOpen) return <span className="mono">{text}</span>;
  return (
    <button type="button" className="link mono" onClick={onOpen} title={`Show the bytes of blob "${blob}" at ${offset}`}>
      {text}
    </button>
  );
}

export interface StructTreeProps {
  s: StructView;
  /** field paths to highlight (the compare view's differences) */
  highlight?: ReadonlySet<string>;
  /** the other side's values by path, shown beside highlighted fields */
  otherValues?: ReadonlyMap<string, string>;
  showReserved: boolean;
  /** opens the blob at a byte offset */
  onBlob?: (blob: string, offset: number) => void;
  label: string;
}

function valueText(f: FieldView): string {
  if (f.missing) return '(missing)';
  return f.value ?? '';
}

function hasHighlight(f: FieldView, hl: ReadonlySet<string> | undefined): boolean {
  if (!hl || hl.size === 0) return false;
  if (hl.has(f.path)) return true;
  return !!f.fields?.some((x) => hasHighlight(x, hl));
}

function hasDamage(f: FieldView): boolean {
  return !!f.damage?.length || !!f.missing || !!f.fields?.some(hasDamage);
}

/** A descriptor field by field: name, value, enum name, byte offset; nested structs fold. */
export function StructTree({ s, highlight, otherValues, showReserved, onBlob, label }: StructTreeProps) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (path: string) =>
    setCollapsed((c) => {
      const n = new Set(c);
      if (n.has(path)) n.delete(path);
      else n.add(path);
      return n;
    });
  const rows: ReactNode[] = [];
  const walk = (fields: FieldView[], depth: number) => {
    for (const f of fields) {
      if (f.reserved && !showReserved && !hasHighlight(f, highlight) && !hasDamage(f)) continue;
      if (f.fields) {
        const open = !collapsed.has(f.path);
        rows.push(
          <tr key={f.path} className={`lv-group${hasHighlight(f, highlight) ? ' lv-diff-group' : ''}`} data-path={f.path}>
            <th scope="row" colSpan={3} style={{ paddingLeft: 4 + depth * 14 }}>
              <button type="button" className="lv-fold" aria-expanded={open} onClick={() => toggle(f.path)}>
                {open ? '▾' : '▸'} {f.name} <span className="muted">{f.type}</span>
              </button>{' '}
              {s.blob !== null && onBlob && (
                <button type="button" className="link mono lv-off" title={`Show these bytes in blob "${s.blob}"`} onClick={() => onBlob(s.blob!, f.offset)}>
                  +{f.offset}
                </button>
              )}
              <DamageMark messages={f.damage} />
              {f.resolves && <div className="lv-resolves">{f.resolves}</div>}
            </th>
          </tr>,
        );
        if (open) walk(f.fields, depth + 1);
        continue;
      }
      const hl = highlight?.has(f.path);
      rows.push(
        <tr key={f.path} className={`${hl ? 'lv-diff' : ''}${f.reserved ? ' lv-reserved' : ''}${f.damage?.length || f.missing ? ' lv-damaged-row' : ''}`} data-path={f.path}>
          <th scope="row" style={{ paddingLeft: 4 + depth * 14 }} title={`${f.path} · ${f.type}`}>
            {f.name}
          </th>
          <td className="mono">
            {valueText(f)}
            {f.enumName !== undefined && <span className={f.enumName === null ? 'lv-enum lv-enum-unknown' : 'lv-enum'}>{f.enumName ?? 'unknown value'}</span>}
            {hl && otherValues?.has(f.path) && <span className="lv-other"> ≠ {otherValues.get(f.path)}</span>}
            <DamageMark messages={f.damage ?? (f.missing ? ['the bytes end before this field'] : undefined)} />
          </td>
          <td className="mono muted lv-off" title={`byte ${f.offset} of the blob, ${f.size} byte${f.size === 1 ? '' : 's'}`}>
            +{f.offset}
          </td>
        </tr>,
      );
    }
  };
  walk(s.fields, 0);
  return (
    <table className="props lv-struct" aria-label={label}>
      <tbody>{rows}</tbody>
    </table>
  );
}

/** The header line of a decoded struct: role, struct name, blob and offset (a link to the bytes). */
export function StructHead({ s, onBlob }: { s: StructView; onBlob?: (blob: string, offset: number) => void }) {
  return (
    <div className="lv-struct-head">
      <b>{s.role}</b> <span className="mono">{s.struct}</span> <span className="muted">{s.size} bytes</span>{' '}
      {s.blob !== null ? <BlobLink blob={s.blob} offset={s.offset} {...(onBlob ? { onOpen: () => onBlob(s.blob!, s.offset) } : {})} /> : <span className="muted">(not located)</span>}
      <DamageMark messages={s.damage ? [s.damage] : undefined} />
    </div>
  );
}
