import { mcpLabels } from './mcp-metrics';

describe('MCP message labels', () => {
  it('names protocol methods and published tools, and folds everything else so a client cannot add series', () => {
    expect(mcpLabels({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({ method: 'tools/list', tool: '' });
    expect(
      mcpLabels({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'codespar_discover', arguments: {} } }),
    ).toEqual({
      method: 'tools/call',
      tool: 'codespar_discover',
    });
    expect(
      mcpLabels({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'stripe/create_charge' } }),
    ).toEqual({
      method: 'tools/call',
      tool: 'other',
    });
    expect(mcpLabels({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: `x${'y'.repeat(500)}` } })).toEqual(
      {
        method: 'tools/call',
        tool: 'other',
      },
    );
    expect(mcpLabels({ jsonrpc: '2.0', id: 5, method: 'made/up' })).toEqual({ method: 'other', tool: '' });
    expect(mcpLabels({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      method: 'notifications/initialized',
      tool: '',
    });
    expect(mcpLabels({ jsonrpc: '2.0', id: 6, result: {} })).toEqual({ method: 'none', tool: '' });
    expect(mcpLabels(null)).toEqual({ method: 'none', tool: '' });
  });
});
