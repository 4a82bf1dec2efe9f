/**
 * Monaco for `.part` files (lazy chunk): the ESM editor API with only the features the editor
 * uses, its editor worker, an INI-like `part` language (a Monarch tokenizer for colours), and
 * completion, hover and markers whose content the model worker computes from the text. Loaded by
 * PartitionDock on first use, so the studio's first paint does not pay for it.
 */
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/suggest/register';
// the suggest widget itself and snippet insertion (features/suggest only adds inline suggestions)
import 'monaco-editor/editor/contrib/suggest/browser/suggestController.js';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2.js';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/gotoError/register';
import 'monaco-editor/features/comment/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/wordHighlighter/register';
import type { PartCompletionKind, PartCompletionList, PartDiagnostic } from '../../worker/api';

export { monaco };

export const LANGUAGE = 'part';

self.MonacoEnvironment = {
  getWorker: () => new Worker(new URL('monaco-editor/editor/editor.worker.js', import.meta.url), { type: 'module', name: 'monaco-editor' }),
};

/** What the providers need from the tab that owns a model: the worker's answers about its text. */
export interface PartModelContext {
  completions(text: string, line: number, column: number): Promise<PartCompletionList | null>;
  hover(text: string, line: number, column: number): Promise<string | null>;
}
const contexts = new Map<string, PartModelContext>();

export function bindModel(model: monaco.editor.ITextModel, ctx: PartModelContext | null) {
  if (ctx) contexts.set(model.uri.toString(), ctx);
  else contexts.delete(model.uri.toString());
}

let registered = false;

export function registerPartLanguage() {
  if (registered) return;
  registered = true;
  monaco.languages.register({ id: LANGUAGE, extensions: ['.part'], aliases: ['circle-partitioner .part', 'part'] });
  monaco.languages.setLanguageConfiguration(LANGUAGE, {
    comments: { lineComment: '#' },
    brackets: [['[', ']']],
    autoClosingPairs: [{ open: '[', close: ']' }],
  });
  monaco.languages.setMonarchTokensProvider(LANGUAGE, {
    tokenizer: {
      root: [
        [/^[#;].*$/, 'comment'],
        [/^(\[[^\]]*\])(.*)$/, ['type', 'comment']],
        [/^\[.*$/, 'invalid'],
        [/^([^=]*)(=)(.*)$/, ['variable', 'delimiter', 'string']],
        [/^.+$/, 'invalid'],
      ],
    },
  });
  const rules = (dark: boolean): monaco.editor.ITokenThemeRule[] => [
    { token: 'type', foreground: dark ? '4fc1ff' : '0550ae', fontStyle: 'bold' },
    { token: 'variable', foreground: dark ? 'dcdcaa' : '6f42c1' },
    { token: 'string', foreground: dark ? 'ce9178' : '0a3069' },
    { token: 'string.escape', foreground: dark ? 'd7ba7d' : 'cf222e', fontStyle: 'bold' },
    { token: 'comment', foreground: dark ? '6a9955' : '6e7781', fontStyle: 'italic' },
    { token: 'delimiter', foreground: dark ? '9aa4b1' : '646c76' },
    { token: 'invalid', foreground: dark ? 'f48771' : 'cf222e' },
  ];
  monaco.editor.defineTheme('npu-light', { base: 'vs', inherit: true, rules: rules(false), colors: { 'editor.background': '#ffffff' } });
  monaco.editor.defineTheme('npu-dark', { base: 'vs-dark', inherit: true, rules: rules(true), colors: { 'editor.background': '#15181d' } });

  // completion comes from the worker (it reads the text and knows the model); the provider only
  // maps its items to Monaco's, so typing never parses the text on this thread
  const KIND: Record<PartCompletionKind, monaco.languages.CompletionItemKind> = {
    section: monaco.languages.CompletionItemKind.Module,
    key: monaco.languages.CompletionItemKind.Property,
    keyword: monaco.languages.CompletionItemKind.Keyword,
    enum: monaco.languages.CompletionItemKind.EnumMember,
    backend: monaco.languages.CompletionItemKind.Value,
    opcode: monaco.languages.CompletionItemKind.Class,
    node: monaco.languages.CompletionItemKind.Variable,
  };
  monaco.languages.registerCompletionItemProvider(LANGUAGE, {
    triggerCharacters: ['=', ',', '['],
    async provideCompletionItems(model, position) {
      const ctx = contexts.get(model.uri.toString());
      if (!ctx) return { suggestions: [] };
      const version = model.getVersionId();
      const list = await ctx.completions(model.getValue(), position.lineNumber, position.column);
      // typed on meanwhile: Monaco asks again for the new text
      if (!list || model.isDisposed() || model.getVersionId() !== version) return { suggestions: [], incomplete: true };
      const range = new monaco.Range(position.lineNumber, list.startColumn, position.lineNumber, list.endColumn);
      const suggestions = list.items.map((item): monaco.languages.CompletionItem => ({
        label: item.label,
        kind: KIND[item.kind],
        insertText: item.insertText,
        range,
        ...(item.detail !== undefined ? { detail: item.detail } : {}),
        ...(item.sortText !== undefined ? { sortText: item.sortText } : {}),
        ...(item.filterText !== undefined ? { filterText: item.filterText } : {}),
        ...(item.retrigger ? { command: { id: 'editor.action.triggerSuggest', title: '' } } : {}),
      }));
      return { suggestions, incomplete: false };
    },
  });

  monaco.languages.registerHoverProvider(LANGUAGE, {
    async provideHover(model, position) {
      const ctx = contexts.get(model.uri.toString());
      if (!ctx) return null;
      const text = await ctx.hover(model.getValue(), position.lineNumber, position.column);
      if (!text) return null;
      const line = model.getLineContent(position.lineNumber);
      const eq = line.indexOf('=');
      const range = new monaco.Range(position.lineNumber, 1, position.lineNumber, (eq < 0 ? line.length : eq) + 1);
      return { range, contents: [{ value: text, supportHtml: false, isTrusted: false }] };
    },
  });
}

const SEVERITY = { error: 8, warning: 4, info: 2 } as const;

export function setDiagnostics(model: monaco.editor.ITextModel, diagnostics: readonly PartDiagnostic[]) {
  monaco.editor.setModelMarkers(
    model,
    'part',
    diagnostics.map((d) => ({
      severity: SEVERITY[d.severity] ?? 2,
      message: d.message,
      code: d.code,
      startLineNumber: d.line,
      startColumn: d.column,
      endLineNumber: d.endLine,
      endColumn: d.endColumn,
      source: 'circle-partitioner',
    })),
  );
}
