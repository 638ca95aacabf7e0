import { AppError } from '@rota/contracts';
import type { PrismaClient } from '@rota/db';
import { toVectorParam, type Embedder } from './embedder';
import type { CatalogDocument, CatalogProvider } from './format';
import {
  CatalogRepository,
  type DisplacedProvider,
  type NewToolRow,
  type StoredTool,
  type ToolUpdateRow,
} from './repository';
import { descriptionHash, toolEmbeddingText } from './text';

export type { DisplacedProvider };

export interface ImportOptions {
  /** The embedding model in force; new and edited rows are hashed with it. */
  model: string;
  /**
   * Owner of the imported providers and tools: null (default) for the global
   * catalog, or a project id. A project's providers are its own and live
   * under ids the global catalog does not use: a project that tries to
   * create or change one of those is refused (`provider_id_taken`), and a
   * global import of an id some project uses displaces the project's row.
   */
  projectId?: string | null;
  /**
   * Set only by operator tooling: lets a project's provider be declared as
   * not moving money (`moves_money: false`). Without it a project's own
   * import never lifts its amount rules that way.
   */
  operator?: boolean;
  /** Delete this owner's tools of the imported servers that the input no longer lists. */
  prune?: boolean;
  /**
   * Embed new and edited rows during the import and write them complete
   * (its model must be `model`). Meant for the local embedder and for bulk
   * loads; without it the worker embeds them afterwards.
   */
  embedder?: Embedder;
  /**
   * Bulk load: drop the HNSW index before writing and build it again at the
   * end, inside the same transaction. Much faster for tens of thousands of
   * rows, but dropping the index locks the table: every reader and writer of
   * `mcp_tools` waits for the commit. For first loads, not under traffic.
   */
  rebuildVectorIndex?: boolean;
}

export interface ImportResult {
  providers: { created: number; updated: number; unchanged: number };
  /** Project providers that used an id this global import wrote (always empty for a project import). */
  disabled: DisplacedProvider[];
  tools: { created: number; updated: number; unchanged: number; removed: number };
  /** Rows that now need a vector (new tools and tools whose embedded text changed); 0 when the import embedded them. */
  reembed: number;
  /** Where the time went, in ms (embedding and index only when the import did them). */
  timings: { total: number; embedding: number; writing: number; index: number };
}

/** An embedder that can hand back the SQL text of its vectors directly (the thread pool does). */
interface ParamEmbedder extends Embedder {
  embedParams(texts: string[]): Promise<string[]>;
}

async function vectorParams(embedder: Embedder, texts: string[]): Promise<string[]> {
  if (typeof (embedder as ParamEmbedder).embedParams === 'function')
    return (embedder as ParamEmbedder).embedParams(texts);
  return (await embedder.embed(texts)).map(toVectorParam);
}

/** Key order does not matter in JSON objects (and jsonb reorders them). */
function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Every stored field counts, `http` included: a changed auth config rewrites the row. */
function sameProvider(a: CatalogProvider, b: CatalogProvider): boolean {
  return canonical(a) === canonical(b);
}

/**
 * Whether a stored row's hash still matches this text. The stored hash was
 * made with the row's embedding model (or, before its first vector, with the
 * model of the import that wrote it), so it is recomputed with that model: a
 * re-import under another model configuration does not look like an edit.
 */
function textUnchanged(row: StoredTool, text: string, model: string): boolean {
  if (row.descriptionHash === descriptionHash(row.embeddingModel ?? model, text)) return true;
  return row.embeddingModel !== null && row.descriptionHash === descriptionHash(model, text);
}

/**
 * Upserts a parsed catalog by (server, tool name, owner) in one transaction:
 * either everything is written or nothing is. Importing the same input twice
 * changes nothing the second time. An edited text gets a new hash and loses
 * its vector, which is what queues it for re-embedding.
 */
export async function importCatalog(
  prisma: PrismaClient,
  doc: CatalogDocument,
  opts: ImportOptions,
): Promise<ImportResult> {
  if (opts.embedder && opts.embedder.model !== opts.model)
    throw new Error(`the import's embedder makes ${opts.embedder.model} vectors, not ${opts.model}`);
  const started = performance.now();
  // Embedding takes minutes for a large catalog (the local model makes about
  // 50 vectors a second per core), far longer than a transaction should stay
  // open. So the rows to embed are worked out first, from a read outside the
  // transaction, and embedded before it opens; the transaction then takes
  // each row's vector by its text. A row whose text the pre-pass did not
  // foresee (something else wrote in between) is embedded inside, and those
  // are few.
  const vectors = new Map<string, string>();
  let embedding = 0;
  if (opts.embedder) {
    const foreseen = await plan(new CatalogRepository(prisma), doc, opts, { write: false });
    embedding = await embedInto(opts.embedder, [...new Set(foreseen.texts.values())], vectors);
  }
  return CatalogRepository.transaction(prisma, async (repo) => {
    const { result, inserts, updates, removed, texts } = await plan(repo, doc, opts, { write: true });
    result.timings.embedding = embedding;
    if (opts.embedder && texts.size > 0) {
      const missing = [...new Set([...texts.values()].filter((text) => !vectors.has(text)))];
      result.timings.embedding += await embedInto(opts.embedder, missing, vectors);
      for (const [row, text] of texts) row.vector = vectors.get(text)!;
    }

    const w = performance.now();
    if (opts.rebuildVectorIndex) await repo.dropVectorIndex();
    result.tools.created = await repo.insertTools(inserts, opts.embedder?.model);
    await repo.updateTools(updates, opts.embedder?.model);
    result.tools.removed = await repo.deleteTools(removed);
    result.reembed += result.tools.created;
    if (opts.embedder) result.reembed = 0;
    result.timings.writing = performance.now() - w;
    if (opts.rebuildVectorIndex) {
      const t = performance.now();
      await repo.createVectorIndex();
      result.timings.index = performance.now() - t;
    }
    result.timings.total = performance.now() - started;
    return result;
  });
}

/** Embeds `texts` into `vectors` (text to the vector's SQL form); returns the milliseconds it took. */
async function embedInto(embedder: Embedder, texts: string[], vectors: Map<string, string>): Promise<number> {
  if (texts.length === 0) return 0;
  const t = performance.now();
  const params = await vectorParams(embedder, texts);
  if (params.length !== texts.length)
    throw new Error(`embedder returned ${params.length} vectors for ${texts.length} texts`);
  texts.forEach((text, i) => vectors.set(text, params[i]!));
  return performance.now() - t;
}

/** What an import will write: counts so far, the tool rows to insert, update and delete, and the text to embed for each new or edited row. */
interface ImportPlan {
  result: ImportResult;
  inserts: NewToolRow[];
  updates: ToolUpdateRow[];
  removed: string[];
  texts: Map<NewToolRow | ToolUpdateRow, string>;
}

/**
 * Compares the input with what is stored and works out the writes. With
 * `write`, the provider rows are written on the way (tool rows depend on
 * them); without it, nothing is, and the plan only foresees the texts to
 * embed.
 */
async function plan(
  repo: CatalogRepository,
  doc: CatalogDocument,
  opts: ImportOptions,
  { write }: { write: boolean },
): Promise<ImportPlan> {
  const projectId = opts.projectId ?? null;
  const result: ImportResult = {
    providers: { created: 0, updated: 0, unchanged: 0 },
    disabled: [],
    tools: { created: 0, updated: 0, unchanged: 0, removed: 0 },
    reembed: 0,
    timings: { total: 0, embedding: 0, writing: 0, index: 0 },
  };
  if (projectId !== null && !(await repo.projectExists(projectId)))
    throw new AppError('not_found', `project ${projectId} not found`);

  const owner = projectId ?? '';
  const ids = doc.servers.map((s) => s.id);
  const existing = new Map((await repo.existingProviders(ids, owner)).map((p) => [p.id, p]));
  // A project may name a global provider by id only (its tools then hang off
  // the global provider); it never writes one. Other projects' providers are
  // not looked at, so an unknown id reads the same whoever owns it.
  const global = projectId === null ? existing : new Map((await repo.existingProviders(ids, '')).map((p) => [p.id, p]));
  if (projectId !== null) {
    // Ids belong to their owner: a project never writes the details of an id
    // the global catalog uses (it may still add its own tools to it).
    const taken = doc.servers.filter((s) => s.provider !== null && global.has(s.id)).map((s) => s.id);
    if (taken.length)
      throw new AppError(
        'provider_id_taken',
        `provider id${taken.length > 1 ? 's' : ''} ${taken.join(', ')} belong${taken.length > 1 ? '' : 's'} to the global catalog; import your own provider under another id`,
        { ids: taken },
      );
  }
  const unknown = doc.servers
    .filter((s) => s.provider === null && !existing.has(s.id) && !global.has(s.id))
    .map((s) => s.id);
  if (unknown.length)
    throw new AppError(
      'unknown_server',
      `unknown server: ${unknown.join(', ')} (give the provider's details to create it)`,
      { unknown },
    );

  const names = new Map<string, string>();
  /** Owner of the provider each server's tools hang off. */
  const serverOwner = new Map<string, string>();
  const renamed: string[] = [];
  const toUpsert: CatalogProvider[] = [];
  const created: string[] = [];
  for (const s of doc.servers) {
    const before = existing.get(s.id);
    const declared = s.provider;
    if (!declared) {
      const known = before ?? global.get(s.id)!;
      names.set(s.id, known.name);
      serverOwner.set(s.id, before ? owner : '');
      continue;
    }
    // Only an operator says a project's provider does not move money.
    const p =
      projectId !== null && !opts.operator && declared.movesMoney === false
        ? { ...declared, movesMoney: null }
        : declared;
    names.set(s.id, p.name);
    serverOwner.set(s.id, owner);
    if (!before) {
      toUpsert.push(p);
      created.push(s.id);
      result.providers.created++;
    } else if (!sameProvider(before, p)) {
      toUpsert.push(p);
      result.providers.updated++;
      if (before.name !== p.name) renamed.push(s.id);
    } else result.providers.unchanged++;
  }
  if (write) {
    // A global import wins over a project row of the same id: that row moves out of the way, disabled, and is reported.
    if (projectId === null)
      result.disabled = await repo.displaceProjectProviders(
        doc.servers.filter((s) => s.provider !== null).map((s) => s.id),
      );
    await repo.upsertProviders(toUpsert, projectId);
    // The project's tools that hung off a global provider move onto its new own one.
    if (projectId !== null) await repo.adoptProjectTools(created, projectId);
  }

  const stored = await repo.toolsOf(ids, projectId);
  const byKey = new Map(stored.map((t) => [`${t.serverId}\0${t.toolName}`, t]));
  const inserts: NewToolRow[] = [];
  const updates: ToolUpdateRow[] = [];
  /** The text to embed for each new or edited row. */
  const texts = new Map<NewToolRow | ToolUpdateRow, string>();
  const seen = new Set<string>();
  for (const s of doc.servers) {
    const providerName = names.get(s.id)!;
    for (const tool of s.tools) {
      const key = `${s.id}\0${tool.name}`;
      seen.add(key);
      const text = toolEmbeddingText({ providerName, toolName: tool.name, description: tool.description });
      const row = byKey.get(key);
      if (!row) {
        inserts.push({
          ...tool,
          serverId: s.id,
          serverOwner: serverOwner.get(s.id)!,
          projectId,
          descriptionHash: descriptionHash(opts.model, text),
        });
        texts.set(inserts[inserts.length - 1]!, text);
        continue;
      }
      const sameText = textUnchanged(row, text, opts.model);
      const sameRest =
        row.description === tool.description &&
        row.httpMethod === tool.httpMethod &&
        row.endpointTemplate === tool.endpointTemplate &&
        canonical(row.inputSchema) === canonical(tool.inputSchema) &&
        canonical(row.parameters) === canonical(tool.parameters);
      if (sameText && sameRest) {
        result.tools.unchanged++;
        continue;
      }
      updates.push({
        id: row.id,
        description: tool.description,
        inputSchema: tool.inputSchema,
        httpMethod: tool.httpMethod,
        endpointTemplate: tool.endpointTemplate,
        parameters: tool.parameters,
        descriptionHash: sameText ? row.descriptionHash : descriptionHash(opts.model, text),
        clearEmbedding: !sameText,
      });
      if (!sameText) {
        result.reembed++;
        texts.set(updates[updates.length - 1]!, text);
      }
    }
  }

  const removed = opts.prune ? stored.filter((t) => !seen.has(`${t.serverId}\0${t.toolName}`)).map((t) => t.id) : [];
  result.tools.updated = updates.length;

  // A renamed provider changes the embedded text of all its tools, including
  // tools of other owners and tools this input does not list.
  const skip = new Set([...updates.map((u) => u.id), ...removed]);
  for (const serverId of renamed) {
    for (const row of await repo.allToolsOfServer(serverId, owner)) {
      if (skip.has(row.id)) continue;
      const text = toolEmbeddingText({
        providerName: names.get(serverId)!,
        toolName: row.toolName,
        description: row.description,
      });
      if (textUnchanged(row, text, opts.model)) continue;
      updates.push({
        id: row.id,
        description: row.description,
        inputSchema: (row.inputSchema ?? null) as Record<string, unknown> | null,
        httpMethod: row.httpMethod,
        endpointTemplate: row.endpointTemplate,
        parameters: row.parameters,
        descriptionHash: descriptionHash(opts.model, text),
        clearEmbedding: true,
      });
      result.reembed++;
      texts.set(updates[updates.length - 1]!, text);
    }
  }

  return { result, inserts, updates, removed, texts };
}
