import { V3_OPERATIONS } from '../src/contract/operations';
import { v3CallClassification } from '../src/operations-capabilities';
import { HostOperationError, hostPluginSegments, rulePluginRoute } from '@media-agent/host-adapter-kit';
import { describe, expect, it } from 'vitest';
import { V3HostError, V3TransportError, V3UnsupportedError } from '../src/index';

describe('review: former names and arguments behave as before', () => {
  it('2.x former data argument: envelope data {status} is kept as data, not read as options', () => {
    // The 2.x adapter's former third argument was the envelope data; a host's data object with a `status` field
    // (e.g. a download's state) must stay data.
    const e = new HostOperationError('download.add', '下载失败', { status: 'exists' });
    expect(e.data).toEqual({ status: 'exists' });
    expect(e.message).not.toContain('HTTP exists');
  });
  it('2.x former data argument: empty object data is kept', () => {
    const e = new HostOperationError('download.add', 'x', {});
    expect(e.data).toEqual({});
  });
  it('V3HostError details keep operationId (as before)', () => {
    expect(new V3HostError('download.add', 500, 'm').details.operationId).toBe('download.add');
  });
  it('V3TransportError details keep operationId (as before)', () => {
    expect(new V3TransportError('download.add', 'm').details.operationId).toBe('download.add');
  });
  it('V3UnsupportedError details keep capabilityId (as before)', () => {
    expect(new V3UnsupportedError('mp.x', 'r').details.capabilityId).toBe('mp.x');
  });
});

describe('review: plugin route rule', () => {
  // The document alone cannot tell these apart; discovery reads the host's installed plugins when its
  // credentials open the route, and the list decides.
  it('a host management route whose segment is never served alone nor followed by {plugin_id} is refused when the installed list is known', () => {
    const paths = ['/api/v1/plugin/', '/api/v1/plugin/market/list', '/api/v1/plugin/MyPlugin/run'];
    const json = { responses: { '200': { content: { 'application/json': {} } } } };
    const hostSegments = hostPluginSegments(paths);
    const installed = new Set(['MyPlugin']);
    expect(rulePluginRoute('/api/v1/plugin/market/list', json, { hostSegments, installed }).own).toBe(false);
  });
  it('a plugin that serves a route at its bare id keeps its routes when the installed list names it', () => {
    const paths = ['/api/v1/plugin/MyPlugin', '/api/v1/plugin/MyPlugin/run'];
    const json = { responses: { '200': { content: { 'application/json': {} } } } };
    const hostSegments = hostPluginSegments(paths);
    const installed = new Set(['MyPlugin']);
    expect(rulePluginRoute('/api/v1/plugin/MyPlugin/run', json, { hostSegments, installed }).own).toBe(true);
  });
});

describe('review: show_secrets spelled as the host reads a bool', () => {
  // FastAPI/pydantic read a query bool from yes/on/t/y too; each of these makes the host return secrets.
  const op = V3_OPERATIONS.find((o) => o.operation_id === 'config.system.get')!;
  for (const v of ['yes', 'on', 't', 'y', ['true']])
    it(`show_secrets=${JSON.stringify(v)} is classified secret`, () => {
      expect(v3CallClassification(op, { query: { show_secrets: v } }).result_sensitivity).toBe('secret');
    });
});

describe('review: instanceof of former names', () => {
  it('a subclass of the deprecated V3HostError does not claim every HostOperationError', () => {
    class Mine extends V3HostError {}
    expect(new HostOperationError('a', 'b') instanceof Mine).toBe(false);
  });
  // Chosen: an unreachable host is a transport failure where nothing was sent (as the 3.x adapter's
  // V3TransportError was for both codes); the CHANGELOG says so for the 2.x classes.
  it('HostUnreachableError is a HostTransportError on both adapters, with its own code', async () => {
    const { HostUnreachableError, HostTransportError } = await import('@media-agent/host-adapter-v2');
    const e = new HostUnreachableError('x', 'y');
    expect(e instanceof HostTransportError).toBe(true);
    expect(e.code).toBe('HOST_UNREACHABLE');
  });
});
