import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { warmFontsWhenIdle } from './graph/canvas-pool';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// the graph renderer's fonts loaded while the studio is idle, not inside the first graph's draw
warmFontsWhenIdle();
