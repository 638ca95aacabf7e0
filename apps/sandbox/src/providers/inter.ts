import { randomBytes, randomUUID } from 'node:crypto';
import { isObject, round2, today, type ProviderModel, type Reply } from './types';

/**
 * Banco Inter's Banking API v2 (empresas), the account side: Pix payments
 * out of the account to a key or a copy-and-paste code, their status and
 * history, the balance and the statement. Tokens come from
 * `POST /oauth/v2/token` (client credentials, the secret in the form).
 * Values are reais as decimals (statement values as strings), payments are
 * identified by a `codigoSolicitacao` UUID, `x-id-idempotente` is the
 * provider's idempotency header, and errors are
 * `{title, detail, timestamp, violacoes: [{razao, propriedade, valor}]}`.
 *
 * The live API also requires a client certificate (mutual TLS); the sandbox
 * serves it over plain HTTP with the OAuth2 token alone.
 */

interface PixPayment {
  codigoSolicitacao: string;
  valor: number;
  descricao: string | null;
  chave: string | null;
  pixCopiaECola: string | null;
  status: 'EM_PROCESSAMENTO' | 'PAGO' | 'AGENDADO';
  endToEnd: string;
  dataHoraSolicitacao: string;
  dataHoraMovimento: string | null;
  dataPagamento: string;
}

interface StatementLine {
  dataEntrada: string;
  tipoTransacao: string;
  tipoOperacao: 'C' | 'D';
  valor: string;
  titulo: string;
  descricao: string;
}

interface InterState {
  disponivel: number;
  payments: Map<string, PixPayment>;
  statement: StatementLine[];
}

/** The current account number every sandbox token acts on. */
export const INTER_SANDBOX_ACCOUNT = '12345678';

/** What a fresh sandbox account holds, in reais. */
export const INTER_SANDBOX_OPENING_BALANCE = 50_000;

function err(
  status: number,
  title: string,
  detail: string,
  violacoes: { razao: string; propriedade: string; valor?: string }[] = [],
): Reply {
  return { status, body: { title, detail, timestamp: new Date().toISOString(), violacoes } };
}

function invalid(propriedade: string, razao: string, valor?: unknown): Reply {
  return err(400, 'Requisição inválida', 'Um ou mais campos são inválidos.', [
    { razao, propriedade, ...(valor === undefined ? {} : { valor: String(valor) }) },
  ]);
}

/** A Pix key Inter accepts: CPF, CNPJ, e-mail, +55 phone or a random key. */
function validKey(key: string): boolean {
  return (
    /^\d{11}$/.test(key) ||
    /^\d{14}$/.test(key) ||
    /^\+55\d{10,11}$/.test(key) ||
    /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(key) ||
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)
  );
}

/** The fixed amount (field 54) of an EMV Pix code, when it has one. */
function emvAmount(code: string): number | undefined {
  let i = 0;
  while (i + 4 <= code.length) {
    const id = code.slice(i, i + 2);
    const len = Number(code.slice(i + 2, i + 4));
    if (!Number.isInteger(len)) return undefined;
    if (id === '54') return Number(code.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return undefined;
}

/** Settles a payment accepted for today: Inter sends the Pix within seconds. */
function settle(p: PixPayment): void {
  if (p.status !== 'EM_PROCESSAMENTO') return;
  p.status = 'PAGO';
  p.dataHoraMovimento = new Date().toISOString();
}

function history(p: PixPayment): { status: string; dataHoraEvento: string }[] {
  const events = [{ status: 'TRANSACAO_CRIADA', dataHoraEvento: p.dataHoraSolicitacao }];
  if (p.status === 'AGENDADO')
    return [...events, { status: 'TRANSACAO_AGENDADA', dataHoraEvento: p.dataHoraSolicitacao }];
  events.push({ status: 'TRANSACAO_APROVADA', dataHoraEvento: p.dataHoraSolicitacao });
  if (p.status === 'PAGO') {
    events.push(
      { status: 'PIX_ENVIADO', dataHoraEvento: p.dataHoraMovimento! },
      { status: 'PIX_PAGO', dataHoraEvento: p.dataHoraMovimento! },
    );
  }
  return events;
}

export const inter: ProviderModel<InterState> = {
  idempotencyHeader: 'x-id-idempotente',
  conflictStatus: 409,
  oauthTokenPath: '/oauth/v2/token',
  error: (status, _code, message) => err(status, status >= 500 ? 'Erro interno' : 'Erro na requisição', message),
  unauthorized: (status) =>
    status === 401
      ? err(401, 'Não autorizado', 'Token de acesso inválido ou expirado.')
      : err(403, 'Acesso negado', 'O escopo do token não permite esta operação.'),
  createState: () => ({
    disponivel: INTER_SANDBOX_OPENING_BALANCE,
    payments: new Map(),
    statement: [
      {
        dataEntrada: today(),
        tipoTransacao: 'DEPOSITO',
        tipoOperacao: 'C',
        valor: INTER_SANDBOX_OPENING_BALANCE.toFixed(2),
        titulo: 'Depósito',
        descricao: 'Saldo inicial da conta sandbox',
      },
    ],
  }),
  routes: [
    {
      // A Pix to a key or to a copy-and-paste code. The amount leaves the
      // balance when the payment is accepted; a future dataPagamento schedules it.
      name: 'send_pix',
      method: 'POST',
      path: '/banking/v2/pix',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.valor !== 'number' || !(b.valor >= 0.01))
          return invalid('valor', 'deve ser maior ou igual a 0.01', b.valor);
        const valor = round2(b.valor);
        const dest = isObject(b.destinatario) ? b.destinatario : undefined;
        if (!dest) return invalid('destinatario', 'não deve ser nulo');
        let chave: string | null = null;
        let copiaECola: string | null = null;
        if (dest.tipo === 'CHAVE') {
          if (typeof dest.chave !== 'string' || !validKey(dest.chave))
            return invalid('destinatario.chave', 'chave Pix inválida', dest.chave);
          chave = dest.chave;
        } else if (dest.tipo === 'PIX_COPIA_E_COLA') {
          if (typeof dest.pixCopiaECola !== 'string' || !dest.pixCopiaECola.startsWith('000201'))
            return invalid('destinatario.pixCopiaECola', 'código Pix copia e cola inválido');
          const fixed = emvAmount(dest.pixCopiaECola);
          if (fixed !== undefined && round2(fixed) !== valor)
            return invalid('valor', 'difere do valor do código Pix', valor);
          copiaECola = dest.pixCopiaECola;
        } else if (dest.tipo === 'DADOS_BANCARIOS') {
          return err(
            422,
            'Operação não suportada',
            'Pagamento por dados bancários não está disponível no ambiente sandbox.',
          );
        } else {
          return invalid('destinatario.tipo', 'deve ser CHAVE, DADOS_BANCARIOS ou PIX_COPIA_E_COLA', dest.tipo);
        }
        const dataPagamento = typeof b.dataPagamento === 'string' ? b.dataPagamento : today();
        if (!/^\d{4}-\d{2}-\d{2}$/.test(dataPagamento) || dataPagamento < today())
          return invalid('dataPagamento', 'deve ser hoje ou uma data futura (AAAA-MM-DD)', dataPagamento);
        if (valor > ctx.state.disponivel)
          return err(422, 'Saldo insuficiente', 'Saldo insuficiente para realizar o pagamento.');
        const scheduled = dataPagamento > today();
        const now = new Date().toISOString();
        const payment: PixPayment = {
          codigoSolicitacao: randomUUID(),
          valor,
          descricao: typeof b.descricao === 'string' ? b.descricao : null,
          chave,
          pixCopiaECola: copiaECola,
          status: scheduled ? 'AGENDADO' : 'EM_PROCESSAMENTO',
          endToEnd: `E00416968${today().replace(/-/g, '')}${randomBytes(6).toString('hex')}`.slice(0, 32),
          dataHoraSolicitacao: now,
          dataHoraMovimento: null,
          dataPagamento,
        };
        ctx.state.payments.set(payment.codigoSolicitacao, payment);
        if (!scheduled) {
          ctx.state.disponivel = round2(ctx.state.disponivel - valor);
          ctx.state.statement.push({
            dataEntrada: today(),
            tipoTransacao: 'PIX',
            tipoOperacao: 'D',
            valor: valor.toFixed(2),
            titulo: 'Pix enviado',
            descricao: `PIX ENVIADO - ${chave ?? 'Cp :'} ${payment.descricao ?? ''}`.trim(),
          });
        }
        ctx.created('transfers');
        return {
          status: 200,
          body: {
            tipoRetorno: scheduled ? 'AGENDADO' : 'PROCESSADO',
            codigoSolicitacao: payment.codigoSolicitacao,
            dataPagamento,
            dataOperacao: today(),
          },
        };
      },
    },
    {
      name: 'get_pix_payment',
      method: 'GET',
      path: '/banking/v2/pix/:codigoSolicitacao',
      handle(ctx) {
        const p = ctx.state.payments.get(ctx.params.codigoSolicitacao ?? '');
        if (!p)
          return err(404, 'Não encontrado', 'Pagamento Pix não encontrado para o código de solicitação informado.');
        settle(p);
        return {
          status: 200,
          body: {
            transacaoPix: {
              contaCorrente: INTER_SANDBOX_ACCOUNT,
              recebedor: { nome: 'Favorecido Sandbox', codigoBanco: '001', cpfCnpj: '***.456.789-**' },
              erros: [],
              endToEnd: p.endToEnd,
              valor: p.valor,
              status: p.status,
              dataHoraMovimento: p.dataHoraMovimento,
              dataHoraSolicitacao: p.dataHoraSolicitacao,
              chave: p.chave,
              codigoSolicitacao: p.codigoSolicitacao,
            },
            historico: history(p),
          },
        };
      },
    },
    {
      name: 'get_balance',
      method: 'GET',
      path: '/banking/v2/saldo',
      handle(ctx) {
        return {
          status: 200,
          body: {
            bloqueadoCheque: 0,
            disponivel: ctx.state.disponivel,
            bloqueadoJudicialmente: 0,
            bloqueadoAdministrativo: 0,
            limite: 0,
          },
        };
      },
    },
    {
      name: 'get_statement',
      method: 'GET',
      path: '/banking/v2/extrato',
      handle(ctx) {
        const from = ctx.query.get('dataInicio');
        const to = ctx.query.get('dataFim');
        const date = /^\d{4}-\d{2}-\d{2}$/;
        if (!from || !date.test(from))
          return invalid('dataInicio', 'deve ser uma data (AAAA-MM-DD)', from ?? undefined);
        if (!to || !date.test(to)) return invalid('dataFim', 'deve ser uma data (AAAA-MM-DD)', to ?? undefined);
        if (to < from) return invalid('dataFim', 'deve ser igual ou posterior a dataInicio', to);
        return {
          status: 200,
          body: { transacoes: ctx.state.statement.filter((l) => l.dataEntrada >= from && l.dataEntrada <= to) },
        };
      },
    },
  ],
};
