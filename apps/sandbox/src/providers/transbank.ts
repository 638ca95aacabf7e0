import { randomBytes } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * Transbank Webpay Plus REST v1.2 (Chile): `POST .../transactions` opens a
 * payment for a `buy_order` (at most 26 characters) and answers the token
 * and the form URL the buyer is sent to (the token goes in the `token_ws`
 * field); `GET .../transactions/{token}` reads its status. Amounts are
 * whole pesos. Credentials are the `Tbk-Api-Key-Id` and
 * `Tbk-Api-Key-Secret` headers; errors are `{error_message}`. Webpay reads
 * no idempotency header; an opened transaction moves no money until the
 * buyer pays and the merchant commits it.
 */

interface Tx {
  token: string;
  buy_order: string;
  session_id: string;
  amount: number;
  return_url: string;
  status: 'INITIALIZED' | 'AUTHORIZED' | 'FAILED';
  created: string;
}

interface TbkState {
  byToken: Map<string, Tx>;
}

function err(status: number, message: string): Reply {
  return { status, body: { error_message: message } };
}

export const transbank: ProviderModel<TbkState> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 422,
  error: (status, _code, message) => err(status, message),
  unauthorized: (status) => err(status, 'Not Authorized'),
  createState: () => ({ byToken: new Map() }),
  markPaid(state, token) {
    const tx = state.byToken.get(token);
    if (!tx) return false;
    tx.status = 'AUTHORIZED';
    return true;
  },
  routes: [
    {
      name: 'webpay_create_transaction',
      method: 'POST',
      path: '/rswebpaytransaction/api/webpay/v1.2/transactions',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.buy_order !== 'string' || b.buy_order.length === 0) return err(422, 'buy_order is required!');
        if (b.buy_order.length > 26) return err(422, 'buy_order is too long (maximum is 26 characters)');
        if (typeof b.session_id !== 'string' || b.session_id.length === 0 || b.session_id.length > 61)
          return err(422, 'session_id is required!');
        if (typeof b.amount !== 'number' || !Number.isInteger(b.amount))
          return err(422, 'amount is not a valid number');
        if (b.amount < 50) return err(422, 'Invalid value for parameter: amount (the minimum amount is 50 CLP)');
        if (typeof b.return_url !== 'string' || !/^https?:\/\//.test(b.return_url))
          return err(422, 'return_url is required!');
        const tx: Tx = {
          token: `01ab${randomBytes(30).toString('hex')}`,
          buy_order: b.buy_order,
          session_id: b.session_id,
          amount: b.amount,
          return_url: b.return_url,
          status: 'INITIALIZED',
          created: new Date().toISOString(),
        };
        ctx.state.byToken.set(tx.token, tx);
        ctx.created('charges');
        return { status: 200, body: { token: tx.token, url: `${ctx.baseUrl}/webpayserver/initTransaction` } };
      },
    },
    {
      name: 'webpay_get_status',
      method: 'GET',
      path: '/rswebpaytransaction/api/webpay/v1.2/transactions/:token',
      handle(ctx) {
        const tx = ctx.state.byToken.get(ctx.params.token!);
        if (!tx) return err(422, 'Invalid value for parameter: token');
        return {
          status: 200,
          body: {
            vci: tx.status === 'AUTHORIZED' ? 'TSY' : null,
            amount: tx.amount,
            status: tx.status,
            buy_order: tx.buy_order,
            session_id: tx.session_id,
            accounting_date: tx.created.slice(5, 10).replace('-', ''),
            transaction_date: tx.created,
            response_code: tx.status === 'AUTHORIZED' ? 0 : null,
          },
        };
      },
    },
  ],
};
