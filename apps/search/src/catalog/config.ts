import { z } from 'zod';

/** Settings of the catalog routes, merged into SearchConfig. */
export const CATALOG_CONFIG_SHAPE = {
  /** Let `POST /v1/catalog/import` fetch URLs that resolve to loopback or private addresses (default false). */
  ROTA_CATALOG_ALLOW_PRIVATE_URLS: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
};
