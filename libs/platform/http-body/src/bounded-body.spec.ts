import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { BodyTooLargeError, hasJsonContentType, readBoundedBody } from './bounded-body';

/** A real server that answers each request with what `readBoundedBody` made of its body. */
describe('readBoundedBody', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      readBoundedBody(request, 16).then(
        (body) => response.end(JSON.stringify({ ok: true, body: body.toString('utf8'), json: hasJsonContentType(request) })),
        (error: unknown) => {
          response.statusCode = error instanceof BodyTooLargeError ? 413 : 500;
          response.end(JSON.stringify({ ok: false, maxBytes: error instanceof BodyTooLargeError ? error.maxBytes : null }));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a body within the bound, and an empty one', async () => {
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'Application/JSON; charset=utf-8' }, body: '{"a":"é"}' });
    expect(await answer.json()).toEqual({ ok: true, body: '{"a":"é"}', json: true });
    expect(await (await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '' })).json()).toEqual({ ok: true, body: '', json: false });
  });

  it('refuses a declared length beyond the bound and still answers', async () => {
    const answer = await fetch(url, { method: 'POST', body: 'x'.repeat(17) });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({ ok: false, maxBytes: 16 });
  });

  it('refuses a chunked body that grows beyond the bound while streaming, without waiting for its end', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on('error', reject);
      request.write('x'.repeat(10));
      request.write('y'.repeat(10));
      // Never ended: the answer must come from the bound, not from the end of the body.
    });
    expect(status).toBe(413);
  });
});
