/**
 * An identifier that may wrap between its parts: a break opportunity (<wbr>) after each `_`, `.`,
 * `/` and `:`, so that `fused_activation_function` in a narrow column wraps as
 * `fused_activation_` / `function` instead of being cut inside a word. Text only, never HTML.
 */
import { Fragment, type ReactNode } from 'react';

export function Breakable({ text }: { text: string }): ReactNode {
  const parts = text.split(/(?<=[_./:])/);
  if (parts.length < 2) return text;
  return parts.map((p, i) => (
    <Fragment key={i}>
      {p}
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}
