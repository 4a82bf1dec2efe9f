import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { warmFontsWhenIdle, whenIdle } from './graph/canvas-pool';
import { workers } from './actions';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// the graph renderer's fonts loaded while the studio is idle, not inside the first graph's draw
warmFontsWhenIdle();
// the model and layout workers started at the first idle moment, not by the first file opened:
// that open then starts at once instead of waiting for two workers to load their code
whenIdle(() => workers());
