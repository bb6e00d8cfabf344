/**
 * Namespace trust over HTTP (README.md, "Ownership, look-alikes and signatures"):
 *
 * - `POST /v1/namespaces/{ns}/claims {method}` (publisher): a challenge token and where to put it;
 * - `POST /v1/namespaces/{ns}/claims/check {proof?}` (publisher): runs the proof; 200 verified, 422
 *   PROOF_FAILED with the OWNERSHIP_* code, 409 NAMESPACE_HELD when another publisher holds it;
 * - `GET /v1/namespaces/{ns}` (public): holder, proof status, signature policy, look-alike flags;
 * - `GET /v1/namespace-claims` (publisher): its claims and namespaces, newest claim first, with what to create;
 * - `PUT /v1/namespaces/{ns}/signature-policy {policy}` (the holder or an operator);
 * - `POST /v1/operator/namespaces/{ns}/lookalikes/clear {lookalikeOf}` (operator).
 *
 * Bodies are read through the edge (bounded, strict JSON); the namespace travels as one path segment.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { Controller, Get, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';

import { NAMESPACE_TRUST_SERVICE } from '../card-registry.tokens';
import type { RegistryCaller } from '../service/registry-callers';
import type { ServiceResult } from '../service/registry-service.result';
import type { NamespaceTrustService } from '../trust/namespace-trust.service';
import { REFUSED, REGISTRY_HTTP_EDGE, type RegistryHttpEdge } from './registry-http.edge';

@Controller('v1')
export class NamespaceTrustController {
  constructor(
    @Inject(NAMESPACE_TRUST_SERVICE) private readonly trust: NamespaceTrustService,
    @Inject(REGISTRY_HTTP_EDGE) private readonly edge: RegistryHttpEdge,
  ) {}

  private authenticated<T>(request: IncomingMessage, response: ServerResponse, template: string, status: number, work: (caller: RegistryCaller, body: unknown) => Promise<ServiceResult<T>>): Promise<void> {
    return this.edge.guarded(request, response, template, async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      const body = await this.edge.jsonBody(request, response);
      if (body === REFUSED) return;
      this.edge.answer(response, await work(caller, body), status);
    });
  }

  @Post('namespaces/:namespace/claims')
  claim(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.authenticated(request, response, '/v1/namespaces/:namespace/claims', 201, (caller, body) => this.trust.startClaim(caller, namespace, body));
  }

  @Post('namespaces/:namespace/claims/check')
  check(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.authenticated(request, response, '/v1/namespaces/:namespace/claims/check', 200, (caller, body) => this.trust.checkClaim(caller, namespace, body));
  }

  @Put('namespaces/:namespace/signature-policy')
  policy(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.authenticated(request, response, '/v1/namespaces/:namespace/signature-policy', 200, (caller, body) => this.trust.setSignaturePolicy(caller, namespace, body));
  }

  @Post('operator/namespaces/:namespace/lookalikes/clear')
  clear(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.authenticated(request, response, '/v1/operator/namespaces/:namespace/lookalikes/clear', 200, (caller, body) => this.trust.clearLookalike(caller, namespace, body));
  }

  @Get('namespace-claims')
  claims(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/namespace-claims', async () => {
      const caller = await this.edge.caller(request, response);
      if (caller === REFUSED) return;
      request.resume();
      const listed = await this.trust.listClaims(caller);
      this.edge.answer(response, listed.ok ? { ok: true, value: { claims: listed.value } } : listed);
    });
  }

  @Get('namespaces/:namespace')
  view(@Param('namespace') namespace: string, @Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    return this.edge.guarded(request, response, '/v1/namespaces/:namespace', async () => {
      this.edge.answer(response, await this.trust.view(namespace));
    });
  }
}
