/**
 * `nx serve shield-analyzer`: runs the Shield analyzer with the configuration in the environment
 * (README.md), until SIGINT or SIGTERM, then shuts down gracefully. A bad configuration stops it with a
 * message naming each variable at fault (exit code 78, EX_CONFIG).
 */
import { runServiceProcess } from '@trustmesh/platform-backbone';

import { startShieldAnalyzer } from './shield-analyzer.bootstrap';

runServiceProcess('shield-analyzer', startShieldAnalyzer);
