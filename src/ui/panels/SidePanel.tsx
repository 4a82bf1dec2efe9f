import { useEffect, useRef, useState } from 'react';
import { useStudio, activeDoc } from '../store';
import { NodePanel } from './NodePanel';
import { ModelPanel } from './ModelPanel';
import { OriginsPanel } from '../origins/OriginsPanel';
import { useOrigins } from '../origins/state';
import { panelSubject, SIDE_TITLE } from './subject';
import { PANEL_MIN, setPanelWidth, useLayout } from '../shell/layout';
import { Splitter } from '../shell/Splitter';
import '../origins/origins.css';
import { can } from '../capabilities';
import { RunPanel } from '../run/RunPanel';
import { SlotPanel } from '../loadable/SlotPanel';
import { useResolvedTheme } from '../shell/theme';

/** the graph keeps at least this much of the window beside the panel */
const GRAPH_MIN = 240;
const panelMax = () => Math.max(PANEL_MIN, window.innerWidth - GRAPH_MIN);

export function SidePanel() {
  const side = useStudio((s) => s.side);
  const doc = useStudio(activeDoc);
  const compare = useOrigins((s) => (doc ? s.compare[doc.id] : undefined));
  const width = useLayout((s) => s.panel);
  const at = useLayout((s) => s.side);
  const aside = useRef<HTMLElement>(null);
  // the width on screen (the default is a share of the window): where a drag starts from
  const [measured, setMeasured] = useState(360);
  const theme = useResolvedTheme();
  const hasDoc = !!doc;
  useEffect(() => {
    const el = aside.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setMeasured(Math.round(el.getBoundingClientRect().width)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [hasDoc]);
  if (!doc || at === 'hidden') return null;
  // the single view's document, or the model of the compare pane last used
  const subject = panelSubject(doc, compare);
  const origins = can(subject.summary, 'origins');
  // the Run tab follows the tab's own document (not a compare pane's)
  const run = can(subject.summary, 'run') && subject.side === null;
  // a loadable's node is an op slot: its descriptors decoded field by field
  const loadable = can(subject.summary, 'loadable');
  return (
    <aside ref={aside} className={`side-panel at-${at}${subject.side ? ' with-subject' : ''}`} aria-label="Properties">
      <Splitter
        className="side-resize"
        orientation="vertical"
        grow={at === 'left' ? 'right' : 'left'}
        label="Resize the side panel"
        value={width ?? measured}
        min={PANEL_MIN}
        max={panelMax}
        onChange={setPanelWidth}
      />
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
          {loadable ? 'Op slot' : 'Node'}
        </button>
        <button type="button" role="tab" aria-selected={side === 'model'} onClick={() => useStudio.setState({ side: 'model' })} title="Model properties (Ctrl+Enter)">
          Model
        </button>
        {origins && (
          <button type="button" role="tab" aria-selected={side === 'origins'} onClick={() => useStudio.setState({ side: 'origins' })} title="Where every operator came from (ONE origin tables)">
            Origins
          </button>
        )}
        {run && (
          <button type="button" role="tab" aria-selected={side === 'run'} onClick={() => useStudio.setState({ side: 'run' })} title="Run the net: image, .npy or random input; top-5, heatmaps, per-layer statistics">
            Run
          </button>
        )}
      </div>
      <div className="side-body">
        {side === 'origins' && origins ? (
          <OriginsPanel subject={subject} />
        ) : side === 'run' && run ? (
          <RunPanel subject={subject} />
        ) : side === 'node' && loadable ? (
          <SlotPanel tabId={subject.tabId} workerDocId={subject.workerDocId} selected={subject.selected} theme={theme} />
        ) : side === 'node' ? (
          <NodePanel subject={subject} />
        ) : (
          <ModelPanel subject={subject} />
        )}
      </div>
    </aside>
  );
}
