/**
 * @trustmesh/platform-credentials: random bearer secrets, their SHA-256 verifiers and constant-time
 * comparison, shared by every app that issues or checks credentials.
 */
export { digestsEqual, indexOfDigest, looksLikeSecret, matchesAnyDigest, mintSecret, sha256, sha256Hex } from './secrets';
export { DEVELOPMENT_OPERATOR_ACCOUNT, parseOperatorCredentials, withDevelopmentOperator, type OperatorCredential } from './operator-credentials';
export { delegatedAccount, MAX_ON_BEHALF_OF, ON_BEHALF_OF_HEADER, parseServiceCredentials, type DelegatedAccount, type ServiceCredential } from './service-credentials';
