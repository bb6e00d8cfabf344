/**
 * @trustmesh/platform-http-body: request bodies read with a size bound that holds while reading, for apps
 * that run without a framework body parser.
 */
export { BodyTooLargeError, hasJsonContentType, readBoundedBody } from './bounded-body';
