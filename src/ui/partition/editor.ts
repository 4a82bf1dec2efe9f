/**
 * Monaco for `.part` files (lazy chunk): the ESM editor API with only the features the editor
 * uses, its editor worker, an INI-like `part` language, completion, hover and markers. Loaded by
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
import { escapeKey, unescapeKey } from '../../core/partition/ini';
import type { PartDiagnostic, PartitionVocabulary } from '../../worker/api';

export { monaco };

export const LANGUAGE = 'part';

self.MonacoEnvironment = {
  getWorker: () => new Worker(new URL('monaco-editor/editor/editor.worker.js', import.meta.url), { type: 'module', name: 'monaco-editor' }),
};

/** What the providers need from the tab that owns a model. */
export interface PartModelContext {
  workerDocId(): string;
  vocabulary(): Promise<PartitionVocabulary | null>;
  hover(text: string, line: number, column: number): Promise<string | null>;
}
const contexts = new Map<string, PartModelContext>();

export function bindModel(model: monaco.editor.ITextModel, ctx: PartModelContext | null) {
  if (ctx) contexts.set(model.uri.toString(), ctx);
  else contexts.delete(model.uri.toString());
}

/** The section a line belongs to (the nearest header above it), or null. */
export function sectionAt(model: monaco.editor.ITextModel, line: number): string | null {
  for (let l = line; l >= 1; l--) {
    const s = model.getLineContent(l);
    if (s.charCodeAt(0) === 91 /* [ */) {
      const close = s.indexOf(']');
      return close > 0 ? s.slice(1, close) : null;
    }
  }
  return null;
}

/** `backends=` of `[partition]` as currently written. */
function backendsOf(model: monaco.editor.ITextModel): string[] {
  const n = model.getLineCount();
  let inPartition = false;
  for (let l = 1; l <= n; l++) {
    const s = model.getLineContent(l);
    if (s.charCodeAt(0) === 91) inPartition = s.startsWith('[partition]');
    else if (inPartition && s.startsWith('backends=')) return s.slice(9).split(',').filter((b) => b.length > 0);
  }
  return [];
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

  monaco.languages.registerCompletionItemProvider(LANGUAGE, {
    triggerCharacters: ['=', ',', '['],
    async provideCompletionItems(model, position) {
      const ctx = contexts.get(model.uri.toString());
      const line = model.getLineContent(position.lineNumber);
      const before = line.slice(0, position.column - 1);
      const K = monaco.languages.CompletionItemKind;
      const eq = before.indexOf('=');
      const word = model.getWordUntilPosition(position);
      const items: monaco.languages.CompletionItem[] = [];
      // section headers
      if (before.startsWith('[') && eq < 0) {
        const range = new monaco.Range(position.lineNumber, 2, position.lineNumber, Math.max(position.column, line.indexOf(']') + 1 || position.column));
        for (const s of ['partition', 'OPCODE', 'OPNAME']) items.push({ label: `[${s}]`, filterText: s, kind: K.Module, insertText: s, range });
        return { suggestions: items };
      }
      const section = sectionAt(model, position.lineNumber);
      if (eq >= 0) {
        // a value: after the last comma for backends, the whole value otherwise
        const key = before.slice(0, eq);
        const start = section === 'partition' && key === 'backends' ? before.lastIndexOf(',') + 2 : eq + 2;
        const range = new monaco.Range(position.lineNumber, Math.max(start, eq + 2), position.lineNumber, position.column);
        if (section === 'partition' && key === 'comply') {
          for (const c of ['opcode', 'opname']) items.push({ label: c, kind: K.EnumMember, insertText: c, range });
        } else if (section === 'partition' && key === 'backends') {
          for (const b of ['cpu', 'npu', 'acl_cl', 'acl_neon', 'dsp', 'trix']) items.push({ label: b, kind: K.Value, insertText: b, range, detail: 'backend name' });
        } else {
          for (const b of backendsOf(model)) items.push({ label: b, kind: K.Value, insertText: b, range, detail: 'backend' });
        }
        return { suggestions: items };
      }
      const range = new monaco.Range(position.lineNumber, 1, position.lineNumber, Math.max(position.column, word.endColumn));
      if (section === 'partition') {
        for (const k of ['backends', 'default', 'comply']) items.push({ label: k, kind: K.Property, insertText: `${k}=`, range, command: { id: 'editor.action.triggerSuggest', title: '' } });
        return { suggestions: items };
      }
      const vocab = ctx ? await ctx.vocabulary() : null;
      if (section === 'OPCODE') {
        items.push({ label: '_', kind: K.Keyword, insertText: '_=', range, detail: 'default backend for this section', command: { id: 'editor.action.triggerSuggest', title: '' } });
        const present = new Set<string>();
        for (const o of vocab?.opcodes ?? []) {
          present.add(o.name);
          items.push({ label: o.name, kind: K.Class, insertText: `${o.name}=`, range, detail: `${o.count} in this model`, sortText: `0${o.name}`, command: { id: 'editor.action.triggerSuggest', title: '' } });
        }
        for (const o of vocab?.allOpcodes ?? []) {
          if (!present.has(o)) items.push({ label: o, kind: K.Class, insertText: `${o}=`, range, detail: 'not in this model', sortText: `1${o}` });
        }
      } else if (section === 'OPNAME') {
        items.push({ label: '_', kind: K.Keyword, insertText: '_=', range, detail: 'default backend for this section', command: { id: 'editor.action.triggerSuggest', title: '' } });
        for (const n of vocab?.nodeNames ?? []) {
          const key = escapeKey(n);
          items.push({ label: n, kind: K.Variable, insertText: `${key}=`, filterText: key, range, detail: key === n ? 'node' : `node (written ${key})`, command: { id: 'editor.action.triggerSuggest', title: '' } });
        }
      }
      return { suggestions: items, incomplete: false };
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

/** The `[OPCODE]`/`[OPNAME]` key on a line, or null. */
export function keyOnLine(model: monaco.editor.ITextModel, line: number): { section: string; key: string } | null {
  const s = model.getLineContent(line);
  if (!s || s[0] === '[' || s[0] === '#' || s[0] === ';') return null;
  const eq = s.indexOf('=');
  if (eq < 0) return null;
  const section = sectionAt(model, line);
  if (section !== 'OPCODE' && section !== 'OPNAME') return null;
  return { section, key: unescapeKey(s.slice(0, eq)) };
}
