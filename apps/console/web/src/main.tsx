/**
 * The console page: Mantine (one design system, light and dark following the system), the router, the
 * session. Transitions are off so that what a person (or a browser test) clicks is there at once.
 */
import '@mantine/core/styles.css';

import { createTheme, MantineProvider, type CSSVariablesResolver } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';

import { ConsoleRoutes } from './app/console-routes';
import { SessionProvider } from './session/session-context';

const theme = createTheme({
  primaryColor: 'indigo',
  // Filled buttons and links one shade darker than Mantine's default: white on indigo.8 passes WCAG AA.
  primaryShade: { light: 8, dark: 7 },
  focusRing: 'always',
  // Plain objects rather than `Modal.extend(...)`: importing the components here would pull them (and
  // floating-ui) into the first load.
  components: {
    Modal: { defaultProps: { transitionProps: { duration: 0 } } },
    Tooltip: { defaultProps: { transitionProps: { duration: 0 } } },
    Popover: { defaultProps: { transitionProps: { duration: 0 } } },
    Combobox: { defaultProps: { transitionProps: { duration: 0 } } },
  },
});

// Mantine's defaults for dimmed text and for the text of light variants (badges, alerts, the active nav
// link) are below WCAG AA contrast on a light background; these pass it (axe-core checks every page).
const contrast: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    // Field errors (the message and the invalid input's text) in red.6 are 3.3:1 on white; red.9 passes.
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    ...Object.fromEntries(
      Object.keys(resolved.colors).flatMap((color) => [
        [`--mantine-color-${color}-light-color`, `color-mix(in srgb, var(--mantine-color-${color}-9) 70%, black)`],
        [`--mantine-color-${color}-text`, `color-mix(in srgb, var(--mantine-color-${color}-9) 85%, black)`],
      ]),
    ),
  },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={contrast}>
        <BrowserRouter>
          <SessionProvider>
            <ConsoleRoutes />
          </SessionProvider>
        </BrowserRouter>
      </MantineProvider>
    </StrictMode>,
  );
}
