import { Module, type DynamicModule } from '@nestjs/common';
import { warmUp } from '@rota/lexicon';
import { createPrisma } from '@rota/db';
import { InfraModule, loadConfig } from '@rota/service-kit';
import { SearchConfig } from './config';
import { CatalogModule } from './catalog/catalog.module';
import { DiscoverModule } from './discover/discover.module';
import { llmFromEnv } from './tools-search/tools-search.service';
import { PingController } from './ping.controller';
import { INTENT_CLASSIFIER, ToolsSearchController } from './tools-search/tools-search.controller';

@Module({})
export class SearchModule {
  static forConfig(config: SearchConfig = loadConfig(SearchConfig)): DynamicModule {
    // Load stemmers and vocabulary at boot, not on the first request.
    warmUp();
    return {
      module: SearchModule,
      imports: [
        // Prisma serves only the catalog routes here; discover reads through its own tuned pool.
        InfraModule.forRoot({ app: 'search', config, prisma: (url) => createPrisma(url, { poolMax: 5 }) }),
        DiscoverModule.forConfig(config),
        CatalogModule.forConfig(config),
      ],
      controllers: [PingController, ToolsSearchController],
      providers: [
        {
          provide: INTENT_CLASSIFIER,
          // An empty key counts as no key: no model, no network call.
          useFactory: () =>
            llmFromEnv(
              {
                ANTHROPIC_API_KEY: config.ANTHROPIC_API_KEY,
                ANTHROPIC_BASE_URL: config.ANTHROPIC_BASE_URL || undefined,
              },
              {
                model: config.ROTA_TOOL_SEARCH_MODEL,
                timeoutMs: config.ROTA_TOOL_SEARCH_TIMEOUT_MS,
              },
            ),
        },
      ],
    };
  }
}
