import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/**
 * Tools a project may call: its own, and the global ones of every provider it
 * has not shadowed with a provider of its own.
 */
const callableBy = (projectId: string): Prisma.Sql =>
  Prisma.sql`(project_id = ${projectId} OR (project_id IS NULL AND NOT EXISTS (SELECT 1 FROM providers o WHERE o.id = mcp_tools.server_id AND o.owner = ${projectId})))`;

export interface CatalogTool {
  serverId: string;
  toolName: string;
  description: string;
  inputSchema: unknown;
}

/** Reads of the catalog's tools as one project may call them (execute resolves names with them, mocks too). */
@Injectable()
export class ToolsRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /**
   * A catalog tool callable by this project: a global tool of a provider the
   * project does not shadow with its own, or one the project registered
   * itself (which wins over a global one of the same name). Tools of other
   * projects are never found.
   */
  async findTool(serverId: string, toolName: string, projectId: string): Promise<CatalogTool | null> {
    const rows = await this.prisma.$queryRaw<
      Array<{ server_id: string; tool_name: string; description: string; input_schema: unknown }>
    >(Prisma.sql`
      SELECT server_id, tool_name, description, input_schema FROM mcp_tools
      WHERE server_id = ${serverId} AND tool_name = ${toolName} AND ${callableBy(projectId)}
      ORDER BY project_id NULLS LAST LIMIT 1`);
    const r = rows[0];
    return r
      ? { serverId: r.server_id, toolName: r.tool_name, description: r.description, inputSchema: r.input_schema }
      : null;
  }

  /** Every catalog tool of these providers callable by the project, by provider then name. */
  async listTools(serverIds: readonly string[], projectId: string): Promise<CatalogTool[]> {
    if (serverIds.length === 0) return [];
    const rows = await this.prisma.$queryRaw<
      Array<{ server_id: string; tool_name: string; description: string }>
    >(Prisma.sql`
      SELECT DISTINCT ON (server_id, tool_name) server_id, tool_name, description FROM mcp_tools
      WHERE server_id IN (${Prisma.join([...serverIds])}) AND ${callableBy(projectId)}
      ORDER BY server_id, tool_name, project_id NULLS LAST`);
    return rows.map((r) => ({
      serverId: r.server_id,
      toolName: r.tool_name,
      description: r.description,
      inputSchema: null,
    }));
  }
}
