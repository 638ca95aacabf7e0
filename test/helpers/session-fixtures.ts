import type { PrismaClient } from '@rota/db';

/**
 * Providers and tools the session tests need, inserted by the tests
 * themselves so they do not depend on the demo catalog. Ids start with `zz`
 * so they can never collide with a real catalog entry.
 */
export const PROVIDERS = [
  {
    id: 'zzpay',
    name: 'ZZ Pay',
    description: 'Pix and boleto payments for Brazilian merchants',
    category: 'payments',
    country: 'BR',
    authType: 'api_key',
    selfServeAuth: true,
  },
  {
    id: 'zzcert',
    name: 'ZZ Cert Bank',
    description: 'Bank transfers behind a client certificate',
    category: 'banking',
    country: 'BR',
    authType: 'certificate',
    selfServeAuth: false,
  },
  {
    id: 'zzopen',
    name: 'ZZ Open Post',
    description: 'Postal code and shipping quotes, no account needed',
    category: 'logistics',
    country: 'BR',
    authType: 'none',
    selfServeAuth: true,
  },
  {
    id: 'zzmsg',
    name: 'ZZ Messages',
    description: 'WhatsApp and SMS messages',
    category: 'communication',
    country: 'BR',
    authType: 'api_key',
    selfServeAuth: true,
  },
] as const;

/** `zzpay/create_payment`: an input schema with every kind of field coercion handles. */
export const CREATE_PAYMENT_SCHEMA = {
  type: 'object',
  properties: {
    amount: { type: 'integer', minimum: 1 },
    capture: { type: 'boolean' },
    method: { type: 'string', enum: ['pix', 'boleto'] },
    installments: { type: 'number' },
    note: { type: 'string' },
  },
  required: ['amount'],
};

export async function insertProviders(prisma: PrismaClient, otherProjectId: string) {
  for (const p of PROVIDERS) {
    await prisma.provider.upsert({
      where: { id_owner: { id: p.id, owner: '' } },
      // zzpay says how it is called (catalog format v2) but its live address is
      // loopback, which live calls never reach: a raw tool call is written
      // down and refused before anything leaves the process.
      create:
        p.id === 'zzpay'
          ? {
              ...p,
              countries: [p.country],
              baseUrls: { live: 'http://127.0.0.1:9' },
              http: { auth: { type: 'api_key', in: 'header', name: 'x-api-key', prefix: '', credential: 'api_key' } },
            }
          : { ...p, countries: [p.country], baseUrls: { live: `https://${p.id}.invalid` } },
      update: {},
    });
  }
  const tool = (
    serverId: string,
    toolName: string,
    description: string,
    inputSchema: object | null = null,
    projectId: string | null = null,
  ) =>
    prisma.mcpTool.create({
      data: {
        serverId,
        toolName,
        description,
        inputSchema: inputSchema ?? undefined,
        projectId,
        descriptionHash: `${serverId}/${toolName}/${projectId}`,
        httpMethod: 'POST',
        endpointTemplate: `/${toolName}`,
      },
    });
  await tool('zzpay', 'create_payment', 'Create a Pix or boleto payment', CREATE_PAYMENT_SCHEMA);
  await tool('zzpay', 'get_payment', 'Read a payment by id');
  await tool('zzmsg', 'send_whatsapp', 'Send a WhatsApp message');
  await tool('zzopen', 'quote_shipping', 'Quote a parcel by postal code');
  // A tool another project registered for itself: never callable from elsewhere.
  await tool('zzpay', 'private_refund', 'Refund through a private integration', null, otherProjectId);
}

/** A second org and project, for cross-tenant checks. */
export async function insertOtherProject(prisma: PrismaClient): Promise<string> {
  await prisma.org.upsert({ where: { id: 'org_other' }, create: { id: 'org_other', name: 'Other org' }, update: {} });
  await prisma.project.upsert({
    where: { id: 'proj_other' },
    create: { id: 'proj_other', orgId: 'org_other', name: 'Other project' },
    update: {},
  });
  return 'proj_other';
}
