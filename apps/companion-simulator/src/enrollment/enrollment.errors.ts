/** Enrollment failures with stable codes and messages a person can act on; no secret ever appears in them. */
export type EnrollmentErrorCode =
  | 'ALREADY_ENROLLED'
  | 'NOT_ENROLLED'
  | 'ENROLLMENT_TIMEOUT'
  | 'ENROLLMENT_UNREACHABLE'
  | 'ENROLLMENT_REFUSED'
  | 'ENROLLMENT_INVALID_REPLY'
  | 'CREDENTIAL_FILE_INVALID'
  | 'CREDENTIAL_FILE_INSECURE';

export class EnrollmentError extends Error {
  constructor(
    readonly code: EnrollmentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EnrollmentError';
  }
}
