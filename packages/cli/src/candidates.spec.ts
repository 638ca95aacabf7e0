import { candidatesReport, classifyTool } from './candidates';

describe('router candidates', () => {
  it('classifies by the words of a tool’s name before its description', () => {
    expect(
      classifyTool({ server_id: 'x', name: 'create_charge', description: 'Creates a charge (boleto or Pix).' }),
    ).toMatchObject({
      meta_tool: 'codespar_charge',
    });
    expect(
      classifyTool({ server_id: 'x', name: 'emitir_nfse', description: 'Issues a service invoice.' }),
    ).toMatchObject({ meta_tool: 'codespar_invoice' });
    expect(classifyTool({ server_id: 'x', name: 'get_status', description: 'Service status.' })).toBeNull();
  });

  it('leaves out pairs that already have a rail, ranks by score and checksums the candidates', () => {
    const tools = [
      { server_id: 'asaas', name: 'create_charge', description: 'charge' },
      { server_id: 'newpay', name: 'create_charge', description: 'Creates a charge with a boleto' },
      { server_id: 'mail', name: 'send_message', description: 'Sends an email message' },
    ];
    const a = candidatesReport(tools, new Set(['asaas|codespar_charge']), new Date(0));
    expect(a.candidates.map((c) => c.id)).toEqual(['mail/send_message', 'newpay/create_charge']);
    expect(a.candidates.map((c) => c.score)).toEqual([5, 3]);
    const b = candidatesReport([...tools].reverse(), new Set(['asaas|codespar_charge']), new Date(1));
    expect(b.checksum).toBe(a.checksum);
    expect(a.checksum).toMatch(/^[0-9a-f]{64}$/);
  });
});
