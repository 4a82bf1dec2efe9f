/**
 * The AOSP timing table of one run as an HTML table: the rows, columns, texts (`n/a`, `-`),
 * stars and footnote exactly as parse_systrace.py prints them. A cell with contributing marks is
 * a button: pressing it highlights those marks in the timeline.
 */
import type { TableCell, TableRow, TimingTable } from '../../core/systrace/model';

export interface CellKey {
  layer: string;
  column: string;
}

export const FOOTNOTE = '* This total ignores missing (n/a) values and thus is not necessarily consistent with the rest of the numbers';

/** The per-execution table wraps the footnote onto a second line indented by two spaces. */
export const FOOTNOTE_WRAPPED =
  '* This total ignores missing (n/a) values and thus is not necessarily consistent\n  with the rest of the numbers';

/** Columns under the "Execution" (or "Benchmark") heading. */
const EXECUTION_COLUMNS = new Set(['PIO', 'PEO', 'PR', 'PE', 'PEp']);

export function TimingTableView({
  table,
  groupLabel,
  selected,
  onCell,
}: {
  table: TimingTable;
  /** "Execution", or "Benchmark" in the per-execution table of a run with warmup and benchmark */
  groupLabel: string;
  selected: CellKey | null;
  onCell: (row: TableRow, cell: TableCell) => void;
}) {
  const rows = table.rows.filter((r) => r.layer !== 'LC' || table.showCpu);
  const perExecution = table.kind.startsWith('per-execution');
  const cols = table.columns;
  const firstExec = cols.findIndex((c) => EXECUTION_COLUMNS.has(c.key));
  const execCount = perExecution ? cols.length : cols.filter((c) => EXECUTION_COLUMNS.has(c.key)).length;
  const before = perExecution ? 0 : firstExec;
  const after = cols.length - before - execCount;
  const colLabel = (key: string) => cols.find((c) => c.key === key)?.label ?? key;

  return (
    <div className="pv-table-wrap">
      <table className="pv-table" aria-describedby="pv-footnote">
        <caption>{table.heading.replace(/\s+(Execution|Benchmark)\s*$/, '')}</caption>
        <colgroup>
          <col />
        </colgroup>
        {before > 0 && <colgroup span={before} />}
        <colgroup span={execCount} className="pv-exec-cols" />
        {after > 0 && <colgroup span={after} />}
        <thead>
          <tr className="pv-group-row">
            <td />
            {before > 0 && <td colSpan={before} />}
            <th scope="colgroup" colSpan={execCount} className="pv-exec-head">
              {groupLabel}
            </th>
            {after > 0 && <td colSpan={after} />}
          </tr>
          <tr>
            <th scope="col" className="pv-corner">
              <span className="sr-only">Layer</span>
            </th>
            {cols.map((c) => (
              <th scope="col" key={c.key} className={EXECUTION_COLUMNS.has(c.key) ? 'pv-exec' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.layer} className={row.layer === 'LT' ? 'pv-total-row' : undefined} data-layer={row.layer}>
              <th scope="row">
                <span className="pv-layer-swatch" data-layer={row.layer} aria-hidden="true" />
                {row.label}
              </th>
              {row.cells.map((cell) => {
                const isSel = selected?.layer === row.layer && selected.column === cell.column;
                const negative = cell.value !== null && cell.value < 0 && cell.text.startsWith('-') && cell.text !== '-';
                const detail =
                  `${row.label} · ${colLabel(cell.column)}: ` +
                  (cell.value === null
                    ? 'missing (n/a): no mark of this layer has this phase'
                    : `${cell.exactMs === null ? cell.text : `${cell.exactMs.toFixed(3)} ms exact`}`) +
                  (cell.marks.length ? ` · ${cell.marks.length} contributing mark${cell.marks.length === 1 ? '' : 's'}` : '') +
                  (negative ? ' · negative: more time was counted in the children than the parent took (see the dropped marks below)' : '') +
                  (cell.starred ? ' · * ignores missing (n/a) values' : '');
                const content = (
                  <>
                    {cell.text}
                    {cell.starred && <span className="pv-star">*</span>}
                  </>
                );
                return (
                  <td
                    key={cell.column}
                    data-layer={row.layer}
                    data-column={cell.column}
                    className={[
                      cell.text === '-' || cell.text === 'n/a' ? 'pv-empty' : '',
                      negative ? 'pv-neg' : '',
                      isSel ? 'pv-sel' : '',
                      EXECUTION_COLUMNS.has(cell.column) ? 'pv-exec' : '',
                    ]
                      .filter(Boolean)
                      .join(' ') || undefined}
                    title={detail}
                  >
                    {cell.marks.length > 0 ? (
                      <button type="button" className="pv-cell-btn" aria-pressed={isSel} onClick={() => onCell(row, cell)}>
                        {content}
                      </button>
                    ) : (
                      content
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p id="pv-footnote" className="pv-footnote">
        {perExecution ? FOOTNOTE_WRAPPED : FOOTNOTE}
      </p>
    </div>
  );
}
