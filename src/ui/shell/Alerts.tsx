import { useStudio, dismissAlert } from '../store';

/** Errors and warnings. Each is its own role="alert" element; text only, never HTML. */
export function Alerts() {
  const alerts = useStudio((s) => s.alerts);
  // the container always exists: it is a row of the app grid
  return (
    <div className="alerts">
      {alerts.map((a) => (
        <div key={a.id} role="alert" className={`alert alert-${a.severity}`}>
          <span className="alert-text">{a.message}</span>
          <button type="button" className="alert-close" aria-label="Dismiss" onClick={() => dismissAlert(a.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
