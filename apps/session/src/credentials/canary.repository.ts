import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient } from '@rota/db';
import { PRISMA } from '@rota/service-kit';

/** The credential store's canaries and the key ids stored credentials were sealed with. */
@Injectable()
export class CanaryRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The stored canary of `keyId`, after storing `candidate` if there was none (the first check of a key). */
  async canary(keyId: string, candidate: Buffer): Promise<Buffer> {
    const [row] = await this.prisma.$queryRaw<Array<{ ciphertext: Uint8Array }>>(Prisma.sql`
      WITH put AS (
        INSERT INTO credentials_canaries (key_id, ciphertext) VALUES (${keyId}, ${candidate})
        ON CONFLICT (key_id) DO NOTHING
        RETURNING ciphertext)
      SELECT ciphertext FROM put
      UNION ALL
      SELECT ciphertext FROM credentials_canaries WHERE key_id = ${keyId}
      LIMIT 1`);
    if (row) return Buffer.from(row.ciphertext);
    // A peer stored it while this statement ran (its snapshot predates that row): read it now.
    const [peer] = await this.prisma.$queryRaw<Array<{ ciphertext: Uint8Array }>>(Prisma.sql`
      SELECT ciphertext FROM credentials_canaries WHERE key_id = ${keyId}`);
    return Buffer.from(peer!.ciphertext);
  }

  /** Every key id that sealed a stored credential. */
  async sealingKeyIds(): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ key_id: string }>>(Prisma.sql`
      SELECT DISTINCT credentials_key_id AS key_id FROM connections WHERE credentials_key_id IS NOT NULL ORDER BY 1`);
    return rows.map((r) => r.key_id);
  }
}
