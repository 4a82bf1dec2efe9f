import { useStudio, dismissAlert } from '../store';
import { showDiagnostics } from '../actions';

/** Errors and warnings. Each is its own role="alert" element; text only, never HTML. */
export function Alerts() {
  const alerts = useStudio((s) => s.alerts);
  // the container always exists: it is a row of the app grid
  return (
    <div className="alerts">
      {alerts.map((a) => (
        <div key={a.id} role="alert" className={`alert alert-${a.severity}`}>
          <span className="alert-text">{a.message}</span>
          {a.action && (
            <button
              type="button"
              className="alert-action"
              onClick={() => {
                const { docId } = a.action!;
                dismissAlert(a.id);
                showDiagnostics(docId);
              }}
            >
              {a.action.label}
            </button>
          )}
          <button type="button" className="alert-close" aria-label="Dismiss" onClick={() => dismissAlert(a.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
