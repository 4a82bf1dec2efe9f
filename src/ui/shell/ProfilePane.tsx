import { useEffect, useState } from 'react';
import { useStudio, activeDoc, pushAlert } from '../store';
import { workers } from '../actions';
import type { SystraceAnalysis } from '../../worker/api';
import { ProfileView } from '../profile/ProfileView';

/** Hosts the Profile view of the active systrace document; the analysis comes from the worker. */
export function ProfilePane({ theme }: { theme: 'light' | 'dark' }) {
  const doc = useStudio(activeDoc);
  const [analysis, setAnalysis] = useState<SystraceAnalysis | null>(null);
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
  if (!doc) return null;
  return (
    <section className="profile-pane" aria-label="Profile">
      {analysis ? <ProfileView analysis={analysis} theme={theme} /> : <p className="muted pad">Analysing {doc.title}…</p>}
    </section>
  );
}
