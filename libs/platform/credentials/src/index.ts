/**
 * @trustmesh/platform-credentials: random bearer secrets, their SHA-256 verifiers and constant-time
 * comparison, shared by every app that issues or checks credentials.
 */
export { digestsEqual, indexOfDigest, looksLikeSecret, matchesAnyDigest, mintSecret, sha256, sha256Hex } from './secrets';
export { DEVELOPMENT_OPERATOR_ACCOUNT, parseOperatorCredentials, withDevelopmentOperator, type OperatorCredential } from './operator-credentials';
