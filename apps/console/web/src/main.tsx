/**
 * The console page: Mantine (one design system, light and dark following the system), the router, the
 * session. Transitions are off so that what a person (or a browser test) clicks is there at once.
 */
import '@mantine/core/styles.css';

import { createTheme, MantineProvider, Modal, Tooltip } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';

import { ConsoleRoutes } from './app/console-routes';
import { SessionProvider } from './session/session-context';

const theme = createTheme({
  primaryColor: 'indigo',
  focusRing: 'always',
  components: {
    Modal: Modal.extend({ defaultProps: { transitionProps: { duration: 0 } } }),
    Tooltip: Tooltip.extend({ defaultProps: { transitionProps: { duration: 0 } } }),
  },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} defaultColorScheme="auto">
        <BrowserRouter>
          <SessionProvider>
            <ConsoleRoutes />
          </SessionProvider>
        </BrowserRouter>
      </MantineProvider>
    </StrictMode>,
  );
}
