import { createHash } from 'node:crypto';

/** What the embedder reads for one tool. */
export interface ToolText {
  providerName: string;
  toolName: string;
  description: string;
}

/** `create_pix_charge` / `createPixCharge` → `create pix charge`. */
export function humanizeToolName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./:]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * The exact text embedded for a tool: provider name, the tool name in words,
 * then its description. The provider name is part of it because people ask
 * for providers by name ("send a message with z-api").
 */
export function toolEmbeddingText(t: ToolText): string {
  const desc = t.description.replace(/\s+/g, ' ').trim();
  return `${t.providerName}: ${humanizeToolName(t.toolName)}.${desc ? ` ${desc}` : ''}`;
}

/**
 * `mcp_tools.description_hash`: sha256 (hex) over the model name and the text
 * that gets embedded. A new text or a new model gives a new hash, and a row
 * whose stored hash differs is re-embedded.
 */
export function descriptionHash(model: string, text: string): string {
  return createHash('sha256').update(model).update('\n').update(text).digest('hex');
}
