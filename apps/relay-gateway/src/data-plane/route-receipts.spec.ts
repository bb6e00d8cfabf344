import { RouteReceipts, type AwaitedReceipt } from './route-receipts';

const receipt = (requestId: string): AwaitedReceipt => ({ workspaceId: 'w-1', requestId, sessionId: 's-1', connectionId: 'c-1' });

describe('RouteReceipts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports a routed request whose receipt never came, once, and forgets it', () => {
    const silent: AwaitedReceipt[] = [];
    const receipts = new RouteReceipts(5_000, (missing) => silent.push(missing));
    receipts.expect(receipt('r-1'));
    jest.advanceTimersByTime(4_999);
    expect(silent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(silent).toEqual([receipt('r-1')]);
    jest.advanceTimersByTime(60_000);
    expect(silent).toHaveLength(1);
    expect(receipts.size).toBe(0);
  });

  it('never reports a request whose receipt (or response) arrived, nor anything after clear()', () => {
    const silent: AwaitedReceipt[] = [];
    const receipts = new RouteReceipts(5_000, (missing) => silent.push(missing));
    receipts.expect(receipt('r-1'));
    receipts.expect(receipt('r-2'));
    receipts.arrived('w-1', 'r-1');
    receipts.arrived('w-other', 'r-2'); // another workspace's request of the same id is another request
    jest.advanceTimersByTime(5_000);
    expect(silent).toEqual([receipt('r-2')]);
    receipts.expect(receipt('r-3'));
    receipts.clear();
    jest.advanceTimersByTime(5_000);
    expect(silent).toEqual([receipt('r-2')]);
  });
});
