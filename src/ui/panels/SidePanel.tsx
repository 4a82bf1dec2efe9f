import { useStudio, activeDoc } from '../store';
import { NodePanel } from './NodePanel';
import { ModelPanel } from './ModelPanel';

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
      </div>
      <div className="side-body">{side === 'node' ? <NodePanel doc={doc} /> : <ModelPanel doc={doc} />}</div>
    </aside>
  );
}
