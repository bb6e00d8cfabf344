/** @trustmesh/platform-operator-http/nest: the public port's probes as a NestJS controller, for every app. */
export { PUBLIC_PROBES, PublicProbesController } from './public-probes.controller';
