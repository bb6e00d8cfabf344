/**
 * `nx serve console`: runs the console (its HTTP API and page, README.md) with the configuration in the
 * environment until SIGINT or SIGTERM, then shuts down gracefully. A bad configuration stops it with a
 * message naming each variable at fault (exit code 78, EX_CONFIG).
 */
import { runServiceProcess } from '@trustmesh/platform-backbone';

import { startConsole } from './console.bootstrap';

runServiceProcess('console', startConsole);
