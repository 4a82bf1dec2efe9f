import { useStudio, activeDoc } from '../store';
import { NodePanel } from './NodePanel';
import { ModelPanel } from './ModelPanel';
import { OriginsPanel } from '../origins/OriginsPanel';

export function SidePanel() {
  const side = useStudio((s) => s.side);
  const doc = useStudio(activeDoc);
  if (!doc) return null;
  return (
    <aside className="side-panel" aria-label="Properties">
      <div role="tablist" aria-label="Side panel" className="side-tabs">
        <button type="button" role="tab" aria-selected={side === 'node'} onClick={() => useStudio.setState({ side: 'node' })}>
          Node
        </button>
        <button type="button" role="tab" aria-selected={side === 'model'} onClick={() => useStudio.setState({ side: 'model' })} title="Model properties (Ctrl+Enter)">
          Model
        </button>
        {doc.summary.format === 'circle' && (
          <button type="button" role="tab" aria-selected={side === 'origins'} onClick={() => useStudio.setState({ side: 'origins' })} title="Where every operator came from (ONE origin tables)">
            Origins
          </button>
        )}
      </div>
      <div className="side-body">{side === 'origins' && doc.summary.format === 'circle' ? <OriginsPanel doc={doc} /> : side === 'node' ? <NodePanel doc={doc} /> : <ModelPanel doc={doc} />}</div>
    </aside>
  );
}
