import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { conceptIds } from '@rota/lexicon';
import { META_TOOL_NAMES } from '@rota/contracts/meta-tools';
import { OWN_FIXTURES, evaluate, readJsonl } from './eval-local';
import { classifyLexical } from './lexical';
import { EVIDENCE, SHORT_TO_TOOL, TOOL_GIST } from './tool-evidence';

const top = (intent: string) => classifyLexical(intent, 3)[0];

describe('evidence table', () => {
  it('only names concepts the lexicon can produce', () => {
    const known = new Set(conceptIds());
    const unknown = new Set<string>();
    for (const [, , ...groups] of EVIDENCE) {
      for (const g of groups) for (const id of g.replace(/^!/, '').split('|')) if (!known.has(id)) unknown.add(id);
    }
    expect([...unknown]).toEqual([]);
  });

  it('covers all 15 meta-tools', () => {
    expect(Object.values(SHORT_TO_TOOL).sort()).toEqual([...META_TOOL_NAMES].sort());
    expect(Object.keys(TOOL_GIST).sort()).toEqual([...META_TOOL_NAMES].sort());
    for (const name of META_TOOL_NAMES)
      expect(EVIDENCE.some(([short, w]) => SHORT_TO_TOOL[short] === name && w > 0)).toBe(true);
  });
});

describe('classifyLexical', () => {
  it.each([
    ['charge a customer in BRL with pix', 'codespar_charge'],
    ['emitir uma nota fiscal de servico', 'codespar_invoice'],
    ['send a receipt over WhatsApp', 'codespar_notify'],
    ['Paga esse boleto pra mim', 'codespar_pay'],
    ['Cotiza el envío de un paquete de 5 kg a Monterrey', 'codespar_ship'],
    ['bloqueia o cartão final 1234', 'codespar_issue'],
    ['qual meu saldo na carteira?', 'codespar_wallet'],
    ['registra el asiento contable de la venta', 'codespar_ledger'],
    ['is there a tool that looks up bank holidays?', 'codespar_discover'],
    ['how do I get started?', 'codespar_get_started'],
    ['conecta minha conta do Asaas', 'codespar_manage_connections'],
    ['Gera um link de pagamento pro carrinho', 'codespar_checkout'],
    ['compra uma air fryer até 400 reais', 'codespar_shop'],
    ['recibe 0.01 BTC de un cliente', 'codespar_crypto_pay'],
    ['verifica a identidade do vendedor com selfie', 'codespar_kyc'],
  ])('%s -> %s', (intent, tool) => {
    const hit = top(intent);
    expect(hit?.tool_name).toBe(tool);
    expect(hit?.confidence).not.toBe('low');
  });

  it.each([
    'book a flight to Lisbon',
    "what's the weather in Recife?",
    'write me a poem',
    'Me conta uma piada',
    'Cuéntame un chiste',
    'ok',
    '???',
    '',
  ])('answers nothing above low for %j', (intent) => {
    expect(classifyLexical(intent, 3).every((h) => h.confidence === 'low')).toBe(true);
  });

  it('answers [] when nothing in the sentence points at commerce', () => {
    expect(classifyLexical('Who painted the Mona Lisa?', 3)).toEqual([]);
  });

  it('respects the limit, returns only published names and never repeats one', () => {
    for (const limit of [1, 2, 3, 4, 5]) {
      const hits = classifyLexical('gera um boleto ou um pix de cobrança com link de pagamento pro cliente', limit);
      expect(hits.length).toBeLessThanOrEqual(limit);
      expect(new Set(hits.map((h) => h.tool_name)).size).toBe(hits.length);
      for (const h of hits) expect(META_TOOL_NAMES).toContain(h.tool_name);
    }
  });

  it('says which words matched in the rationale', () => {
    const hit = top('Cobra R$ 150 do cliente no Pix')!;
    expect(hit.rationale).toContain('"Cobra"');
    expect(hit.rationale).toContain('"Pix"');
    expect(hit.rationale).toContain(TOOL_GIST.codespar_charge);
  });

  it('gives high only to strong, unambiguous evidence', () => {
    expect(top('Emite a NF-e do pedido 9876 e manda o XML')!.confidence).toBe('high');
    expect(top('pix')!.confidence).not.toBe('high');
  });

  it('is deterministic', () => {
    const intent = 'Transfere R$ 1.500 pro fornecedor via TED';
    expect(classifyLexical(intent, 5)).toEqual(classifyLexical(intent, 5));
  });
});

describe('quality on labelled sets', () => {
  const sets: Array<[string, string]> = [
    ...OWN_FIXTURES.map(([title, file]): [string, string] => [title, join(__dirname, 'fixtures', file)]),
    ['shared dev set', resolve(__dirname, '../../../../../shared/eval/intents.dev.jsonl')],
  ];
  it.each(sets)('%s meets the fallback targets', (_title, path) => {
    if (!existsSync(path)) return;
    const r = evaluate(readJsonl(path));
    for (const s of Object.values(r.byLang)) {
      expect(s.top1 / s.n).toBeGreaterThanOrEqual(0.9);
      expect(s.top3 / s.n).toBeGreaterThanOrEqual(0.97);
    }
    if (r.nullCount > 0) expect(r.nullOk / r.nullCount).toBeGreaterThanOrEqual(0.9);
    expect(r.confident / r.labelled).toBeGreaterThanOrEqual(0.8);
  });
});
