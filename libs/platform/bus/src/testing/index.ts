/**
 * @trustmesh/platform-bus/testing: event buses for integration suites. Test code only: production code
 * imports `@trustmesh/platform-bus`.
 */
export { TEST_BUS_KINDS, KAFKA_TEST_TUNING, openTestBus, type TestBusKind, type TestBusTarget } from './test-buses';
