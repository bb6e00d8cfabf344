#!/usr/bin/env node
// The `trustmesh` command. It runs the TypeScript sources through tsx (a dependency), so `npx trustmesh`
// works straight after `npm install`, with no build step and no install script.
'use strict';
const path = require('node:path');

process.env.TSX_TSCONFIG_PATH = process.env.TSX_TSCONFIG_PATH || path.join(__dirname, '..', 'tsconfig.base.json');
require('tsx/cjs');
require('../apps/cli/src/main.ts').runFromProcess();
