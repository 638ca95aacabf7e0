import type { PrismaClient } from './client';
import { mapPrismaError } from './errors';
import { newId } from './ids';

export interface ProjectRecord {
  id: string;
  orgId: string;
  name: string;
  createdAt: Date;
}

export class ProjectRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** A new project `proj_<random>` under an existing org (unknown org -> `not_found`). */
  async create(input: { orgId: string; name: string }): Promise<ProjectRecord> {
    try {
      return await this.prisma.project.create({
        data: { id: newId('proj'), orgId: input.orgId, name: input.name },
        select: { id: true, orgId: true, name: true, createdAt: true },
      });
    } catch (err) {
      throw mapPrismaError(err, `org ${input.orgId}`);
    }
  }

  /** Whether a project with this id exists. */
  async exists(id: string): Promise<boolean> {
    return (await this.prisma.project.count({ where: { id } })) > 0;
  }
}
