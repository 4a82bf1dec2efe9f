import { useEffect, useState } from 'react';
import { useStudio } from '../store';

/** The theme actually in force: the user's choice, or the system's when the choice is 'system'. */
export function useResolvedTheme(): 'light' | 'dark' {
  const choice = useStudio((s) => s.theme);
  const [systemDark, setSystemDark] = useState(() => window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false);
  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!mq) return;
    const on = () => setSystemDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}
