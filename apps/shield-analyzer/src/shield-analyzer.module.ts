/**
 * The Nest module of the analyzer's HTTP side: the REST, MCP and probe controllers, given the application
 * service, the shared HTTP edge and the probes built by the bootstrap (the gRPC server and the
 * operator port run beside Nest on their own listeners, as in the relay gateway).
 */
import { Module, type DynamicModule } from '@nestjs/common';
import type { PinoPortLogger } from '@trustmesh/platform-logging';
import { httpLogModule } from '@trustmesh/platform-logging/nest';
import type { PublicProbes } from '@trustmesh/platform-operator-http';
import { PUBLIC_PROBES, PublicProbesController } from '@trustmesh/platform-operator-http/nest';

import { ShieldCasesController } from './http/shield-cases.controller';
import { SHIELD_HTTP_EDGE, type ShieldHttpEdge } from './http/shield-http.edge';
import { ShieldMcpController } from './mcp/shield-mcp.controller';
import { SHIELD_CASE_SERVICE, type ShieldCaseService } from './service/shield-case.service';

export interface ShieldAnalyzerModuleDeps {
  service: ShieldCaseService;
  edge: ShieldHttpEdge;
  probes: PublicProbes;
  /** The process logger: one line per HTTP request through it (nestjs-pino). */
  logger: PinoPortLogger;
}

@Module({})
export class ShieldAnalyzerModule {
  static forRoot(deps: ShieldAnalyzerModuleDeps): DynamicModule {
    return {
      module: ShieldAnalyzerModule,
      imports: [httpLogModule(deps.logger)],
      controllers: [ShieldCasesController, ShieldMcpController, PublicProbesController],
      providers: [
        { provide: SHIELD_CASE_SERVICE, useValue: deps.service },
        { provide: SHIELD_HTTP_EDGE, useValue: deps.edge },
        { provide: PUBLIC_PROBES, useValue: deps.probes },
      ],
    };
  }
}
