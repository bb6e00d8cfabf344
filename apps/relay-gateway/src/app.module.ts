/**
 * The relay gateway's root module: composes the feature modules around the process's runtime (opened by
 * relay-gateway.bootstrap.ts). Control plane: workspaces, devices, pairing, browser tickets, presence and
 * audit (ControlModule, gRPC RelayControl), device enrollment over HTTP (EnrollmentModule), health.
 * Data plane: the WebSocket servers (src/data-plane), which inject RELAY_DIRECTORY.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { httpLogModule } from '@trustmesh/platform-logging/nest';

import { ControlModule } from './control/control.module';
import { DataPlaneModule } from './data-plane/data-plane.module';
import { EnrollmentModule } from './enrollment/enrollment.module';
import { HealthModule } from './health/health.module';
import { PersistenceModule, type RelayGatewayRuntime } from './persistence/persistence.module';

@Module({})
export class AppModule {
  static forRoot(runtime: RelayGatewayRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // One line per HTTP request (enrollment, sessions, probes) through the gateway's logger.
        httpLogModule(runtime.logger.port),
        PersistenceModule.forRoot(runtime),
        ControlModule,
        EnrollmentModule,
        HealthModule,
        // The data plane's module (src/data-plane) is registered on the next line.
        DataPlaneModule,
      ],
    };
  }
}
