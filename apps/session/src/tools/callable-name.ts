/**
 * A catalog tool is called `server/tool`. Two other spellings are accepted
 * as aliases: `server.tool`, and upper snake case (`ASAAS_CREATE_PAYMENT`),
 * both resolved against the session's servers, the longest matching server
 * id first (case-insensitively for upper snake case, where `-` and `.` in
 * an id read as `_`).
 */
export interface CallableCandidate {
  server: string;
  tool: string;
}

const SLASH = /^([^/\s]+)\/([^\s]+)$/;
const UPPER_SNAKE = /^[A-Z0-9]+(?:_[A-Z0-9]+)+$/;

/** Every (server, tool) the name could mean, most specific first; groups of equal specificity share a `rank`. */
export function callableCandidates(
  name: string,
  servers: readonly string[],
): Array<CallableCandidate & { rank: number }> {
  const slash = SLASH.exec(name);
  if (slash) return servers.includes(slash[1]!) ? [{ server: slash[1]!, tool: slash[2]!, rank: 0 }] : [];
  const byLength = [...servers].sort((a, b) => b.length - a.length);
  const out: Array<CallableCandidate & { rank: number }> = [];
  for (const server of byLength) {
    if (name.startsWith(`${server}.`) && name.length > server.length + 1)
      out.push({ server, tool: name.slice(server.length + 1), rank: server.length });
  }
  if (out.length > 0 || !UPPER_SNAKE.test(name)) return out;
  const lower = name.toLowerCase();
  for (const server of byLength) {
    const norm = server.toLowerCase().replace(/[^a-z0-9]/g, '_');
    if (lower.startsWith(`${norm}_`) && lower.length > norm.length + 1)
      out.push({ server, tool: lower.slice(norm.length + 1), rank: norm.length });
  }
  return out;
}
