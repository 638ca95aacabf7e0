import { randomBytes } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CredentialsCheckCommand, type CredentialsCheckResult } from '@rota/contracts';
import { ZodPipe } from '@rota/service-kit';
import { CanaryRepository } from './canary.repository';
import { KeyringError, type Keyring } from './keyring';

/** Injection token of the session service's keyring. */
export const KEYRING = Symbol('KEYRING');

/** Bound to no connection row, so a canary blob cannot pass for credentials (see keyring.ts). */
const CANARY_AAD = 'rota:credentials-canary';
const CANARY_TEXT = 'rota credentials canary';

/**
 * The health rollup's credential-store check (`session.credentials.check`),
 * answered by the process that seals and opens credentials, with its own
 * keyring:
 * 1. a fresh canary sealed with the current key opens again;
 * 2. the canary stored the first time this key id was checked still opens,
 *    so a key replaced under the same id is caught before a call fails;
 * 3. every key id stored credentials were sealed with is in the keyring.
 * Never returns key material or credentials.
 */
@Controller()
export class CanaryController {
  constructor(
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly repo: CanaryRepository,
  ) {}

  @MessagePattern('session.credentials.check')
  async check(
    @Payload(new ZodPipe(CredentialsCheckCommand)) _cmd: CredentialsCheckCommand,
  ): Promise<CredentialsCheckResult> {
    const keyId = this.keyring.currentKeyId;
    const fail = (message: string): CredentialsCheckResult => ({ ok: false, key_id: keyId, message });
    const plain = Buffer.from(`${CANARY_TEXT} ${randomBytes(8).toString('hex')}`, 'utf8');
    try {
      const sealed = this.keyring.seal(plain, CANARY_AAD);
      if (!this.keyring.open(sealed.ciphertext, sealed.keyId, CANARY_AAD).equals(plain))
        return fail('A canary sealed with the current key opened to different bytes.');
      const stored = await this.repo.canary(keyId, sealed.ciphertext);
      if (!this.keyring.open(stored, keyId, CANARY_AAD).toString('utf8').startsWith(CANARY_TEXT))
        return fail('The stored canary opened to unexpected bytes.');
    } catch (err) {
      if (err instanceof KeyringError) {
        return fail(
          `The credentials key "${keyId}" is not the key that sealed this deployment's canary: stored credentials cannot be opened.`,
        );
      }
      throw err;
    }
    const missing = (await this.repo.sealingKeyIds()).filter((id) => !this.keyring.has(id));
    if (missing.length > 0)
      return fail(`Stored credentials were sealed with keys the keyring does not hold: ${missing.join(', ')}.`);
    return { ok: true, key_id: keyId };
  }
}
