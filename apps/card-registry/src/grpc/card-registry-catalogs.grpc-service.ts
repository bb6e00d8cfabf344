/**
 * `CardRegistry.PublishCatalog` over the same `CatalogPublishService` as REST `POST /v1/catalogs`
 * (README.md "AI Catalogs"): the raw catalog bytes in, the same report out as a `PublishCatalogResponse`,
 * the same refusals in `registry-issues-bin`. A publish a concurrent change stopped after earlier
 * namespaces were stored (ABORTED, CATALOG_PARTIALLY_STORED) also carries that report, binary-encoded, in
 * `registry-catalog-result-bin`, so a gRPC client learns exactly what was stored, as a REST client does
 * from the problem document.
 */
import { cardRegistryV1GrpcJs as v1, REGISTRY_CATALOG_RESULT_METADATA, timestampFromDate } from '@trustmesh/contracts';

import type { CatalogPublishService } from '../catalogs/catalog-publish.service';
import { partialReportOf, type CatalogEntryOutcome, type CatalogNamespaceOutcome, type PublishedCatalog } from '../catalogs/catalog-publish.report';
import { succeed, type ProblemIssue } from '../service/registry-service.result';
import type { SignatureView } from '../trust/signature.view';
import { kindToProto } from './registry-grpc.enums';
import { failure, type RegistryGrpcEdge } from './registry-grpc.edge';

const NAMESPACE_OUTCOMES: Record<CatalogNamespaceOutcome, v1.CatalogNamespaceOutcome> = {
  stored: v1.CatalogNamespaceOutcome.STORED,
  unchanged: v1.CatalogNamespaceOutcome.UNCHANGED,
  validated: v1.CatalogNamespaceOutcome.VALIDATED,
  refused: v1.CatalogNamespaceOutcome.REFUSED,
  not_stored: v1.CatalogNamespaceOutcome.NOT_STORED,
};
const ENTRY_OUTCOMES: Record<CatalogEntryOutcome, v1.CatalogEntryOutcome> = {
  created: v1.CatalogEntryOutcome.CREATED,
  unchanged: v1.CatalogEntryOutcome.UNCHANGED,
  validated: v1.CatalogEntryOutcome.VALIDATED,
  recorded: v1.CatalogEntryOutcome.RECORDED,
  refused: v1.CatalogEntryOutcome.REFUSED,
  not_stored: v1.CatalogEntryOutcome.NOT_STORED,
};

const issueMessage = (found: ProblemIssue): v1.Issue => ({ path: found.path, code: found.code, severity: found.severity === 'warning' ? v1.IssueSeverity.WARNING : v1.IssueSeverity.ERROR, message: found.message });

function signatureMessage(view: SignatureView): v1.SignatureVerification {
  // A key document that could not be fetched leaves the signature unchecked, not wrong.
  const outcome = view.verified ? v1.SignatureOutcome.VERIFIED : view.code === 'KEY_DOCUMENT_UNAVAILABLE' ? v1.SignatureOutcome.UNVERIFIABLE : v1.SignatureOutcome.INVALID;
  return {
    path: '/signature',
    outcome,
    signer: view.signer ?? '',
    kid: view.kid ?? '',
    alg: view.alg ?? '',
    profile: '',
    code: view.code ?? '',
    message: '',
    ...(view.verifiedAt ? { verifiedAt: timestampFromDate(new Date(view.verifiedAt)) } : {}),
  };
}

export function publishCatalogResponse(report: PublishedCatalog): v1.PublishCatalogResponse {
  return {
    catalogId: report.catalogId,
    form: report.form,
    dryRun: report.dryRun,
    namespaces: report.records.map((record) => ({ namespace: record.namespace, outcome: NAMESPACE_OUTCOMES[record.outcome], recordPath: record.href })),
    entries: report.entries.map((entry) => ({
      pointer: entry.pointer,
      identifier: entry.identifier,
      namespace: entry.namespace,
      parent: entry.parent ?? '',
      reference: entry.reference,
      kind: entry.kind !== undefined ? kindToProto(entry.kind) : v1.CardKind.UNSPECIFIED,
      revision: entry.revision ?? '',
      digest: entry.digest ?? '',
      url: entry.url ?? '',
      outcome: ENTRY_OUTCOMES[entry.outcome],
      issues: (entry.issues ?? []).map(issueMessage),
    })),
    ...(report.signature ? { signature: signatureMessage(report.signature) } : {}),
    warnings: report.warnings.map(issueMessage),
  };
}

export function catalogGrpcHandlers(catalogPublish: CatalogPublishService, edge: RegistryGrpcEdge, maxCardBytes: number): Pick<v1.CardRegistryServer, 'publishCatalog'> {
  return {
    publishCatalog: edge.write(
      'PublishCatalog',
      async (caller, request: v1.PublishCatalogRequest) => {
        if (request.catalog.length > maxCardBytes) return { ok: false, failure: failure('exhausted', 'DOCUMENT_TOO_LARGE', `The catalog exceeds ${maxCardBytes} bytes`, '/catalog') };
        const published = await catalogPublish.publish(caller, Buffer.from(request.catalog), { dryRun: request.dryRun });
        return published.ok ? succeed(publishCatalogResponse(published.value)) : published;
      },
      (refused): Record<string, Buffer> => {
        const report = partialReportOf(refused);
        return report ? { [REGISTRY_CATALOG_RESULT_METADATA]: Buffer.from(v1.PublishCatalogResponse.encode(publishCatalogResponse(report)).finish()) } : {};
      },
    ),
  };
}
