/**
 * The layering of STYLE.md is a lint error: a protocol library that imports NestJS, Prisma, kafkajs,
 * gRPC, ws, the contracts library or a Node built-in fails lint. The test lints one probe source,
 * placed (through --stdin-filename) inside the protocol library, with the real `eslint` command and the
 * workspace's configuration, and checks which lines fail and why.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..');

const IMPORTS: Array<[source: string, rule: string | null]> = [
  ["import { canonicalJson } from '../src/idempotency/canonical-json';", null],
  ["import { readFileSync } from 'node:fs';", 'no-restricted-imports'],
  ["import { createHash } from 'crypto';", 'no-restricted-imports'],
  ["import { Injectable } from '@nestjs/common';", '@nx/enforce-module-boundaries'],
  ["import { Kafka } from 'kafkajs';", '@nx/enforce-module-boundaries'],
  ["import { PrismaClient } from '@prisma/client';", '@nx/enforce-module-boundaries'],
  ["import * as grpc from '@grpc/grpc-js';", '@nx/enforce-module-boundaries'],
  ["import { WebSocket } from 'ws';", '@nx/enforce-module-boundaries'],
  ["import { relayControlV1 } from '@trustmesh/contracts';", '@nx/enforce-module-boundaries'],
];

interface LintMessage {
  ruleId: string | null;
  severity: number;
  line: number;
}

function lintProbe(): LintMessage[] {
  const source = `${IMPORTS.map(([line]) => line).join('\n')}\nexport const probe = [canonicalJson, readFileSync, createHash, Injectable, Kafka, PrismaClient, grpc, WebSocket, relayControlV1];\n`;
  const run = spawnSync(
    process.execPath,
    [require.resolve('eslint/bin/eslint.js'), '--stdin', '--stdin-filename', 'libs/relay/protocol/src/layering-probe.ts', '--format', 'json'],
    { cwd: workspaceRoot, input: source, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } },
  );
  const [result] = JSON.parse(run.stdout) as Array<{ messages: LintMessage[] }>;
  return result?.messages ?? [];
}

describe('lint enforces the layering', () => {
  let messages: LintMessage[];
  beforeAll(() => {
    messages = lintProbe();
  }, 120_000);

  it.each(IMPORTS.map(([source, rule], index) => [source, rule, index + 1] as const))('`%s` in a protocol library: %s', (_source, rule, line) => {
    const errors = messages.filter((message) => message.line === line && message.severity === 2).map((message) => message.ruleId);
    if (rule === null) expect(errors).toEqual([]);
    else expect(errors).toContain(rule);
  });
});
