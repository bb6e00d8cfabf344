/**
 * A detached JWS by a root did:web signer over bytes the caller defines (CARDS.md §3.1–§3.3 applied to other
 * payloads, e.g. the §5 did:web ownership challenge): the same header, kid and key-resolution rules as every signed
 * document here, with one exact `typ` so a signature made for one purpose cannot be replayed for another.
 */
import { verifyDetachedCompact } from './jws.verify';
import { didWebDocumentUrl, type KeyDocumentResolver } from './key.resolution';
import { reject, type SignatureAlg, type SignatureResult } from './signature.codes';

export interface DetachedPayloadVerifyOptions {
  /** The exact bytes that were signed. */
  payload: Uint8Array;
  /** The one accepted protected-header `typ` (e.g. `trustmesh-ownership+jws`); absent or other values are refused. */
  typ: string;
  /** The root did:web that must have signed; `kid` must be this signer `#` a fragment listed under `assertionMethod`. */
  signer: string;
  resolver: KeyDocumentResolver;
  /** Default `['ES256']`. */
  algs?: readonly SignatureAlg[];
  now?: Date;
  /** JSON pointer of the JWS in the caller's document; default `''`. */
  pointer?: string;
}

/** Verifies a detached compact JWS (`header..signature`) over `payload`; never throws. */
export async function verifyDetachedPayloadSignature(jws: unknown, options: DetachedPayloadVerifyOptions): Promise<SignatureResult> {
  const pointer = options.pointer ?? '';
  if (didWebDocumentUrl(options.signer) === undefined) {
    return reject('SIGNER_NOT_DID_WEB', pointer, `The signer "${options.signer.slice(0, 200)}" is not a root did:web (lowercase domain; no port, IP address, path or trailing dot).`, { signer: options.signer.slice(0, 200) });
  }
  return verifyDetachedCompact(jws, {
    payload: options.payload,
    rules: { kind: 'detached-payload', typ: options.typ, algs: options.algs ?? ['ES256'], kid: { signerFragment: options.signer } },
    keySource: { kind: 'did-web', signer: options.signer },
    resolver: options.resolver,
    now: options.now ?? new Date(),
    pointer,
  });
}
