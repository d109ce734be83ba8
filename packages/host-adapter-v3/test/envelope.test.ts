import { afterEach, describe, expect, it } from 'vitest';
import { HostProtocolError, V3Client, V3HostError } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function setup() {
  const sim = new MoviePilotV3Simulator();
  await sim.start();
  cleanups.push(() => sim.close());
  const client = new V3Client({ url: sim.url, auth: { apiKey: sim.apiKey }, readRetries: 0 });
  cleanups.push(() => client.close());
  return { sim, client };
}

async function protocolError(p: Promise<unknown>): Promise<HostProtocolError> {
  const error = await p.then(
    (r) => r,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HostProtocolError);
  expect((error as HostProtocolError).code).toBe('HOST_PROTOCOL_ERROR');
  return error as HostProtocolError;
}

const SEARCH = { query: { title: 'Dune', type: 'media' } };

describe('every answer is the 3.x envelope and the declared shape, else HOST_PROTOCOL_ERROR', () => {
  // elizaOS/eliza#30574: an SDK turned a successful HTML maintenance page into invented data. AltimateAI/altimate-code#1119:
  // an HTML 200 with a JSON content type surfaced as a raw parse crash instead of naming the content type and status.
  it('an HTML page with HTTP 200 (JSON content type or text/html): a protocol error naming the operation and "an HTML page", never its text', async () => {
    const { sim, client } = await setup();
    const page = '<!DOCTYPE html><html><body>Maintenance: token=SHOULD-NOT-LEAK</body></html>';
    for (const contentType of ['text/html; charset=utf-8', 'application/json']) {
      sim.faults.rawAnswer['media.search'] = { contentType, body: page };
      const error = await protocolError(client.call('media.search', SEARCH));
      expect(error.operation).toBe('media.search');
      expect(error.message).toContain('MoviePilot media.search answered HTTP 200 with an HTML page');
      expect(error.message).not.toContain('SHOULD-NOT-LEAK');
      expect(error.details).toMatchObject({ status: 200, kind: 'html' });
    }
  });

  it('a file body (a Python source, as a 2.x static-file route returns): a protocol error naming "a file body" and its type', async () => {
    const { sim, client } = await setup();
    sim.faults.rawAnswer['media.search'] = { contentType: 'text/x-python', body: 'import os\nAPI_TOKEN = "x"\n' };
    const error = await protocolError(client.call('media.search', SEARCH));
    expect(error.message).toMatch(/with a file body \(text\/x-python, \d+ bytes\)/);
    expect(error.message).not.toContain('API_TOKEN');
  });

  it('a bare list, an all-null model, an empty body, a bare object: protocol errors, not successes', async () => {
    const { sim, client } = await setup();
    const cases: Array<[string, string, RegExp]> = [
      ['media.search', '[{"title":"Dune"}]', /a bare JSON list of 1 item\(s\)/],
      ['media.detail', '{"title":null,"year":null,"media_id":null}', /a JSON object whose 3 field\(s\) are all null/],
      ['media.search', '', /an empty body/],
      ['download.clients', '{"detail":"Not Found"}', /a JSON object with field\(s\) "detail"/],
    ];
    for (const [op, body, words] of cases) {
      sim.faults.rawAnswer[op] = { body };
      const input =
        op === 'media.detail'
          ? { pathParams: { media_id: '693134' }, query: { media_source: 'themoviedb', type_name: '电影' } }
          : op === 'media.search'
            ? SEARCH
            : {};
      const error = await protocolError(client.call(op, input));
      expect(error.message, `${op} ${body}`).toMatch(words);
      delete sim.faults.rawAnswer[op];
    }
  });

  it('a malformed envelope (message null, success a string, an extra field, data missing): a protocol error naming what is wrong', async () => {
    const { sim, client } = await setup();
    const cases: Array<[string, RegExp]> = [
      ['{"success":true,"message":null,"data":[]}', /message is not a string/],
      ['{"success":"true","message":"","data":[]}', /success is not a boolean/],
      ['{"success":true,"message":"","data":[],"detail":"x"}', /extra field\(s\) "detail"/],
      ['{"success":true,"message":""}', /data is missing/],
    ];
    for (const [body, words] of cases) {
      sim.faults.rawAnswer['media.search'] = { body };
      expect((await protocolError(client.call('media.search', SEARCH))).message).toMatch(words);
    }
  });

  it("data that is not the operation's declared shape: a protocol error (list vs object, required fields)", async () => {
    const { sim, client } = await setup();
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        'media.search',
        SEARCH,
        '{"success":true,"message":"","data":{"items":[]}}',
        /data that is an object, not the declared list/,
      ],
      [
        'transfer.history',
        {},
        '{"success":true,"message":"","data":[]}',
        /data that is a list, not the declared object with list, total/,
      ],
      [
        'library.exists',
        { query: { media_source: 'themoviedb', media_id: '1' } },
        '{"success":true,"message":"","data":{}}',
        /without item/,
      ],
      [
        'download.add',
        { body: { torrent_in: { title: 't', enclosure: 'magnet:?xt=1' } } },
        '{"success":true,"message":"","data":{"requires_confirmation":false}}',
        /without download_id/,
      ],
    ];
    for (const [op, input, body, words] of cases) {
      sim.faults.rawAnswer[op] = { body };
      expect((await protocolError(client.call(op, input))).message, op).toMatch(words);
      delete sim.faults.rawAnswer[op];
    }
  });

  it('what the contract allows still passes: success:false with any data, a 204 without a body, and the simulator answers', async () => {
    const { sim, client } = await setup();
    sim.faults.rawAnswer['download.add'] = {
      body: '{"success":false,"message":"无法识别媒体信息","data":{"requires_confirmation":true}}',
    };
    const r = await client.call('download.add', { body: { torrent_in: { title: 't', enclosure: 'magnet:?xt=1' } } });
    expect(r).toMatchObject({ success: false, data: { requires_confirmation: true } });
    sim.faults.rawAnswer['subscription.delete'] = { status: 204, body: '' };
    expect(await client.call('subscription.delete', { pathParams: { subscribe_id: 1 } })).toMatchObject({
      status: 204,
      success: true,
      data: null,
    });
    sim.faults.rawAnswer = {};
    expect((await client.ok('media.search', SEARCH)).data).toEqual(expect.any(Array));
    expect((await client.ok('transfer.history')).data).toMatchObject({ list: [], total: 0 });
    sim.assertNoViolations();
  });

  it('a 5xx page that is not JSON (a proxy in front of the host) stays a failed call naming the kind of page, not a protocol error', async () => {
    const { sim, client } = await setup();
    sim.faults.rawAnswer['media.search'] = {
      status: 502,
      contentType: 'text/html',
      body: '<html><body>502 Bad Gateway nginx</body></html>',
    };
    const error = await client.call('media.search', SEARCH).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(V3HostError);
    expect((error as V3HostError).message).toContain('HTTP 502 with an HTML page');
    expect((error as V3HostError).message).not.toContain('nginx');
  });
});
