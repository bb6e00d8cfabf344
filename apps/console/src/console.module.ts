/**
 * The Nest module of the console's HTTP side: the session, workspace, Shield, registry, platform, probe and page
 * controllers, given the services, the shared HTTP edge and the probes the bootstrap built. The page's catch-all
 * comes last, so every API route and probe is matched before it.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import type { PinoPortLogger } from '@trustmesh/platform-logging';
import { httpLogModule } from '@trustmesh/platform-logging/nest';
import type { PublicProbes } from '@trustmesh/platform-operator-http';
import { PUBLIC_PROBES, PublicProbesController } from '@trustmesh/platform-operator-http/nest';

import { CONSOLE_HTTP_EDGE, type ConsoleHttpEdge } from './http/console-http.edge';
import type { ConsolePage } from './http/console-page';
import { CONSOLE_PAGE, ConsolePageController } from './http/console-page.controller';
import { CONSOLE_SESSION_DEPS, ConsoleSessionController, type ConsoleSessionDeps } from './http/console-session.controller';
import { CONSOLE_WORKSPACES_SERVICE, ConsoleWorkspacesController } from './http/console-workspaces.controller';
import { CONSOLE_PLATFORM_SERVICE, ConsolePlatformController } from './http/console-platform.controller';
import { CONSOLE_REGISTRY_DEPS, ConsoleRegistryController, type ConsoleRegistryDeps } from './http/console-registry.controller';
import { CONSOLE_SHIELD_SERVICE, ConsoleShieldController, loggedShieldPath } from './http/console-shield.controller';
import type { ConsolePlatformService } from './platform/console-platform.service';
import type { ConsoleShieldService } from './shield/console-shield.service';
import type { ConsoleWorkspacesService } from './workspaces/console-workspaces.service';

export interface ConsoleModuleDeps {
  edge: ConsoleHttpEdge;
  session: ConsoleSessionDeps;
  workspaces: ConsoleWorkspacesService;
  shield: ConsoleShieldService;
  registry: ConsoleRegistryDeps;
  platform: ConsolePlatformService;
  page: ConsolePage;
  probes: PublicProbes;
  logger: PinoPortLogger;
}

@Module({})
export class ConsoleModule {
  static forRoot(deps: ConsoleModuleDeps): DynamicModule {
    return {
      module: ConsoleModule,
      imports: [httpLogModule(deps.logger, { loggedPath: loggedShieldPath })],
      controllers: [
        ConsoleSessionController,
        ConsoleWorkspacesController,
        ConsoleShieldController,
        ConsoleRegistryController,
        ConsolePlatformController,
        PublicProbesController,
        ConsolePageController,
      ],
      providers: [
        { provide: CONSOLE_HTTP_EDGE, useValue: deps.edge },
        { provide: CONSOLE_SESSION_DEPS, useValue: deps.session },
        { provide: CONSOLE_WORKSPACES_SERVICE, useValue: deps.workspaces },
        { provide: CONSOLE_SHIELD_SERVICE, useValue: deps.shield },
        { provide: CONSOLE_REGISTRY_DEPS, useValue: deps.registry },
        { provide: CONSOLE_PLATFORM_SERVICE, useValue: deps.platform },
        { provide: CONSOLE_PAGE, useValue: deps.page },
        { provide: PUBLIC_PROBES, useValue: deps.probes },
      ],
    };
  }
}
