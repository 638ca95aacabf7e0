import { randomBytes } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * The WhatsApp Business Cloud API's send endpoint
 * (`POST /v{version}/{phone_number_id}/messages`): template and text
 * messages, `wamid.` ids, Graph API errors `{error: {message, type, code,
 * fbtrace_id}}`. The phone number ids the account owns come from the
 * config; any other id is Graph's "object does not exist".
 */

interface WhatsAppState {
  phoneNumberIds: string[];
  messages: Map<string, { to: string; type: string; template?: string }>;
}

function err(status: number, code: string, message: string): Reply {
  const type = status === 401 || status === 403 ? 'OAuthException' : 'GraphMethodException';
  const numeric = status === 401 ? 190 : status === 429 ? 4 : /^\d+$/.test(code) ? Number(code) : 100;
  return {
    status,
    body: { error: { message, type, code: numeric, fbtrace_id: randomBytes(8).toString('base64url') } },
  };
}

/** Built per configured prefix, since the account's phone number ids are config. */
export function whatsapp(phoneNumberIds: string[]): ProviderModel<WhatsAppState> {
  return {
    // The Cloud API has no idempotency header; the sandbox honours the common one.
    idempotencyHeader: 'idempotency-key',
    conflictStatus: 409,
    error: err,
    unauthorized: (status) =>
      err(
        status,
        status === 401 ? '190' : '10',
        status === 401
          ? 'Invalid OAuth access token - Cannot parse access token'
          : '(#10) Application does not have permission for this action',
      ),
    createState: () => ({ phoneNumberIds, messages: new Map() }),
    routes: [
      {
        name: 'send_message',
        method: 'POST',
        path: '/:version/:phone_number_id/messages',
        handle(ctx) {
          if (!/^v\d+(\.\d+)?$/.test(ctx.params.version ?? '')) return err(400, '2500', 'Unknown path components');
          const phoneId = ctx.params.phone_number_id ?? '';
          if (!ctx.state.phoneNumberIds.includes(phoneId)) {
            return err(
              400,
              '100',
              `Unsupported post request. Object with ID '${phoneId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
            );
          }
          const b = isObject(ctx.body) ? ctx.body : {};
          if (b.messaging_product !== 'whatsapp')
            return err(400, '100', '(#100) The parameter messaging_product is required.');
          const to = typeof b.to === 'string' ? b.to.replace(/\D/g, '') : '';
          if (to.length < 8 || to.length > 15) return err(400, '131009', '(#131009) Parameter value is not valid: to');
          let templateName: string | undefined;
          if (b.type === 'template') {
            const t = isObject(b.template) ? b.template : {};
            const lang = isObject(t.language) ? t.language : {};
            if (typeof t.name !== 'string' || !t.name)
              return err(400, '100', "(#100) Param template['name'] is required.");
            if (typeof lang.code !== 'string' || !lang.code)
              return err(400, '100', "(#100) Param template['language']['code'] is required.");
            templateName = t.name;
          } else if (b.type === 'text' || b.type === undefined) {
            const text = isObject(b.text) ? b.text : {};
            if (typeof text.body !== 'string' || !text.body)
              return err(400, '100', "(#100) Param text['body'] is required.");
          } else {
            return err(
              400,
              '100',
              `(#100) Param type must be one of {TEMPLATE, TEXT} in the sandbox, got ${String(b.type)}.`,
            );
          }
          const messageId = `wamid.${Buffer.from(`sandbox:${to}:${randomBytes(9).toString('hex')}`).toString('base64')}`;
          ctx.state.messages.set(messageId, {
            to,
            type: String(b.type ?? 'text'),
            ...(templateName ? { template: templateName } : {}),
          });
          ctx.created('messages');
          return {
            status: 200,
            body: {
              messaging_product: 'whatsapp',
              contacts: [{ input: b.to, wa_id: to }],
              messages: [{ id: messageId, ...(templateName ? { message_status: 'accepted' } : {}) }],
            },
          };
        },
      },
    ],
  };
}
