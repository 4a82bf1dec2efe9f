import type { SystraceAnalysis } from '../../worker/api';

/** Placeholder replaced by the Profile view implementation (table + timeline). */
export function ProfileView({ analysis }: { analysis: SystraceAnalysis; theme: 'light' | 'dark' }) {
  return <pre>{analysis.runs.map((r) => r.tables?.self.text ?? '').join('\n')}</pre>;
}
