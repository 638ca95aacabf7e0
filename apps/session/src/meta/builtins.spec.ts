import { LIST_TOOLS_TOOL, META_TOOL_NAMES } from '@rota/contracts';
import { getStarted, listTools, type ProviderState } from './builtins';

const provider = (id: string, category: string, status: ProviderState['status']): ProviderState => ({
  id,
  name: id.toUpperCase(),
  category,
  authType: status === 'not_required' ? 'none' : 'api_key',
  status,
  connectedAt: status === 'connected' ? new Date('2026-01-01T00:00:00Z') : null,
});

describe('getStarted', () => {
  it('marks the connection step from what is connected and suggests tools by category', () => {
    const d = getStarted({
      environment: 'live',
      inSession: true,
      providers: [
        provider('nfe', 'fiscal', 'connected'),
        provider('post', 'logistics', 'not_required'),
        provider('bank', 'banking', 'disconnected'),
      ],
    });
    expect(d.connected).toEqual(['nfe']);
    expect(d.steps.map((s) => [s.step, s.id, s.done])).toEqual([
      [1, 'api_key', true],
      [2, 'connect_provider', true],
      [3, 'open_session', true],
      [4, 'discover', false],
      [5, 'first_call', false],
    ]);
    expect(d.suggested_tools.map((s) => s.tool)).toEqual(['codespar_invoice', 'codespar_ship']);
    expect(d.steps[4]!.tool).toBe('codespar_invoice');
  });

  it('starts at the connection step when nothing is connected, and adds going live in test', () => {
    const d = getStarted({ environment: 'test', inSession: false, providers: [] });
    expect(d.steps.find((s) => s.id === 'connect_provider')!.done).toBe(false);
    expect(d.steps.find((s) => s.id === 'open_session')!.done).toBe(false);
    expect(d.steps.at(-1)!.id).toBe('go_live');
    expect(d.steps.find((s) => s.id === 'first_call')!.tool).toBe(LIST_TOOLS_TOOL);
  });
});

describe('listTools', () => {
  it('lists meta-tools in published order, then the built-in, then catalog tools as server/tool', () => {
    const d = listTools([{ serverId: 'p', toolName: 't', description: 'd' }], [provider('p', 'payments', 'connected')]);
    expect(d.tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES, LIST_TOOLS_TOOL, 'p/t']);
    expect(d.tools.at(-1)).toEqual({ name: 'p/t', description: 'd', meta_tool: false, server_id: 'p' });
    expect(d.servers).toEqual([{ server_id: 'p', connection_status: 'connected' }]);
  });
});
