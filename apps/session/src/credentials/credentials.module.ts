import { Module, type DynamicModule } from '@nestjs/common';
import { CanaryController, KEYRING } from './canary.controller';
import { CanaryRepository } from './canary.repository';
import type { Keyring } from './keyring';

/** The credentials keyring (built from the config at boot) for every feature, and the canary check. */
@Module({})
export class CredentialsModule {
  static forKeyring(keyring: Keyring): DynamicModule {
    return {
      module: CredentialsModule,
      global: true,
      controllers: [CanaryController],
      providers: [{ provide: KEYRING, useValue: keyring }, CanaryRepository],
      exports: [KEYRING],
    };
  }
}
