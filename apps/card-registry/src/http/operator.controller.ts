/**
 * The operator API under `/v1/operator` (operator bearer credential): publishers, their credentials
 * (`tmrp_…`, shown once), and namespace grants and transfers. Every route reads its own bounded body
 * through the edge.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';

import { PUBLISHER_ADMIN_SERVICE } from '../card-registry.tokens';
import type { NamespaceHolding, PublisherAdminService } from '../service/publisher-admin.service';
import { REGISTRY_HTTP_EDGE, type RegistryHttpEdge } from './registry-http.edge';

@Controller('v1/operator')
export class OperatorController {
  constructor(
    @Inject(PUBLISHER_ADMIN_SERVICE) private readonly admin: PublisherAdminService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}


  @Post('publishers')
  register(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/publishers', true, 201, (caller, body) => this.admin.registerPublisher(caller, body));
  }

  @Get('publishers/:publisherId')
  get(@Param('publisherId') publisherId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/publishers/:publisherId', false, 200, (caller) => this.admin.getPublisher(caller, publisherId));
  }

  @Post('publishers/:publisherId/credentials')
  issue(@Param('publisherId') publisherId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/publishers/:publisherId/credentials', true, 201, (caller, body) => this.admin.issueCredential(caller, publisherId, body));
  }

  @Delete('publishers/:publisherId/credentials/:credentialId')
  revoke(@Param('publisherId') publisherId: string, @Param('credentialId') credentialId: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/publishers/:publisherId/credentials/:credentialId', false, 200, (caller) => this.admin.revokeCredential(caller, publisherId, credentialId));
  }

  @Post('namespaces')
  grant(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/namespaces', true, (value: NamespaceHolding) => (value.changed ? 201 : 200), (caller, body) => this.admin.grantNamespace(caller, body));
  }

  @Post('namespaces/:namespace/transfer')
  transfer(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.authenticated(request, response, '/v1/operator/namespaces/:namespace/transfer', true, 200, (caller, body) => this.admin.transferNamespace(caller, namespace, body));
  }
}
