/**
 * The Monaco editor of one tab's `.part` text (lazy chunk, with editor.ts). Everything read from
 * the text (markers, completion, hover, the key under the cursor, the line linked to the selected
 * node) comes from the model worker; this thread only edits and draws.
 */
import { useEffect, useRef } from 'react';
import { monaco, bindModel, LANGUAGE, registerPartLanguage, setDiagnostics } from './editor';
import { registerEditor, setCursorKey, textChanged, usePartition } from './state';
import { useStudio, type Doc } from '../store';
import { workers } from '../actions';
import { mainGraphId } from '../capabilities';

/** one Monaco model per tab, kept while the tab lives (undo history survives closing the dock) */
const models = new Map<string, monaco.editor.ITextModel>();

export function disposeModel(tabId: string) {
  models.get(tabId)?.dispose();
  models.delete(tabId);
}

function modelFor(tabId: string, text: string, name: string) {
  let m = models.get(tabId);
  if (!m || m.isDisposed()) {
    m = monaco.editor.createModel(text, LANGUAGE, monaco.Uri.parse(`part://${tabId}/${encodeURIComponent(name)}`));
    models.set(tabId, m);
  } else if (m.getValue() !== text) {
    m.setValue(text);
  }
  return m;
}

export function PartitionEditor({ doc, theme }: { doc: Doc; theme: 'light' | 'dark' }) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const tabId = doc.id;
  const workerDocId = useRef(doc.workerDocId);
  workerDocId.current = doc.workerDocId;

  useEffect(() => {
    registerPartLanguage();
    const tab = usePartition.getState().tabs[tabId];
    if (!host.current || !tab) return;
    const model = modelFor(tabId, tab.text, tab.partName);
    bindModel(model, {
      completions: (text, line, column) => workers().model.api.partitionCompletions(workerDocId.current, text, line, column).catch(() => null),
      hover: (text, line, column) => workers().model.api.partitionHover(workerDocId.current, text, line, column).catch(() => null),
    });
    const editor = monaco.editor.create(host.current, {
      model,
      theme: theme === 'dark' ? 'npu-dark' : 'npu-light',
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      lineNumbersMinChars: 3,
      scrollBeyondLastLine: false,
      renderLineHighlight: 'line',
      wordBasedSuggestions: 'off',
      quickSuggestions: { other: true, comments: false, strings: true },
      suggestOnTriggerCharacters: true,
      fixedOverflowWidgets: true,
      ariaLabel: `${tab.partName}: partition file editor`,
      padding: { top: 4 },
      unicodeHighlight: { ambiguousCharacters: false },
    });
    editorRef.current = editor;
    setDiagnostics(model, tab.diagnostics);

    const sub = model.onDidChangeContent(() => textChanged(tabId, model.getValue()));
    // the key under the cursor (the graph highlights what it captures): asked of the worker, the
    // latest answer wins
    let cursorSeq = 0;
    const cur = editor.onDidChangeCursorPosition((e) => {
      const seq = ++cursorSeq;
      workers()
        .model.api.partitionKeyAt(workerDocId.current, model.getValue(), e.position.lineNumber)
        .then((key) => {
          if (seq === cursorSeq) setCursorKey(tabId, key);
        })
        .catch(() => {});
    });
    registerEditor(tabId, {
      edit(e) {
        editor.pushUndoStop();
        editor.executeEdits('assign', [{ range: new monaco.Range(e.line, e.column, e.endLine, e.endColumn), text: e.text, forceMoveMarkers: true }]);
        editor.pushUndoStop();
      },
      reveal(line) {
        editor.revealLineInCenterIfOutsideViewport(line);
        editor.setPosition({ lineNumber: line, column: model.getLineMaxColumn(line) });
      },
      focus() {
        editor.focus();
      },
    });
    // markers follow the diagnostics of the latest text
    const unsub = usePartition.subscribe((s, prev) => {
      const t = s.tabs[tabId], p = prev.tabs[tabId];
      if (t && t.diagnostics !== p?.diagnostics && !model.isDisposed()) setDiagnostics(model, t.diagnostics);
    });
    return () => {
      unsub();
      sub.dispose();
      cur.dispose();
      registerEditor(tabId, null);
      bindModel(model, null);
      editor.dispose();
      editorRef.current = null;
    };
  }, [tabId]);

  useEffect(() => {
    monaco.editor.setTheme(theme === 'dark' ? 'npu-dark' : 'npu-light');
  }, [theme]);

  // graph -> text: the line that decides the selected node's backend is marked in the gutter. The
  // worker says which line per operator with each partition run; between runs Monaco carries the
  // decoration along with the edits.
  const selected = useStudio((s) => s.docs.find((d) => d.id === tabId)?.selected ?? null);
  const graph = doc.view?.graphId === mainGraphId(doc.summary) ? doc.view.graph : null;
  const operatorLines = usePartition((s) => s.tabs[tabId]?.operatorLines ?? null);
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model) return;
    const node = selected !== null ? graph?.nodes[selected] : undefined;
    const found = node && node.kind === 'op' ? (operatorLines?.[node.index] ?? 0) : 0;
    const line = found <= model.getLineCount() ? found : 0;
    const ids = editor.createDecorationsCollection(
      line > 0 ? [{ range: new monaco.Range(line, 1, line, 1), options: { isWholeLine: true, className: 'part-linked-line', linesDecorationsClassName: 'part-linked-gutter' } }] : [],
    );
    if (line > 0) editor.revealLineInCenterIfOutsideViewport(line);
    return () => ids.clear();
  }, [selected, graph, operatorLines]);

  return <div ref={host} className="part-editor" data-testid="part-editor" />;
}
