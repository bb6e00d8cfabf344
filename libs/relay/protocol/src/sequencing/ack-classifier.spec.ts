import { classifyAck } from './ack-classifier';

describe('ACK classification (§6)', () => {
  it.each([
    ['initial advance', -1, 0, 0, 'advance'],
    ['contiguous prefix', 0, 2, 2, 'advance'],
    ['equal duplicate', 2, 2, 2, 'duplicate'],
    ['acknowledged below the -1 sentinel', -2, 0, 0, 'invalid'],
    ['stale', 2, 2, 1, 'duplicate'],
    ['beyond advertised', 0, 1, 2, 'invalid'],
    ['fractional', 0, 1, 0.5, 'invalid'],
    ["the browser's first ACK", -1, -1, -1, 'duplicate'],
    ['incoming below -1', 0, 3, -2, 'invalid'],
    ['not a number', 0, 3, Number.NaN, 'invalid'],
    ['beyond 2^53-1', 0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 'invalid'],
  ])('%s: acked %p, advertised %p, incoming %p -> %s', (_name, acknowledgedThrough, advertisedThrough, incoming, expected) => {
    expect(classifyAck({ acknowledgedThrough, advertisedThrough }, incoming)).toBe(expected);
  });
});
