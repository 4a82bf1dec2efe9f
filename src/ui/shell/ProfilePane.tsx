import { useEffect, useRef, useState } from 'react';
import { useStudio, activeDoc, pushAlert, updateDoc } from '../store';
import { workers } from '../actions';
import type { SystraceAnalysis } from '../../worker/api';
import { ProfileView } from '../profile/ProfileView';

/** Hosts the Profile view of the active systrace document; the analysis comes from the worker. */
export function ProfilePane({ theme }: { theme: 'light' | 'dark' }) {
  const doc = useStudio(activeDoc);
  const [analysis, setAnalysis] = useState<SystraceAnalysis | null>(null);
  const paneRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!doc) return;
    let live = true;
    setAnalysis(null);
    const t0 = performance.now();
    workers()
      .model.api.profile(doc.workerDocId)
      .then((a) => {
        // request to the analysis received (structured clone included), for bench/systrace-ui.ts
        performance.measure(`npu:profile ${doc.title}`, { start: t0, end: performance.now() });
        if (live) setAnalysis(a);
      })
      .catch((e: Error) => pushAlert({ severity: 'error', message: `${doc.title}: ${e.message}` }));
    return () => {
      live = false;
    };
  }, [doc?.workerDocId]); // eslint-disable-line react-hooks/exhaustive-deps

  // "See Diagnostics" in an alert: once the view is drawn, scroll its Diagnostics panel into sight and focus it
  const reveal = doc?.reveal ?? null;
  useEffect(() => {
    if (!doc || reveal !== 'diagnostics' || !analysis) return;
    const panel = paneRef.current?.querySelector<HTMLElement>('.pv-diag');
    if (!panel) return;
    panel.scrollIntoView({ block: 'start', behavior: 'smooth' });
    panel.focus({ preventScroll: true });
    updateDoc(doc.id, { reveal: null });
  }, [doc, reveal, analysis]);

  if (!doc) return null;
  return (
    <section className="profile-pane" aria-label="Profile" ref={paneRef}>
      {analysis ? <ProfileView analysis={analysis} theme={theme} /> : <p className="muted pad">Analysing {doc.title}…</p>}
    </section>
  );
}
