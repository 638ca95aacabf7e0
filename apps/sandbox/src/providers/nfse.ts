import { createHash } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * A municipal service invoice (NFS-e) in Focus NFe's v2 shape: the caller
 * names each invoice with its own `ref` (query string), the issue is
 * accepted as `processando_autorizacao` and the city hall's authorisation
 * (number, verification code, links) shows up on the next read, as it does
 * for real a few seconds later. Errors are `{codigo, mensagem}`; `ref` is
 * the provider's own idempotency key.
 */

interface Invoice {
  cnpj_prestador: string;
  ref: string;
  numero_rps: string;
  serie_rps: string;
  status: 'processando_autorizacao' | 'autorizado' | 'cancelado';
  numero?: string;
  codigo_verificacao?: string;
  data_emissao?: string;
  url?: string;
  url_danfse?: string;
  caminho_xml_nota_fiscal?: string;
  valor_servicos: number;
}

interface NfseState {
  nextNumber: number;
  invoices: Map<string, Invoice>;
}

function err(status: number, codigo: string, mensagem: string): Reply {
  return { status, body: { codigo, mensagem } };
}

function digits(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\D/g, '') : '';
}

function refOf(query: URLSearchParams): string | undefined {
  return query.get('ref') ?? undefined;
}

/** The city hall's side: authorises a pending invoice once, when it is first read. */
function authorise(state: NfseState, inv: Invoice, baseUrl: string): void {
  if (inv.status !== 'processando_autorizacao') return;
  inv.status = 'autorizado';
  inv.numero = String(state.nextNumber++);
  inv.codigo_verificacao = createHash('sha256')
    .update(`${inv.ref}:${inv.numero}`)
    .digest('hex')
    .slice(0, 8)
    .toUpperCase();
  inv.data_emissao = new Date().toISOString();
  inv.url = `${baseUrl}/notas_fiscais_servico/${encodeURIComponent(inv.ref)}`;
  inv.url_danfse = `${baseUrl}/arquivos/nfse/${encodeURIComponent(inv.ref)}.pdf`;
  inv.caminho_xml_nota_fiscal = `/arquivos/nfse/${encodeURIComponent(inv.ref)}.xml`;
}

export const nfse: ProviderModel<NfseState> = {
  idempotencyHeader: 'idempotency-key',
  // Focus answers a reused ref with 422 rather than 409.
  conflictStatus: 422,
  error: err,
  unauthorized: (status) =>
    err(status, 'permissao_negada', 'Token de acesso inválido ou sem permissão para este recurso'),
  createState: () => ({ nextNumber: 1, invoices: new Map() }),
  routes: [
    {
      name: 'issue_nfse',
      method: 'POST',
      path: '/v2/nfse',
      naturalKey: ({ query }) => refOf(query),
      handle(ctx) {
        const ref = refOf(ctx.query);
        if (!ref || !/^[A-Za-z0-9_-]{1,50}$/.test(ref))
          return err(400, 'requisicao_invalida', 'Parâmetro ref não informado ou inválido');
        if (ctx.state.invoices.has(ref)) return err(422, 'nfe_ja_existe', `Já existe uma nota com a referência ${ref}`);
        const b = isObject(ctx.body) ? ctx.body : {};
        const prestador = isObject(b.prestador) ? b.prestador : {};
        const tomador = isObject(b.tomador) ? b.tomador : {};
        const servico = isObject(b.servico) ? b.servico : {};
        const cnpj = digits(prestador.cnpj);
        if (cnpj.length !== 14) return err(422, 'requisicao_invalida', 'prestador.cnpj deve ter 14 dígitos');
        if (digits(tomador.cpf).length !== 11 && digits(tomador.cnpj).length !== 14)
          return err(422, 'requisicao_invalida', 'tomador: informe cpf ou cnpj');
        if (typeof servico.valor_servicos !== 'number' || !(servico.valor_servicos > 0))
          return err(422, 'requisicao_invalida', 'servico.valor_servicos deve ser maior que zero');
        if (typeof servico.discriminacao !== 'string' || !servico.discriminacao)
          return err(422, 'requisicao_invalida', 'servico.discriminacao não informada');
        const invoice: Invoice = {
          cnpj_prestador: cnpj,
          ref,
          numero_rps: String(ctx.state.invoices.size + 1),
          serie_rps: '1',
          status: 'processando_autorizacao',
          valor_servicos: servico.valor_servicos,
        };
        ctx.state.invoices.set(ref, invoice);
        ctx.created('invoices');
        const { valor_servicos: _v, ...answer } = invoice;
        return { status: 202, body: answer };
      },
    },
    {
      name: 'get_nfse',
      method: 'GET',
      path: '/v2/nfse/:ref',
      handle(ctx) {
        const inv = ctx.state.invoices.get(ctx.params.ref ?? '');
        if (!inv) return err(404, 'nao_encontrado', 'Nota fiscal não encontrada');
        authorise(ctx.state, inv, ctx.baseUrl);
        return { status: 200, body: inv };
      },
    },
    {
      name: 'cancel_nfse',
      method: 'DELETE',
      path: '/v2/nfse/:ref',
      handle(ctx) {
        const inv = ctx.state.invoices.get(ctx.params.ref ?? '');
        if (!inv) return err(404, 'nao_encontrado', 'Nota fiscal não encontrada');
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.justificativa !== 'string' || b.justificativa.length < 15)
          return err(422, 'requisicao_invalida', 'justificativa deve ter ao menos 15 caracteres');
        authorise(ctx.state, inv, ctx.baseUrl);
        inv.status = 'cancelado';
        return { status: 200, body: { status: 'cancelado' } };
      },
    },
  ],
};
