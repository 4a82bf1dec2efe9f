import { useState } from 'react';
import { useStudio, dismissAlert, alertsFor, type Alert } from '../store';
import { showDiagnostics } from '../actions';

/** alerts stacked before the rest fold into "and N more" */
export const ALERTS_SHOWN = 2;

/**
 * The active tab's alerts (and the studio's): one line each (the whole text on hover or when
 * expanded), the newest two stacked, the rest behind "and N more". Each is its own role="alert"
 * element; text only, never HTML.
 */
export function Alerts() {
  const all = useStudio((s) => s.alerts);
  const activeId = useStudio((s) => s.activeId);
  const [expanded, setExpanded] = useState(false);
  const alerts = alertsFor(all, activeId);
  const shown = expanded ? alerts : alerts.slice(-ALERTS_SHOWN);
  const hidden = alerts.length - shown.length;
  // the container always exists: it is a row of the app grid
  return (
    <div className={`alerts${expanded ? ' expanded' : ''}`}>
      {hidden > 0 && (
        <button type="button" className="alerts-more" aria-expanded={false} onClick={() => setExpanded(true)}>
          and {hidden} more alert{hidden === 1 ? '' : 's'}
        </button>
      )}
      {expanded && alerts.length > ALERTS_SHOWN && (
        <button type="button" className="alerts-more" aria-expanded={true} onClick={() => setExpanded(false)}>
          show only the latest {ALERTS_SHOWN}
        </button>
      )}
      {shown.map((a) => (
        <AlertLine key={a.id} alert={a} />
      ))}
    </div>
  );
}

function AlertLine({ alert: a }: { alert: Alert }) {
  const [open, setOpen] = useState(false);
  return (
    <div role="alert" className={`alert alert-${a.severity}${open ? ' open' : ''}`}>
      <span className="alert-text" title={a.message} onClick={() => setOpen(!open)}>
        {a.message}
      </span>
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
  );
}
