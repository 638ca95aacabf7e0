import { randomUUID } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Zenvia API v2 WhatsApp channel: `POST /v2/channels/whatsapp/messages`
 * sends free text (inside the 24-hour window) or an approved template from
 * a sender the account owns (`from`) to a phone number with country code
 * (`to`, digits only). The credential is the `X-API-TOKEN` header; errors
 * are `{code, message, details: [{code, path, message}]}`.
 */

interface ZenviaState {
  sent: number;
}

function err(
  status: number,
  code: string,
  message: string,
  details: { code: string; path: string; message: string }[] = [],
): Reply {
  return { status, body: { code, message, details } };
}

export const zenvia: ProviderModel<ZenviaState> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, code, message) => err(status, code.toUpperCase(), message),
  unauthorized: (status) => err(status, 'AUTHENTICATION_ERROR', 'No authorization token was found'),
  createState: () => ({ sent: 0 }),
  routes: [
    {
      name: 'send_whatsapp',
      method: 'POST',
      path: '/v2/channels/whatsapp/messages',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.from !== 'string' || !b.from)
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'REQUIRED', path: 'from', message: 'from is required' },
          ]);
        if (typeof b.to !== 'string' || !/^\d{10,15}$/.test(b.to))
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'INVALID', path: 'to', message: 'The recipient phone number is not valid' },
          ]);
        const contents = Array.isArray(b.contents) ? b.contents : [];
        const first = contents[0];
        if (!isObject(first))
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'REQUIRED', path: 'contents', message: 'contents is required' },
          ]);
        if (first.type === 'text' && (typeof first.text !== 'string' || !first.text))
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'REQUIRED', path: 'contents[0].text', message: 'text is required' },
          ]);
        if (first.type === 'template' && (typeof first.templateId !== 'string' || !first.templateId))
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'REQUIRED', path: 'contents[0].templateId', message: 'templateId is required' },
          ]);
        if (first.type !== 'text' && first.type !== 'template' && first.type !== 'file')
          return err(400, 'VALIDATION_ERROR', 'Validation error', [
            { code: 'INVALID', path: 'contents[0].type', message: 'The content type is not supported' },
          ]);
        ctx.state.sent++;
        ctx.created('messages');
        return {
          status: 200,
          body: {
            id: randomUUID(),
            from: b.from,
            to: b.to,
            direction: 'OUT',
            channel: 'whatsapp',
            contents,
            timestamp: new Date().toISOString(),
          },
        };
      },
    },
  ],
};
