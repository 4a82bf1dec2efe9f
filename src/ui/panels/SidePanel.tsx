import { useStudio, activeDoc } from '../store';
import { NodePanel } from './NodePanel';
import { ModelPanel } from './ModelPanel';
import { OriginsPanel } from '../origins/OriginsPanel';
import { useOrigins } from '../origins/state';
import { panelSubject, SIDE_TITLE } from './subject';
import '../origins/origins.css';

export function SidePanel() {
  const side = useStudio((s) => s.side);
  const doc = useStudio(activeDoc);
  const compare = useOrigins((s) => (doc ? s.compare[doc.id] : undefined));
  if (!doc) return null;
  // the single view's document, or the model of the compare pane last used
  const subject = panelSubject(doc, compare);
  const circle = subject.summary.format === 'circle';
  return (
    <aside className={`side-panel${subject.side ? ' with-subject' : ''}`} aria-label="Properties">
      {subject.side && (
        <div role="group" className="side-subject" aria-label="Side panel model" data-side={subject.side}>
          <span className={`badge badge-${subject.side === 'right' ? 'optimized' : 'original'}`}>{SIDE_TITLE[subject.side]}</span>
          <span className="ellipsis" title={subject.title}>
            {subject.title}
          </span>
        </div>
      )}
      <div role="tablist" aria-label="Side panel" className="side-tabs">
        <button type="button" role="tab" aria-selected={side === 'node'} onClick={() => useStudio.setState({ side: 'node' })}>
          Node
        </button>
        <button type="button" role="tab" aria-selected={side === 'model'} onClick={() => useStudio.setState({ side: 'model' })} title="Model properties (Ctrl+Enter)">
          Model
        </button>
        {circle && (
          <button type="button" role="tab" aria-selected={side === 'origins'} onClick={() => useStudio.setState({ side: 'origins' })} title="Where every operator came from (ONE origin tables)">
            Origins
          </button>
        )}
      </div>
      <div className="side-body">
        {side === 'origins' && circle ? <OriginsPanel subject={subject} /> : side === 'node' ? <NodePanel subject={subject} /> : <ModelPanel subject={subject} />}
      </div>
    </aside>
  );
}
