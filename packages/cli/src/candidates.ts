import { createHash } from 'node:crypto';

/**
 * `rota router candidates`: catalog tools that look like rails of a
 * meta-tool, by the words of their names and descriptions. A heuristic
 * triage list for people, not a routing decision: the report is loaded into
 * `/dashboard/router-candidates`, where each entry is claimed, deferred or
 * rejected.
 */

/** Words that suggest a meta-tool, matched against tool names (weight 2) and descriptions (weight 1). */
export const META_TOOL_WORDS: Record<string, string[]> = {
  codespar_charge: ['charge', 'cobranca', 'boleto', 'payment_link', 'create_payment', 'pix_qr', 'qrcode'],
  codespar_pay: ['payout', 'transfer', 'withdraw', 'disburse', 'send_pix', 'pay_bill'],
  codespar_invoice: ['invoice', 'nfe', 'nfse', 'nota_fiscal', 'fiscal'],
  codespar_ship: ['shipment', 'shipping', 'freight', 'frete', 'tracking', 'label'],
  codespar_notify: ['send_message', 'message', 'notify', 'sms', 'whatsapp', 'email'],
  codespar_kyc: ['kyc', 'identity', 'document_check', 'background_check', 'onboarding'],
  codespar_ledger: ['ledger', 'journal', 'posting'],
  codespar_wallet: ['wallet', 'balance'],
  codespar_crypto_pay: ['crypto', 'usdc', 'stablecoin', 'onchain'],
  codespar_checkout: ['checkout', 'cart'],
  codespar_shop: ['product', 'sku', 'inventory', 'order'],
};

export interface CatalogTool {
  server_id: string;
  name: string;
  description: string;
}

export interface Candidate {
  id: string;
  server_id: string;
  tool: string;
  meta_tool: string;
  score: number;
  reason: string;
}

export interface CandidatesReport {
  generated_at: string;
  checksum: string;
  candidates: Candidate[];
}

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '_');

/** The best meta-tool for one tool, or null under `minScore`. */
export function classifyTool(tool: CatalogTool, minScore = 2): Omit<Candidate, 'id' | 'server_id' | 'tool'> | null {
  const name = `_${words(tool.name)}_`;
  const description = `_${words(tool.description)}_`;
  let best: { meta_tool: string; score: number; hits: string[] } | null = null;
  for (const [meta, list] of Object.entries(META_TOOL_WORDS)) {
    let score = 0;
    const hits: string[] = [];
    for (const w of list) {
      if (name.includes(w)) {
        score += 2;
        hits.push(`name has "${w}"`);
      } else if (description.includes(`_${w}`)) {
        score += 1;
        hits.push(`description has "${w}"`);
      }
    }
    if (score > (best?.score ?? 0)) best = { meta_tool: meta, score, hits };
  }
  if (!best || best.score < minScore) return null;
  return { meta_tool: best.meta_tool, score: best.score, reason: best.hits.join(', ') };
}

/**
 * The report: every tool that classifies, except pairs the router already has
 * a rail for (`railed` holds `provider|meta_tool`), highest score first. The
 * checksum covers the candidates, so the same catalog gives the same key for
 * the triage marks.
 */
export function candidatesReport(tools: CatalogTool[], railed: Set<string>, now = new Date()): CandidatesReport {
  const candidates: Candidate[] = [];
  for (const t of tools) {
    const c = classifyTool(t);
    if (!c || railed.has(`${t.server_id}|${c.meta_tool}`)) continue;
    candidates.push({ id: `${t.server_id}/${t.name}`, server_id: t.server_id, tool: t.name, ...c });
  }
  candidates.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const checksum = createHash('sha256').update(JSON.stringify(candidates)).digest('hex');
  return { generated_at: now.toISOString(), checksum, candidates };
}
