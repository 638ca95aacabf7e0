import { randomUUID } from 'node:crypto';
import { isObject, type ProviderModel, type Reply } from './types';

/**
 * idwall's reports API v2 (relatórios): a report runs a matrix (matriz, a
 * set of checks the customer configures in idwall) over a CPF or a CNPJ.
 * Creating one answers only its number; the read shows the verdict
 * (`CONCLUIDO` with `resultado` `VALID` or `INVALID`, or `PENDENTE` while a
 * person reviews it), the validations that ran and, for scoring matrices, a
 * score from 0 to 1000. Answers are `{result, status_code}`, errors
 * `{error, message, status_code}`.
 *
 * The sandbox's verdicts are fixed by the document number (see
 * IDWALL_SANDBOX_DOCUMENTS): a bad check digit is always INVALID.
 */

type Kind = 'identity' | 'document' | 'risk' | 'sanctions' | 'onboarding' | 'business';

/** The matrices this sandbox account has configured, by name. */
export const IDWALL_MATRICES: Readonly<Record<string, Kind>> = {
  consultaPessoaDefault: 'identity',
  documentoscopiaPessoa: 'document',
  scoreRiscoPessoa: 'risk',
  pepSancoesPessoa: 'sanctions',
  onboardingPessoa: 'onboarding',
  onboardingEmpresa: 'business',
};

/** Documents with a fixed story; any other well-formed number is a regular person or company. */
export const IDWALL_SANDBOX_DOCUMENTS = {
  regularCpf: '52998224725',
  sanctionedCpf: '11144477735',
  pepCpf: '39053344705',
  suspendedCpf: '98765432100',
  activeCnpj: '11222333000181',
  closedCnpj: '33445566000186',
} as const;

interface Validation {
  regra: string;
  nome: string;
  descricao: string;
  resultado: 'VALID' | 'INVALID' | 'PENDENTE';
  mensagem: string;
}

interface Report {
  numero: string;
  matriz: string;
  status: 'CONCLUIDO' | 'PENDENTE';
  resultado: 'VALID' | 'INVALID' | null;
  mensagem: string;
  nome: string | null;
  documento: string;
  score?: number;
  validacoes: Validation[];
  criado_em: string;
  atualizado_em: string;
}

interface IdwallState {
  reports: Map<string, Report>;
}

function err(status: number, message: string): Reply {
  const error =
    status === 400
      ? 'Bad Request'
      : status === 404
        ? 'Not Found'
        : status === 401
          ? 'Unauthorized'
          : status === 403
            ? 'Forbidden'
            : 'Error';
  return { status, body: { error, message, status_code: status } };
}

function checkDigits(base: number[], weights: number[][], rule: (sum: number) => number): number[] {
  const d = [...base];
  for (const w of weights) d.push(rule(w.reduce((s, x, i) => s + x * d[i]!, 0)));
  return d;
}

export function validCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const d = cpf.split('').map(Number);
  const weights = [
    [10, 9, 8, 7, 6, 5, 4, 3, 2],
    [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
  ];
  return checkDigits(d.slice(0, 9), weights, (s) => ((s * 10) % 11) % 10).join('') === cpf;
}

export function validCnpj(cnpj: string): boolean {
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const d = cnpj.split('').map(Number);
  const weights = [
    [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
    [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  ];
  return checkDigits(d.slice(0, 12), weights, (s) => (s % 11 < 2 ? 0 : 11 - (s % 11))).join('') === cnpj;
}

const v = (regra: string, nome: string, descricao: string, ok: boolean | 'review', mensagem: string): Validation => ({
  regra,
  nome,
  descricao,
  resultado: ok === 'review' ? 'PENDENTE' : ok ? 'VALID' : 'INVALID',
  mensagem,
});

/** The validations a matrix runs over a document, as the sandbox's fixed world answers them. */
function validationsFor(kind: Kind, doc: string): { validacoes: Validation[]; score?: number } {
  const D = IDWALL_SANDBOX_DOCUMENTS;
  if (kind === 'business') {
    const ok = validCnpj(doc);
    const active = ok && doc !== D.closedCnpj;
    return {
      validacoes: [
        v(
          'cnpj_valido',
          'CNPJ válido',
          'Dígitos verificadores do CNPJ',
          ok,
          ok ? 'CNPJ válido.' : 'CNPJ com dígitos verificadores inválidos.',
        ),
        ...(ok
          ? [
              v(
                'situacao_receita',
                'Situação cadastral',
                'Situação na Receita Federal',
                active,
                active ? 'ATIVA' : 'BAIXADA',
              ),
              v('sancoes_empresa', 'Listas restritivas', 'Empresa em listas de sanções', true, 'Nenhuma ocorrência.'),
            ]
          : []),
      ],
    };
  }
  const ok = validCpf(doc);
  const regular = ok && doc !== D.suspendedCpf;
  const sanctioned = doc === D.sanctionedCpf;
  const pep = doc === D.pepCpf;
  const cpf = v(
    'cpf_valido',
    'CPF válido',
    'Dígitos verificadores do CPF',
    ok,
    ok ? 'CPF válido.' : 'CPF com dígitos verificadores inválidos.',
  );
  if (!ok) return { validacoes: [cpf], ...(kind === 'risk' || kind === 'onboarding' ? { score: 0 } : {}) };
  const receita = v(
    'situacao_receita',
    'Situação cadastral',
    'Situação do CPF na Receita Federal',
    regular,
    regular ? 'REGULAR' : 'SUSPENSA',
  );
  const sancoes = v(
    'sancoes',
    'Sanções',
    'Listas de sanções nacionais e internacionais',
    !sanctioned,
    sanctioned ? 'Consta em lista de sanções.' : 'Nenhuma ocorrência.',
  );
  const pepCheck = v(
    'pep',
    'Pessoa politicamente exposta',
    'Lista de PEP',
    pep ? 'review' : true,
    pep ? 'Consta como PEP: requer análise.' : 'Não consta como PEP.',
  );
  const digits = doc.split('').reduce((s, c) => s + Number(c), 0);
  const score = sanctioned ? 50 : !regular ? 200 : pep ? 550 : 600 + ((digits * 37) % 380);
  const scoreCheck = v('score', 'Score de risco', 'Score mínimo de 500', score >= 500, `Score ${score}.`);
  switch (kind) {
    case 'identity':
      return { validacoes: [cpf, receita] };
    case 'document':
      return {
        validacoes: [
          cpf,
          v(
            'documento',
            'Documento de identidade',
            'Número do documento confere com o CPF',
            regular,
            regular ? 'Documento confere.' : 'Documento não confere.',
          ),
        ],
      };
    case 'risk':
      return { validacoes: [cpf, scoreCheck], score };
    case 'sanctions':
      return { validacoes: [cpf, sancoes, pepCheck] };
    case 'onboarding':
      return { validacoes: [cpf, receita, sancoes, pepCheck, scoreCheck], score };
  }
}

export const idwall: ProviderModel<IdwallState> = {
  // idwall has no idempotency header of its own; the sandbox honours the common one.
  idempotencyHeader: 'idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, message),
  unauthorized: (status) => err(status, status === 401 ? 'Token de autorização inválido.' : 'Acesso negado.'),
  createState: () => ({ reports: new Map() }),
  routes: [
    {
      name: 'create_report',
      method: 'POST',
      path: '/relatorios',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const matriz = typeof b.matriz === 'string' ? b.matriz : '';
        const kind = IDWALL_MATRICES[matriz];
        if (!kind) return err(400, `Matriz ${matriz || '(vazia)'} não encontrada.`);
        const p = isObject(b.parametros) ? b.parametros : {};
        const field = kind === 'business' ? 'cnpj_numero' : 'cpf_numero';
        const doc = typeof p[field] === 'string' ? p[field].replace(/\D/g, '') : '';
        if (!doc) return err(400, `O parâmetro ${field} é obrigatório para a matriz ${matriz}.`);
        const { validacoes, score } = validationsFor(kind, doc);
        const review =
          validacoes.some((x) => x.resultado === 'PENDENTE') && !validacoes.some((x) => x.resultado === 'INVALID');
        const valid = validacoes.every((x) => x.resultado === 'VALID');
        const now = new Date().toISOString();
        const nome = typeof p.cpf_nome === 'string' ? p.cpf_nome : typeof p.nome === 'string' ? p.nome : null;
        const report: Report = {
          numero: randomUUID(),
          matriz,
          status: review ? 'PENDENTE' : 'CONCLUIDO',
          resultado: review ? null : valid ? 'VALID' : 'INVALID',
          mensagem: review
            ? 'Aguardando análise manual.'
            : valid
              ? 'Todas as validações foram aprovadas.'
              : 'Uma ou mais validações falharam.',
          nome,
          documento: doc,
          ...(score !== undefined ? { score } : {}),
          validacoes,
          criado_em: now,
          atualizado_em: now,
        };
        ctx.state.reports.set(report.numero, report);
        ctx.created('reports');
        return { status: 200, body: { result: { numero: report.numero }, status_code: 200 } };
      },
    },
    {
      name: 'get_report',
      method: 'GET',
      path: '/relatorios/:numero',
      handle(ctx) {
        const r = ctx.state.reports.get(ctx.params.numero ?? '');
        if (!r) return err(404, `Relatório ${ctx.params.numero} não encontrado.`);
        const { documento: _doc, ...view } = r;
        return { status: 200, body: { result: view, status_code: 200 } };
      },
    },
    {
      name: 'get_report_data',
      method: 'GET',
      path: '/relatorios/:numero/dados',
      handle(ctx) {
        const r = ctx.state.reports.get(ctx.params.numero ?? '');
        if (!r) return err(404, `Relatório ${ctx.params.numero} não encontrado.`);
        const company = r.documento.length === 14;
        const situacao = r.validacoes.find((x) => x.regra === 'situacao_receita')?.mensagem ?? null;
        const data = company
          ? { cnpj: { numero: r.documento, situacao_cadastral: situacao, razao_social: r.nome } }
          : {
              cpf: { numero: r.documento, nome: r.nome, situacao_imposto_de_renda: situacao },
              pep:
                r.documento === IDWALL_SANDBOX_DOCUMENTS.pepCpf
                  ? [{ cargo: 'Vereador', orgao: 'Câmara Municipal' }]
                  : [],
              sancoes:
                r.documento === IDWALL_SANDBOX_DOCUMENTS.sanctionedCpf ? [{ lista: 'OFAC SDN', tipo: 'sanção' }] : [],
            };
        return { status: 200, body: { result: { numero: r.numero, ...data }, status_code: 200 } };
      },
    },
    {
      name: 'list_reports',
      method: 'GET',
      path: '/relatorios',
      handle(ctx) {
        const status = ctx.query.get('status');
        const itens = [...ctx.state.reports.values()]
          .filter((r) => !status || r.status === status)
          .map((r) => ({
            numero: r.numero,
            matriz: r.matriz,
            status: r.status,
            resultado: r.resultado,
            criado_em: r.criado_em,
          }));
        return { status: 200, body: { result: { itens, total: itens.length }, status_code: 200 } };
      },
    },
  ],
};
