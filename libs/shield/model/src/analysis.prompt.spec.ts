import type { RegistryKnowledge } from '@trustmesh/shield-records';

import { analysisRequest } from '../test/support/analysis-request.fixture';
import { analysisUserPrompt } from './analysis.prompt';

const REGISTRY: RegistryKnowledge = {
  matchedBy: 'namespace',
  namespace: 'example.com',
  ownershipProof: 'none',
  lookalikeOf: [{ namespace: 'examp1e.com', reason: 'confusable' }],
};

/** The JSON document of the user prompt. */
const documentOf = (prompt: string) => JSON.parse(prompt.slice(prompt.indexOf('{')));

describe('the analysis prompt', () => {
  it("gives the model what the card registry knows apart from the account's own history", () => {
    const base = analysisRequest();
    const document = documentOf(analysisUserPrompt({ ...base, counterparty: { ...base.counterparty!, registry: REGISTRY } }));
    expect(document.cardRegistry).toEqual(REGISTRY);
    expect(Object.keys(document.counterpartyHistory).sort()).toEqual(['outcomes', 'reference']);
  });

  it('leaves the registry out when it knows nothing of the reference', () => {
    expect(documentOf(analysisUserPrompt(analysisRequest())).cardRegistry).toBeUndefined();
  });
});
