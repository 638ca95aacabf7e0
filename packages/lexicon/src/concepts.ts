/**
 * The shared commerce vocabulary: words and phrases in Brazilian Portuguese,
 * Spanish and English mapped to language-independent concept ids.
 *
 * Term syntax (terms are written folded or not; they are folded on load):
 * - `word`    matches the word itself, or any word with the same Snowball stem
 *             in the term's language ("cobrar" also catches "cobra", "cobram").
 * - `=word`   matches only that exact surface form (for short or ambiguous words).
 * - `word*`   matches any word starting with `word` (at least four letters).
 * - `a b c`   a phrase: the pieces in order, each following the rules above;
 *             function words between pieces are skipped ("link pagamento"
 *             also catches "link de pagamento"). A phrase claims its words, so
 *             their own single-word concepts do not fire ("contas a pagar" is
 *             about accounting, not about paying).
 * - `+a b`    a phrase that leaves its words free for other concepts.
 *
 * `any` terms are language-neutral (brands, acronyms, codes): surface only,
 * plus a plural with a trailing "s".
 *
 * Concept ids are grouped by prefix: `rail.` payment rails, `act.` actions,
 * `obj.` business objects, `party.` who is involved, `q.` question shapes,
 * `ctx.` context that is not commerce at all.
 */

export interface ConceptDef {
  /** Stable id, used by the classifiers and embedders that build on the lexicon. */
  id: string;
  /** What the concept means, in one line. */
  gloss: string;
  en?: readonly string[];
  pt?: readonly string[];
  es?: readonly string[];
  /** Language-neutral terms: brand names, acronyms. */
  any?: readonly string[];
}

export const CONCEPTS: readonly ConceptDef[] = [
  // ---------------------------------------------------------------- rails
  { id: 'rail.pix', gloss: 'Pix, the Brazilian instant payment rail', any: ['pix', 'pixs', '=piks'], pt: ['=pixar', '=pixzinho'] },
  {
    id: 'rail.pix_key',
    gloss: 'a Pix key identifying who receives a payment',
    en: ['pix key', 'pix keys', 'key pix'],
    pt: ['chave pix', 'chave do pix', 'chave aleatoria', 'chave evp'],
    es: ['llave pix', 'clave pix'],
  },
  {
    id: 'rail.pix_copy_paste',
    gloss: 'a Pix copy-and-paste (EMV) code to be paid',
    en: ['copy paste', 'copy and paste', 'pix code', 'emv code', 'brcode'],
    pt: ['copia e cola', 'copia cola', 'codigo pix', 'pix copia', 'brcode'],
    es: ['copia y pega', 'copia e cola', 'codigo pix'],
  },
  { id: 'rail.qr', gloss: 'a QR code', any: ['qr', 'qrcode', 'qrcodes'], pt: ['codigo qr'], es: ['codigo qr'] },
  { id: 'rail.boleto', gloss: 'boleto bancario, the Brazilian bank slip', any: ['boleto', 'boletos', 'bolepix', '=boletto', '=bolet'], pt: ['bloqueto'] },
  {
    id: 'rail.boleto_line',
    gloss: 'the digitable line or barcode of a bill to be paid',
    en: ['barcode', 'bar code', 'digitable line', 'typeable line'],
    pt: ['linha digitavel', 'codigo de barras', 'codigo barras'],
    es: ['codigo de barras', 'linea de captura'],
  },
  {
    id: 'rail.card',
    gloss: 'a payment card',
    en: ['card', 'cards'],
    pt: ['cartao', 'cartoes', '=cartão', '=cartões', '=catao', '=cartaum'],
    es: ['tarjeta', 'tarjetas', '=tdc', '=tdd'],
  },
  {
    id: 'rail.card_credit',
    gloss: 'a credit or debit card used as a payment method',
    en: ['+credit card', '+debit card', '+credit cards', '+debit cards'],
    pt: ['+cartao de credito', '+cartao credito', '+cartao de debito', '+cartao debito', '+cartoes de credito'],
    es: ['+tarjeta de credito', '+tarjeta de debito', '+tarjeta credito', '+tarjetas de credito'],
  },
  {
    id: 'rail.wire',
    gloss: 'a bank transfer rail (TED, SPEI, ACH, wire)',
    any: ['ted', 'spei', 'clabe', 'clabes', 'ach', 'iban', 'swift', '=doc', 'cvu', 'cbu'],
    en: ['wire', 'wires', 'bank transfer', 'wire transfer', 'bank wire'],
    pt: ['transferencia bancaria', 'transferencia eletronica', 'remessa'],
    es: ['transferencia bancaria', 'transferencia interbancaria'],
  },
  { id: 'rail.pse', gloss: 'PSE, the Colombian online bank debit used to collect payments', any: ['pse'] },
  {
    id: 'rail.cash_voucher',
    gloss: 'a cash voucher paid at a store (OXXO and similar)',
    any: ['oxxo', 'efecty', 'baloto', 'pagofacil', 'rapipago', 'pagoefectivo', 'paycash', '=7eleven', 'servipag'],
    es: ['referencia de pago', 'ficha de pago', 'referencia oxxo', 'pago en efectivo', 'pago en tienda'],
    en: ['cash voucher', 'cash payment'],
  },
  {
    id: 'obj.bank_account',
    gloss: 'a bank account as a destination or source of funds',
    en: ['bank account', 'bank accounts', 'checking account', 'savings account', 'bank details'],
    pt: ['conta bancaria', 'conta corrente', 'conta poupanca', 'dados bancarios', 'agencia e conta', 'conta no banco'],
    es: ['cuenta bancaria', 'cuenta de ahorros', 'cuenta corriente', 'cuenta de banco', 'datos bancarios', 'cuenta en el banco'],
  },
  {
    id: 'obj.bank_brand',
    gloss: 'a named bank',
    any: ['itau', 'bradesco', 'nubank', 'santander', 'bbva', 'banorte', 'bancolombia', 'davivienda', 'banamex', 'citibanamex', 'hsbc', 'sicoob', 'sicredi', 'scotiabank', 'bancomer', 'btg'],
    pt: ['banco do brasil', 'caixa economica'],
    es: ['banco de bogota', 'banco galicia', 'banco de chile'],
  },

  // ---------------------------------------------------------------- money words
  {
    id: 'obj.currency',
    gloss: 'a currency word, which usually means an amount is involved',
    any: ['brl', 'mxn', 'cop', 'usd', 'ars', 'clp', 'eur', 'reais', 'pesos', '=conto', '=contos', '=pila', '=pilas', '=lucas', '=luca', '=mangos', '=centavos', 'soles'],
    en: ['dollars', 'dollar', 'bucks', 'cents'],
    pt: ['dolares', 'dolar', 'centavos'],
    es: ['dolares', 'dolar', 'centavos'],
  },
  {
    id: 'obj.money',
    gloss: 'money or funds in general',
    en: ['money', 'funds', 'cash'],
    pt: ['dinheiro', 'grana', 'fundos', 'valor', '=bufunfa'],
    es: ['dinero', 'plata', 'fondos', '=lana', 'monto', 'importe'],
  },
  {
    id: 'obj.payment',
    gloss: 'a payment, as a noun',
    en: ['payment', 'payments'],
    pt: ['pagamento', 'pagamentos', '=pgto', '=pagto', '=pgt'],
    es: ['=pago', '=pagos'],
  },

  {
    id: 'obj.bill',
    gloss: 'a bill the business has to pay (utilities, rent, a supplier bill)',
    en: ['bill', 'bills', 'utility bill', 'electricity bill', 'water bill', 'rent'],
    pt: ['conta de luz', 'conta de agua', 'conta de telefone', 'conta de internet', 'aluguel', 'fatura do cartao', 'guia de imposto', 'darf'],
    es: ['recibo de luz', 'recibo del agua', 'renta', 'alquiler', 'servicios publicos'],
  },

  // ---------------------------------------------------------------- actions
  {
    id: 'act.send',
    gloss: 'send something to someone',
    en: ['send', 'sending', 'shoot', 'dispatch', '+drop an', '+drop a', '+drop them', '+drop the'],
    pt: ['=enviar', '=envia', '=envie', '=enviem', '=enviando', '=manda', '=mandar', '=mande', '=mandem', '=mandando', 'dispara', 'disparar', '+faz pix', '+fazer pix', '+faz um pix', '+faca pix', '+fazer transferencia', '+faz transferencia'],
    es: ['=enviar', '=envia', '=envie', '=enviale', '=enviales', '=manda', '=mandar', '=mande', '=mandale', '=mandales', '+haz pix', '+hacer pix', '+haz transferencia', '+hazme transferencia'],
  },
  {
    id: 'act.sent',
    gloss: 'something the speaker already sent or paid (asking about its outcome)',
    en: ['=sent', '=paid', 'i made', 'we made', 'i did', 'i transferred', 'we transferred', 'i wired'],
    pt: ['=enviei', '=mandei', '=paguei', '=transferi', '=fiz', '=fizemos', '=pagamos', '=enviamos', '=mandamos', '=transferimos'],
    es: ['=envie', '=mande', '=pague', '=transferi', '=hice', '=hicimos', '=pagamos', '=enviamos', '=mandamos', '=transferimos'],
  },
  {
    id: 'act.transfer',
    gloss: 'move money to another account',
    en: ['transfer', 'transfers', 'transferring', 'remit', 'remittance'],
    pt: ['transferir', 'transfere', 'transferencia', 'transferencias', '=transfira', 'remeter', '=transf'],
    es: ['transferir', 'transfiere', 'transferencia', 'transferencias', '=transfiereme', 'remesa', 'giro'],
  },
  {
    id: 'act.pay',
    gloss: 'pay (the speaker is the payer)',
    en: ['pay', 'pays', 'paying', 'payout', 'payouts', 'pay out', 'settle', 'pay off'],
    pt: ['=pagar', '=paga', '=pague', '=paguem', '=pagando', '=quitar', '=quita', '=quite', '=liquidar', '=liquida', '=pagarei'],
    es: ['=pagar', '=paga', '=pague', '=pagale', '=pagales', '=pagarle', '=pagarles', '=pagando', '=liquidar', '=liquida', '=saldar', '=salda', '=cubrir', '=cubre'],
  },
  {
    id: 'act.pay_me',
    gloss: 'someone pays the speaker (money coming in)',
    en: ['pay me', 'pays me', 'pay us', 'get paid', 'be paid', 'paid by'],
    pt: ['me pagar', 'me pague', 'me paga', 'nos pagar', 'me pagarem', 'pagar pra mim', 'pagar para mim'],
    es: ['me pague', 'me pagues', 'me pagan', 'pagarme', 'nos pague', 'me paguen'],
  },
  {
    id: 'act.charge',
    gloss: 'collect money from someone (the speaker is paid)',
    en: ['charge', 'charges', 'charging', 'collect', 'collecting', 'bill the', 'bill my', 'bill a', 'bill him', 'bill her', 'bill them', 'bill customer', 'bill client', '=billing', 'request payment', 'request a payment', 'payment request', 'ask payment'],
    pt: ['cobrar', 'cobra', 'cobre', 'cobranca', 'cobrancas', '=cobrei', 'solicitar pagamento', 'pedir pagamento', 'pedido de pagamento', 'solicitacao de pagamento'],
    es: ['cobrar', 'cobra', 'cobro', 'cobros', 'cobranza', '=cobrale', '=cobrarle', '=cobrales', '=cobrarles', '=cobrame', 'solicitar pago', 'solicitud de pago', 'pedir pago'],
  },
  {
    id: 'act.receive',
    gloss: 'receive or accept money',
    en: ['receive', 'receiving', 'accept', 'accepting', 'get paid'],
    pt: ['receber', 'recebe', 'recebimento', 'recebimentos', 'aceitar', 'aceita', 'aceite'],
    es: ['recibir', 'recibe', 'aceptar', 'acepta', 'acepte'],
  },
  {
    id: 'act.buy',
    gloss: 'buy something',
    en: ['buy', 'buying', 'purchase', 'purchases', 'purchasing', '=bought', 'order a', 'order an', 'order me', 'order some', 'order the', 'order two', 'shop for'],
    pt: ['=comprar', '=compra', '=compre', '=comprem', '=comprando', '=comprei', '=compras', '=encomendar', '=encomende', 'adquirir', '=pede', '=pedir'],
    es: ['=comprar', '=compra', '=compre', '=comprame', '=compres', '=comprando', '=compras', '=compro', '=compramos', '=pide', '=pideme', '=pedir', 'adquirir', '=conseguir', '=consigueme'],
  },
  {
    id: 'act.search',
    gloss: 'search for or find something',
    en: ['search', 'searching', 'find', 'finding', 'look for', 'look up', 'looking for', 'lookup', 'browse', 'hunt'],
    pt: ['procurar', 'procura', 'procure', 'buscar', 'busca', 'busque', 'achar', 'acha', 'ache', 'encontrar', 'encontra', 'encontre', 'pesquisar', 'pesquisa', 'pesquise'],
    es: ['buscar', 'busca', 'busque', 'buscame', '=buscame', 'encontrar', '=encuentra', '=encuentrame', '=encuentre', 'hallar', 'halla', 'localizar'],
  },
  {
    id: 'act.compare',
    gloss: 'compare options or prices',
    en: ['compare', 'comparing', 'comparison'],
    pt: ['comparar', 'compara', 'compare', 'comparacao'],
    es: ['comparar', 'compara', 'compare', 'comparacion'],
  },
  {
    id: 'act.create',
    gloss: 'create, generate or set something up',
    en: ['create', 'creating', 'generate', 'generating', 'make', 'making', 'build', 'prepare', 'produce', 'new'],
    pt: ['criar', 'cria', 'crie', 'gerar', 'gera', 'gere', 'montar', 'monta', 'monte', '=faz', '=fazer', '=faca', 'preparar', 'prepara', 'novo', 'nova'],
    es: ['crear', 'crea', 'cree', 'creame', 'generar', 'genera', 'genere', 'generame', 'armar', 'arma', 'armame', '=haz', '=hazme', '=hacer', 'preparar', 'prepara', 'nuevo', 'nueva'],
  },
  {
    id: 'act.issue',
    gloss: 'issue (an official document or a card)',
    en: ['issue', 'issuing', 'issuance', '=issued', 'emit'],
    pt: ['emitir', 'emite', 'emita', 'emissao', '=emiti', '=emitida', '=emitido', '=emitimos'],
    es: ['emitir', 'emite', 'emita', 'emision', '=emiti', '=emitida', '=emitido', 'expedir', 'expide'],
  },
  {
    id: 'act.cancel',
    gloss: 'cancel or void something',
    en: ['cancel', 'cancelling', 'canceling', 'cancellation', 'void', 'revoke', 'terminate'],
    pt: ['cancelar', 'cancela', 'cancele', 'cancelamento', 'anular', 'anula', 'inutilizar'],
    es: ['cancelar', 'cancela', 'cancele', 'cancelacion', 'anular', 'anula', 'anule'],
  },
  {
    id: 'act.freeze',
    gloss: 'freeze, block or suspend something',
    en: ['freeze', 'freezing', 'frozen', 'block', 'blocking', 'lock', 'suspend', 'pause', 'disable', 'turn off', 'switch off', 'shut off'],
    pt: ['congelar', 'congela', 'congele', 'bloquear', 'bloqueia', 'bloqueie', 'bloqueio', 'suspender', 'suspende', 'pausar', 'pausa', 'travar', 'trava', 'desativar', 'desativa'],
    es: ['congelar', 'congela', 'congele', 'bloquear', 'bloquea', 'bloquee', 'bloqueo', 'suspender', 'suspende', 'pausar', 'pausa', 'desactivar', 'desactiva', 'apagar', 'apaga', 'apague'],
  },
  {
    id: 'act.unfreeze',
    gloss: 'unfreeze, unblock or reactivate something',
    en: ['unfreeze', 'unblock', 'unlock', 'reactivate', 'reenable', 'thaw', 'turn back on', 'back on', 'turn on', 'switch on', 'enable again'],
    pt: ['descongelar', 'descongela', 'desbloquear', 'desbloqueia', 'desbloqueie', 'destravar', 'destrava', 'reativar', 'reativa'],
    es: ['descongelar', 'descongela', 'desbloquear', 'desbloquea', 'desbloquee', 'reactivar', 'reactiva', 'prender', 'prende', 'encender', 'enciende', 'activa de nuevo'],
  },
  {
    id: 'act.track',
    gloss: 'track a parcel',
    en: ['track', 'tracking', 'trace'],
    pt: ['rastrear', 'rastreia', 'rastreie', 'rastreio', 'rastreamento', '=rastrea', 'acompanhar entrega', 'acompanha entrega', 'acompanhar pedido'],
    es: ['rastrear', 'rastrea', 'rastree', 'rastreo', 'seguimiento', 'seguir paquete', 'seguir envio'],
  },
  {
    id: 'act.quote',
    gloss: 'get a price quote or estimate',
    en: ['quote', 'quotes', 'quoting', 'estimate', 'estimating', 'simulate', 'calculate', 'rates'],
    pt: ['=cotar', '=cota', '=cote', '=cotacao', '=cotacoes', 'simular', 'simula', 'calcular', 'calcula', 'calcule', 'orcamento', 'orcar'],
    es: ['cotizar', 'cotiza', 'cotice', 'cotizacion', 'cotizame', 'simular', 'simula', 'calcular', 'calcula', 'calcule', 'presupuesto', 'tarifa', 'tarifas'],
  },
  {
    id: 'act.connect',
    gloss: 'connect, link or authorise an external account',
    en: ['connect', 'connecting', 'connected', 'connection', 'connections', 'authorize', 'authorise', 'authorizing', 'authorization', 'authorisation', 'oauth', 'reauth', 'reauthorize', 'reconnect', 'disconnect', 'unlink', 'hook up', 'sign in', 'log in', 'login', 'link account', 'link my', 'link the', 'link our', 'linked'],
    pt: ['conectar', 'conecta', 'conecte', 'conectado', 'conectada', 'conectados', 'conectadas', 'conexao', 'conexoes', 'vincular', 'vincula', 'vinculado', 'vinculada', 'vinculei', 'autorizar', 'autoriza', 'autorizei', 'autorizacao', 'desconectar', 'desconecta', 'reconectar', 'reconecta', 'desvincular', 'linkar', 'logar', 'plugar', 'ligar minha conta', 'ligar a conta', 'ligar minha loja'],
    es: ['conectar', 'conecta', 'conecte', 'conectado', 'conectada', 'conectados', 'conexion', 'conexiones', 'vincular', 'vincula', 'vinculada', 'vinculado', 'vinculadas', 'autorizar', 'autoriza', 'autorice', 'autorizacion', 'desconectar', 'desconecta', 'reconectar', 'desvincular', 'enlazar', 'enlaza'],
  },
  {
    id: 'act.verify',
    gloss: 'verify, validate or check something about a person or company',
    en: ['verify', 'verifying', 'validate', 'validating', 'validation', 'check', 'checking', 'screen', 'screening', 'vet', 'vetting', 'confirm identity', 'make sure', 'ensure'],
    pt: ['verificar', 'verifica', 'verifique', 'validar', 'valida', 'valide', 'validacao', 'checar', 'checa', 'cheque', 'conferir', 'confere', 'confira', 'consultar', 'consulta', 'consulte', 'analisar', 'analisa'],
    es: ['verificar', 'verifica', 'verifique', 'validar', 'valida', 'valide', 'validacion', 'checar', 'checa', 'revisar', 'revisa', 'revise', 'consultar', 'consulta', 'consulte', 'comprobar', 'comprueba'],
  },
  {
    id: 'act.convert',
    gloss: 'convert, swap, sell or cash out between currencies or assets',
    en: ['convert', 'converting', 'conversion', 'swap', 'exchange', '=sell', '=selling', 'cash out', 'cashout', 'withdraw', 'off ramp', 'offramp', 'on ramp', 'onramp'],
    pt: ['converter', 'converte', 'converta', 'conversao', 'trocar', 'troca', 'troque', 'vender', '=vende', 'sacar', 'saca', 'saque', 'resgatar', 'resgata'],
    es: ['convertir', 'convierte', 'convierta', 'conversion', 'cambiar', 'cambia', 'cambie', 'vender', '=vende', 'retirar', 'retira', 'canjear'],
  },
  {
    id: 'act.record',
    gloss: 'record or post something in the books',
    en: ['record', 'recording', 'register', '=post', '=posting', '=book', '=booking', 'journalize', 'log'],
    pt: ['registrar', 'registra', 'registre', 'lancar', 'lanca', 'lance', '=lançar', 'contabilizar', 'contabiliza', 'escriturar', 'escritura'],
    es: ['registrar', 'registra', 'registre', 'contabilizar', 'contabiliza', 'asentar', 'asienta', 'apuntar', 'apunta'],
  },
  {
    id: 'act.show',
    gloss: 'show, list or fetch information',
    en: ['show', 'list', 'listing', 'view', 'display', 'see', 'fetch', 'pull', 'retrieve'],
    pt: ['mostrar', 'mostra', 'mostre', 'listar', 'lista', 'liste', 'ver', 'exibir', 'exibe', 'puxar', 'puxa', 'trazer', 'traz', 'traga'],
    es: ['mostrar', 'muestra', 'muestrame', '=muestre', 'listar', 'lista', 'ver', 'traer', 'trae', 'traeme', 'dame', 'desplegar'],
  },
  {
    id: 'act.download',
    gloss: 'download a document file',
    any: ['pdf', 'xml', 'danfe'],
    en: ['download', 'downloading', 'copy of', 'second copy'],
    pt: ['baixar', '=baixa', '=baixe', 'segunda via', 'download'],
    es: ['descargar', 'descarga', 'descargame', 'segunda copia'],
  },
  {
    id: 'act.save',
    gloss: 'save or update stored details',
    en: ['save', 'saved', 'store my', 'store the', 'keep on file', 'update', 'updating', 'change my', 'edit', 'remember', 'memorize'],
    pt: ['salvar', 'salva', 'salve', 'guardar', 'guarda', 'guarde', 'armazenar', 'atualizar', 'atualiza', 'atualize', 'alterar', 'altera', 'cadastrar', 'cadastra', 'memorizar'],
    es: ['guardar', 'guarda', 'guarde', 'guardame', 'almacenar', 'actualizar', 'actualiza', 'actualice', 'editar', 'modificar', 'modifica'],
  },
  {
    id: 'act.notify',
    gloss: 'tell, notify or remind someone',
    en: ['notify', 'notifying', 'inform', 'remind', 'reminder', 'reminders', 'alert', 'alerts', 'let know', 'let them know', 'let the', 'tell the customer', 'tell the client', 'tell the buyer', 'reach out', 'contact', 'ping', 'message them'],
    pt: ['notificar', 'notifica', 'notifique', 'avisar', 'avisa', 'avise', 'avisando', 'informar', 'informa', 'informe', 'lembrar', 'lembra', 'lembre', 'lembrete', 'lembretes', 'alertar', 'alerta', 'comunicar', 'comunica', 'contatar', 'contata'],
    es: ['notificar', 'notifica', 'notifique', 'avisar', 'avisa', 'avise', 'avisale', '=avisale', 'informar', 'informa', 'informale', 'recordar', 'recuerda', '=recordandole', 'recordatorio', 'recordatorios', 'alertar', 'alerta', 'comunicar', 'contactar', 'contacta'],
  },
  {
    id: 'act.topup',
    gloss: 'add funds to a balance',
    en: ['top up', 'topup', 'top it up', 'recharge', 'reload', 'add funds', 'add money', 'add balance', 'add credit', 'fund my', 'fund the', 'load money', 'deposit', 'deposits'],
    pt: ['recarregar', 'recarrega', 'recarregue', 'recarga', 'colocar saldo', 'coloca saldo', 'colocar dinheiro', 'coloca dinheiro', 'adicionar saldo', 'adiciona saldo', 'adicionar dinheiro', 'por saldo', 'depositar', 'deposita', 'deposito', 'aportar', 'abastecer'],
    es: ['recargar', 'recarga', 'recargue', 'agregar saldo', 'agrega saldo', 'agregar fondos', 'agrega fondos', 'anadir saldo', 'anadir fondos', 'cargar saldo', 'carga saldo', 'meter saldo', 'meter dinero', 'depositar', 'deposita', 'deposito', 'fondear', 'fondea'],
  },
  {
    id: 'act.correct',
    gloss: 'correct or amend a document',
    en: ['correct', 'correction', 'corrections', 'amend', 'amending', 'amendment', 'rectify', 'fix the'],
    pt: ['corrigir', 'corrige', 'corrija', 'correcao', 'retificar', 'retifica', 'emendar', 'ajustar dados'],
    es: ['corregir', 'corrige', 'corrija', 'correccion', 'rectificar', 'rectifica', 'enmendar'],
  },
  {
    id: 'act.print',
    gloss: 'print a document',
    en: ['print', 'printing', 'printable'],
    pt: ['imprimir', 'imprime', 'imprima', 'impressao'],
    es: ['imprimir', 'imprime', 'imprima', 'impresion'],
  },
  {
    id: 'act.start',
    gloss: 'start or begin',
    en: ['start', 'starting', 'begin', 'beginning', 'kick off', 'onboard'],
    pt: ['comecar', 'comeca', 'comece', 'comecando', 'comeco', '=começo', 'iniciar', 'inicio', 'inicia', 'iniciando', 'partida inicial'],
    es: ['empezar', 'empiezo', 'empieza', 'empiece', 'empezando', 'comenzar', 'comienzo', 'comienza', 'iniciar', 'inicio', 'inicia', 'arrancar', 'arranco', 'arranque'],
  },
  {
    id: 'act.help',
    gloss: 'asking for help or explanation',
    en: ['help', 'explain', 'walk me through', 'guide me', 'teach me', 'show me how'],
    pt: ['ajuda', 'ajudar', 'ajude', 'explica', 'explicar', 'explique', 'ensina', 'ensinar', 'me mostra como', 'orienta'],
    es: ['ayuda', 'ayudar', 'ayudame', 'explica', 'explicame', 'explicar', 'explique', 'ensename', 'guiame', 'orientame'],
  },

  // ---------------------------------------------------------------- wallet / balances
  { id: 'obj.wallet', gloss: 'a stored-value wallet', en: ['wallet', 'wallets', 'ewallet', 'e wallet'], pt: ['carteira', 'carteiras', 'carteira digital'], es: ['billetera', 'billeteras', 'monedero', 'cartera', 'billetera digital'] },
  {
    id: 'obj.balance',
    gloss: 'a balance: how much money is available',
    en: ['balance', 'balances', 'balence', 'available funds', 'funds available', 'money available', 'available balance'],
    pt: ['saldo', 'saldos', 'disponivel', 'saldo disponivel'],
    es: ['saldo', 'saldos', 'disponible', 'saldo disponible'],
  },
  {
    id: 'obj.statement',
    gloss: 'a statement or list of past movements',
    en: ['statement', 'statements', 'transactions', 'transaction history', 'movements', 'activity', 'history'],
    pt: ['extrato', 'extratos', 'movimentacao', 'movimentacoes', 'movimentos', 'transacoes', 'transacao', 'historico', 'entradas e saidas'],
    es: ['extracto', 'extractos', 'estado de cuenta', 'movimientos', 'movimiento', 'transacciones', 'transaccion', 'historial', 'historico'],
  },
  {
    id: 'q.how_much_have',
    gloss: 'asking how much money the speaker has',
    en: ['how much do i have', 'how much money do i have', 'how much is in', 'how much have i got', 'how much money is', 'how much do we have'],
    pt: ['quanto tenho', 'quanto eu tenho', 'quanto tem na', 'quanto tem no', 'quanto dinheiro tenho', 'quanto temos', 'quanto sobrou', 'quanto ainda tenho'],
    es: ['cuanto tengo', 'cuanto dinero tengo', 'cuanto hay en', 'cuanto me queda', 'cuanto tenemos'],
  },

  // ---------------------------------------------------------------- ledger
  {
    id: 'obj.ledger',
    gloss: 'the books: a ledger or accounting records',
    en: ['ledger', 'ledgers', 'general ledger', '=books', 'bookkeeping', 'accounting', 'accountancy', 'chart of accounts', 'journal'],
    pt: ['livro razao', '=razao', 'livro caixa', 'livro diario', 'contabilidade', 'contabil', 'contabeis', 'plano de contas', 'escrituracao'],
    es: ['libro mayor', 'libro diario', 'libros contables', 'contabilidad', 'contable', 'contables', 'catalogo de cuentas', 'plan de cuentas'],
  },
  {
    id: 'obj.ledger_entry',
    gloss: 'an accounting entry',
    en: ['journal entry', 'journal entries', 'entry', 'entries', 'double entry', 'reversing entry', 'adjusting entry', 'posting'],
    pt: ['lancamento', 'lancamentos', 'partida dobrada', 'partidas dobradas', 'contrapartida', 'lancamento contabil'],
    es: ['asiento', 'asientos', 'partida doble', 'poliza contable', 'contrapartida'],
  },
  {
    id: 'obj.debit',
    gloss: 'a debit side of an entry',
    en: ['debit', 'debits', 'debiting', 'debited'],
    pt: ['debito', 'debitos', 'debitar', 'debita'],
    es: ['debito', 'debitos', 'debitar'],
  },
  {
    id: 'obj.credit',
    gloss: 'a credit side of an entry (or credit in general)',
    en: ['credit', 'credits', 'crediting', 'credited'],
    pt: ['credito', 'creditos', 'creditar', 'credita'],
    es: ['credito', 'creditos', 'acreditar', 'abono', 'abonar', 'abona'],
  },
  { id: 'obj.es_cargo', gloss: 'Spanish "cargo": a debit in accounting or a charge on a card', es: ['!=cargo', '!=cargos', '!=cargar', '!=cargue'] },
  {
    id: 'obj.ledger_account',
    gloss: 'a named account in the books (receivables, payables, revenue, cash)',
    en: ['accounts receivable', 'accounts payable', 'receivables', 'payables', 'revenue account', 'cash account', 'expense account', 'expenses account', 'equity account', 'liability account', 'asset account', 'accounting account', 'sales account'],
    pt: ['contas a receber', 'contas a pagar', 'conta de receita', 'conta de receitas', 'conta caixa', 'conta de despesa', 'conta de despesas', 'conta de fornecedores', 'conta de clientes', 'conta contabil', 'conta de vendas'],
    es: ['cuentas por cobrar', 'cuentas por pagar', 'cuenta de ingresos', 'cuenta de caja', 'cuenta de gastos', 'cuenta de proveedores', 'cuenta de clientes', 'cuenta contable', 'cuenta de ventas', 'cuenta de bancos'],
  },
  {
    id: 'obj.ledger_name',
    gloss: 'a word naming an accounting category (revenue, expense, cash, sales)',
    en: ['revenue', 'expense', 'expenses', 'equity', 'liability', 'liabilities', 'assets', '=sales', '=cash'],
    pt: ['receita', 'receitas', 'despesa', 'despesas', 'patrimonio', 'passivo', 'ativo', '=caixa', '=vendas'],
    es: ['ingresos', 'ingreso', 'gastos', 'gasto', 'egresos', 'egreso', 'patrimonio', 'pasivo', 'activo', '=bancos', '=ventas'],
  },
  {
    id: 'obj.receipt',
    gloss: 'a payment receipt',
    en: ['receipt', 'receipts', 'proof of payment', 'payment proof'],
    pt: ['recibo', 'recibos', 'comprovante', 'comprovantes'],
    es: ['=recibo', '=recibos', 'comprobante de pago', 'comprobantes de pago', 'constancia de pago'],
  },
  {
    id: 'obj.refund',
    gloss: 'a refund or reversal',
    en: ['refund', 'refunds', 'refunding', 'reversal', 'reversing', 'chargeback', 'give back', 'money back'],
    pt: ['reembolso', 'reembolsar', 'reembolsa', 'estorno', 'estornar', 'estorna', 'devolucao', 'devolver dinheiro', 'ressarcir'],
    es: ['reembolso', 'reembolsar', 'reembolsa', 'devolucion', 'devolver dinero', 'contracargo', 'reversion', 'reversa'],
  },

  // ---------------------------------------------------------------- invoices
  {
    id: 'obj.invoice',
    gloss: 'a fiscal document: NF-e, NFS-e, CFDI, electronic invoice',
    any: ['nfe', 'nfse', 'nfce', 'nf', 'nfs', 'nfes', 'nfses', 'cfdi', 'cfdis', 'danfe', 'sefaz', 'dian', 'afip', 'sunat', '=sat', 'rps', 'dte', 'cte'],
    en: ['invoice', 'invoices', 'invoicing', 'e invoice', 'einvoice', 'tax invoice', 'electronic invoice', 'fiscal invoice', 'fiscal receipt'],
    pt: ['nota fiscal', 'notas fiscais', 'nota fiscal eletronica', 'nota de servico', 'nota de servicos', 'nota eletronica', 'fatura', 'faturas', 'faturar', 'fatura eletronica', 'cupom fiscal', 'documento fiscal'],
    es: ['factura', 'facturas', 'facturar', 'facturale', '=facturame', 'factura electronica', 'comprobante fiscal', 'timbrar', 'timbra', 'timbre', 'timbrado', 'boleta electronica', 'nota de venta', 'documento tributario'],
  },
  { id: 'obj.invoice_weak', gloss: 'a "nota" without the word fiscal, usually a fiscal document in commerce talk', pt: ['=nota', '=notas', '=notinha'] },
  {
    id: 'obj.invoice_correction',
    gloss: 'a correction letter or credit note amending a fiscal document',
    any: ['cce'],
    en: ['correction letter', 'credit note', 'credit memo'],
    pt: ['carta de correcao', 'carta correcao', 'nota de credito'],
    es: ['carta de correccion', 'nota de credito', 'factura rectificativa'],
  },
  { id: 'obj.service', gloss: 'services as opposed to goods', en: ['service', 'services', 'consulting', 'consultancy'], pt: ['servico', 'servicos', 'consultoria', 'prestacao de servico'], es: ['servicio', 'servicios', 'consultoria', 'honorarios'] },

  // ---------------------------------------------------------------- shipping
  {
    id: 'obj.shipping',
    gloss: 'shipping or freight',
    en: ['shipping', 'ship', 'ships', 'shipment', 'shipments', 'freight', 'postage', 'logistics', 'courier'],
    pt: ['frete', 'fretes', '=envio', '=envios', 'remessa de mercadoria', 'logistica', 'postagem', 'postar', 'despacho', 'despachar', '=entrega', '=entregas'],
    es: ['=envio', '=envios', 'flete', 'fletes', 'paqueteria', 'mensajeria', 'logistica', 'despacho', 'despachar', '=entrega', '=entregas', 'enviar paquete', 'enviar una caja', 'enviar un paquete', 'enviar caja'],
  },
  {
    id: 'obj.label',
    gloss: 'a shipping label or waybill',
    any: ['awb'],
    en: ['label', 'labels', 'waybill', 'shipping label', 'airway bill'],
    pt: ['etiqueta', 'etiquetas', 'etiqueta de envio', 'guia de remessa', 'declaracao de conteudo'],
    es: ['etiqueta', 'etiquetas', '=guia', '=guias', 'guia de envio', 'guia prepagada'],
  },
  {
    id: 'obj.parcel',
    gloss: 'a parcel or package',
    en: ['package', 'packages', 'parcel', 'parcels', 'box', 'boxes', 'delivery'],
    pt: ['pacote', 'pacotes', 'encomenda', 'encomendas', 'caixa de', 'volume', 'volumes', 'pacotinho'],
    es: ['paquete', 'paquetes', 'caja de', 'bulto', 'bultos', 'encomienda'],
  },
  {
    id: 'obj.carrier',
    gloss: 'a named carrier or shipping service',
    any: ['correios', 'sedex', '=pac', 'jadlog', 'loggi', 'estafeta', 'fedex', 'dhl', 'ups', 'usps', 'redpack', 'paquetexpress', 'servientrega', 'coordinadora', 'interrapidisimo', 'skydropx', 'andreani', 'chilexpress', 'starken', 'serpost', 'olva', 'kangu', 'frenet', 'intelipost', 'braspress', 'tnt', 'sequoia', 'buslog', '99minutos', 'envioclick', 'mandae'],
    en: ['carrier', 'carriers'],
    pt: ['transportadora', 'transportadoras', 'melhor envio', 'mercado envios', 'total express', 'azul cargo', 'correio', 'motoboy'],
    es: ['transportista', 'paqueteria', 'correo argentino', 'mercado envios', 'blue express', 'oca'],
  },
  {
    id: 'obj.delivered',
    gloss: 'whether a parcel arrived or was delivered',
    en: ['delivered', 'arrived', 'out for delivery', 'in transit', 'moved', 'on its way', 'on the way', 'arrive', 'arriving'],
    pt: ['entregue', 'entregou', 'entregaram', 'chegou', 'chegaram', 'saiu para entrega', 'em transito', 'extraviado', 'extraviou', 'a caminho', 'chegar', 'vai chegar'],
    es: ['entregado', 'entregada', 'entregaron', 'llego', 'llegaron', 'en transito', 'extraviado', 'en camino', 'llegar', 'va a llegar'],
  },
  {
    id: 'q.where_is',
    gloss: 'asking where something is',
    en: ['where is', 'wheres', 'where are'],
    pt: ['onde esta', 'onde ta', '=cade', 'onde anda', 'por onde anda'],
    es: ['donde esta', 'donde anda', 'donde quedo'],
  },
  {
    id: 'q.how_much',
    gloss: 'asking a price or amount',
    en: ['how much', 'price of', 'cost of', 'how much does', 'what does it cost'],
    pt: ['quanto custa', 'quanto fica', 'quanto sai', 'quanto e', 'qual o valor', 'qual valor', 'qual o preco', 'preco do'],
    es: ['cuanto cuesta', 'cuanto sale', 'cuanto es', 'cuanto cobran', 'cual es el precio', 'precio del', 'cuanto vale'],
  },
  {
    id: 'obj.postal_code',
    gloss: 'a postal code',
    any: ['cep', 'ceps', '=cp', 'zipcode'],
    en: ['zip code', 'postal code', 'postcode'],
    pt: ['codigo postal'],
    es: ['codigo postal', 'colonia', 'colonias'],
  },
  {
    id: 'obj.service_level',
    gloss: 'a shipping speed or service level',
    en: ['fastest', 'express', 'overnight', 'same day', 'next day', 'standard shipping', 'economy'],
    pt: ['mais rapido', 'mais rapida', 'expresso', 'economico', 'mesmo dia'],
    es: ['mas rapido', 'mas rapida', 'express', 'economico', 'mismo dia', 'dia siguiente'],
  },

  // ---------------------------------------------------------------- messaging
  { id: 'chan.whatsapp', gloss: 'WhatsApp', any: ['whatsapp', 'whatsap', 'by whats', 'on whats', 'via whats', 'no whats', 'pelo whats', 'por whats', 'um whats', 'o whats', 'meu whats', 'seu whats', 'del whats', 'al whats', 'watsapp', 'wpp', 'wsp', 'wap', 'zap', 'zapzap', 'zapp', 'wa', 'guasap', 'whatapp', 'wassap'], en: ['whats app'] },
  { id: 'chan.email', gloss: 'e-mail', any: ['email', 'emails', 'mail', 'mails', 'imeil'], en: ['e mail'], pt: ['correio eletronico'], es: ['correo', 'correos', 'correo electronico', 'mailito'] },
  { id: 'chan.sms', gloss: 'SMS text message', any: ['sms', 'smss'], en: ['text message', 'texts', '=text'], pt: ['mensagem de texto', 'torpedo', 'torpedos'], es: ['mensaje de texto', 'mensajito'] },
  {
    id: 'obj.message',
    gloss: 'a message or notification to a person',
    any: ['msg', 'msgs', 'mensage'],
    en: ['message', 'messages', 'notification', 'notifications', 'template', 'note to', 'dm'],
    pt: ['mensagem', 'mensagens', 'notificacao', 'notificacoes', 'recado', 'recadinho', 'aviso', 'template'],
    es: ['mensaje', 'mensajes', 'notificacion', 'notificaciones', 'recado', 'aviso', 'plantilla'],
  },

  // ---------------------------------------------------------------- crypto
  {
    id: 'obj.crypto',
    gloss: 'a cryptocurrency or stablecoin',
    any: ['usdc', 'usdt', 'btc', 'eth', 'matic', 'pyusd', 'busd', 'sats', 'xrp', 'ltc', 'ether', 'tether', 'bitcoin', 'bitcoins', 'ethereum', 'satoshi', 'satoshis', 'brla', 'brz', 'mxnb'],
    en: ['crypto', 'cryptocurrency', 'cryptocurrencies', 'stablecoin', 'stablecoins', 'stable coin', 'digital dollar', 'altcoin'],
    pt: ['cripto', 'criptomoeda', 'criptomoedas', 'criptoativo', 'criptoativos', 'moeda digital', 'dolar digital', 'stablecoin'],
    es: ['cripto', 'criptomoneda', 'criptomonedas', 'criptoactivo', 'criptoactivos', 'moneda digital', 'dolar digital', 'stablecoin'],
  },
  {
    id: 'obj.chain',
    gloss: 'a blockchain or token network',
    any: ['polygon', 'tron', 'trc20', 'erc20', 'bep20', 'solana', 'arbitrum', 'optimism', 'avalanche', 'bsc', 'blockchain', 'onchain', 'mainnet', 'testnet', 'lightning', 'web3', 'metamask'],
    en: ['on chain', 'base network', 'base chain', 'network fee', 'gas fee'],
    pt: ['rede base', 'na base', 'rede polygon', 'rede tron', '!rede'],
    es: ['red base', '!=red'],
  },
  { id: 'obj.crypto_exchange', gloss: 'a crypto exchange', any: ['binance', 'coinbase', 'bitso', 'kraken', 'foxbit', 'ripio', 'okx', 'bybit', 'novadax'], pt: ['mercado bitcoin'] },
  {
    id: 'obj.address',
    gloss: 'an address (postal, or a wallet address)',
    en: ['address', 'addresses'],
    pt: ['endereco', 'enderecos', '=endereço'],
    es: ['direccion', 'direcciones', 'domicilio'],
  },

  // ---------------------------------------------------------------- identity
  {
    id: 'obj.tax_id',
    gloss: 'a personal or company tax or identity number (CPF, CNPJ, RFC, NIT...)',
    any: ['cpf', 'cnpj', 'cpfs', 'cnpjs', 'rfc', 'curp', 'nit', 'rut', 'cuit', 'cuil', 'dni', 'ruc', 'rnc', '=rg', 'cnh', 'ine', 'ssn', 'ein'],
    en: ['tax id', 'taxpayer id', 'id number', 'national id'],
    pt: ['receita federal', 'situacao cadastral', 'inscricao estadual'],
    es: ['cedula', 'cedula de ciudadania', 'numero de identificacion', 'registro federal', 'rfc valido'],
  },
  {
    id: 'obj.identity',
    gloss: 'a person or company identity check (KYC/KYB)',
    any: ['kyc', 'kyb', 'aml', 'pep', 'peps', 'ofac', 'liveness', 'biometria', 'biometrics', 'biometric', 'selfie', 'selfies'],
    en: ['identity', 'identities', 'know your customer', 'due diligence', 'background check', 'who they say', 'who he says', 'who she says', 'who they claim', 'is who', 'id verification', 'face match', 'id document', 'id card', 'passport', 'drivers license'],
    pt: ['identidade', 'quem diz ser', 'quem diz que e', 'prova de vida', 'documento de identidade', 'carteira de identidade', 'passaporte', 'reconhecimento facial', 'biometria facial'],
    es: ['identidad', 'quien dice ser', 'prueba de vida', 'documento de identidad', 'pasaporte', 'credencial de elector', 'reconocimiento facial', 'licencia de conducir'],
  },
  {
    id: 'obj.verification',
    gloss: 'a verification process (identity, document or company check)',
    en: ['verification', 'verifications', 'validation check'],
    pt: ['verificacao', 'verificacoes', 'validacao cadastral'],
    es: ['verificacion', 'verificaciones'],
  },
  {
    id: 'obj.document',
    gloss: 'a document (often an identity document)',
    en: ['document', 'documents', 'authentic', 'forged', 'fake id'],
    pt: ['documento', 'documentos', 'autentico', 'autentica', 'falsificado', 'falso'],
    es: ['documento', 'documentos', 'autentico', 'autentica', 'falsificado', 'falso'],
  },
  {
    id: 'obj.sanctions',
    gloss: 'sanctions, watchlists and anti-money-laundering screening',
    en: ['sanction', 'sanctions', 'sanctioned', 'watchlist', 'watchlists', 'blacklist', 'money laundering', 'politically exposed', 'compliance', 'screening'],
    pt: ['sancao', 'sancoes', 'sancionado', 'lista restritiva', 'listas restritivas', 'lavagem de dinheiro', 'lista negra', 'pessoa politicamente exposta', 'compliance'],
    es: ['sancion', 'sanciones', 'sancionado', 'lista restrictiva', 'listas restrictivas', 'lista negra', 'listas negras', 'lavado de dinero', 'persona politicamente expuesta', 'lista de sanciones', 'cumplimiento'],
  },
  {
    id: 'obj.risk',
    gloss: 'risk or fraud scoring of a person or company',
    any: ['serasa', 'spc', 'buro'],
    en: ['risk score', 'risk', 'risky', 'fraud', 'fraudulent', 'fraudster', 'credit score', 'trustworthy', 'score'],
    pt: ['risco', 'score', 'fraude', 'fraudador', 'antifraude', 'confiavel', 'score de credito', 'pontuacao'],
    es: ['riesgo', 'score', 'puntaje', 'puntuacion', 'fraude', 'antifraude', 'confiable', 'buro de credito'],
  },
  {
    id: 'obj.validity',
    gloss: 'whether a number or company is valid or active',
    en: ['valid', 'invalid', 'active', 'legit', 'legitimate', 'genuine', 'in good standing'],
    pt: ['valido', 'valida', 'invalido', 'ativo', 'ativa', 'regular', 'irregular', 'legitimo'],
    es: ['valido', 'valida', 'invalido', 'activo', 'activa', 'vigente', 'legitimo'],
  },

  // ---------------------------------------------------------------- connections / profile
  {
    id: 'obj.profile',
    gloss: "a saved shopper profile or the details kept on file",
    en: ['profile', 'profiles', 'on file', 'saved details', 'my details', 'stored details', 'saved address', 'next time', 'future purchases', 'future orders', 'we have saved', 'do we have saved'],
    pt: ['perfil', 'perfis', 'cadastro', 'dados cadastrais', 'meus dados', 'proximas compras', 'dados salvos', 'proxima vez', 'pra proxima', 'para a proxima', 'proxima compra', 'futuras compras', 'dados guardados', 'dados do cliente'],
    es: ['perfil', 'perfiles', 'mis datos', 'datos guardados', 'proximas compras', 'registro de cliente', 'proxima vez', 'la proxima', 'proxima compra', 'futuras compras', 'datos tengo guardados', 'datos del cliente'],
  },
  { id: 'obj.account', gloss: 'an account (with a provider, a bank or in the books)', en: ['account', 'accounts'], pt: ['conta', 'contas'], es: ['cuenta', 'cuentas'] },
  {
    id: 'obj.provider_brand',
    gloss: 'a named payment provider or processor',
    any: ['stripe', 'mercadopago', 'asaas', 'conekta', 'pagseguro', 'pagbank', 'pagarme', 'iugu', 'ebanx', 'openpix', 'woovi', 'gerencianet', 'efi', 'starkbank', 'paypal', 'cielo', 'stone', 'getnet', 'wompi', 'payu', 'kushki', 'openpay', 'dlocal', 'adyen', 'zoop', 'vindi', 'picpay', 'celcoin', 'transfeera', 'belvo', 'pluggy', 'idwall', 'truora', 'metamap', 'twilio', 'zenvia', 'sendgrid', 'mailgun'],
    en: ['mercado pago', 'pagar me', 'stark bank'],
    pt: ['mercado pago', 'pagar me', 'pag seguro', 'stark bank'],
    es: ['mercado pago'],
  },
  {
    id: 'obj.platform_brand',
    gloss: 'a named store platform, marketplace or ERP',
    any: ['shopify', 'nuvemshop', 'tiendanube', 'vtex', 'woocommerce', 'magento', 'wix', 'shopee', 'amazon', 'magalu', 'americanas', 'olist', 'bling', 'omie', 'totvs', 'sap', 'erp', 'crm', 'hubspot', 'meli', 'linio', 'falabella', 'rappi', 'ifood', 'netsuite', 'salesforce'],
    en: ['mercado livre', 'mercado libre', 'google sheets', 'rd station', 'tiny erp'],
    pt: ['mercado livre', 'loja integrada', 'conta azul', 'tienda nube'],
    es: ['mercado libre', 'tienda nube'],
  },
  { id: 'obj.workspace', gloss: 'the workspace or project', en: ['workspace', 'project', 'this account'], pt: ['workspace', 'projeto', 'espaco de trabalho'], es: ['workspace', 'proyecto', 'espacio de trabajo'] },

  // ---------------------------------------------------------------- discovery
  {
    id: 'obj.tool',
    gloss: 'a tool, connector or API capability',
    en: ['tool', 'tools', 'connector', 'connectors', 'plugin', 'plugins', 'endpoint', 'endpoints', 'api', 'apis', 'capability', 'addon'],
    pt: ['ferramenta', 'ferramentas', 'conector', 'conectores', 'plugin', 'api', 'apis', '=tool', '=tools'],
    es: ['herramienta', 'herramientas', 'conector', 'conectores', 'plugin', 'api', 'apis', '=tool', '=tools'],
  },
  {
    id: 'obj.integration',
    gloss: 'an integration with another system',
    en: ['integration', 'integrations'],
    pt: ['integracao', 'integracoes'],
    es: ['integracion', 'integraciones'],
  },
  { id: 'obj.catalog', gloss: 'the catalog of available tools or providers', en: ['catalog', 'catalogue', 'tool list', 'list of tools', 'marketplace of tools'], pt: ['catalogo', 'lista de ferramentas'], es: ['catalogo', 'lista de herramientas'] },
  { id: 'obj.provider', gloss: 'a provider offering a capability', en: ['provider', 'providers', 'vendor', 'vendors', 'service provider'], pt: ['provedor', 'provedores', 'fornecedor de servico'], es: ['=proveedor', '=proveedores', 'proveedor de servicios'] },
  {
    id: 'q.is_there',
    gloss: 'asking whether something exists or is offered',
    en: ['is there', 'are there', 'do you have', 'do you support', 'do you offer', 'is it possible', 'any way to', '+which tool', '+which provider', '+which integration', '+which service', '+which providers', '+what providers', '+what provider', '+which integrations', '+what integrations', '+which api', '+what api', '+any provider', '+any integration', 'what options', 'which options', 'any options', 'anything for that', 'anything for this', 'any solution', 'is anything'],
    pt: ['existe', 'existem', 'tem algum', 'tem alguma', 'voces tem', 'ha algum', 'ha alguma', '+qual ferramenta', '+qual integracao', '+qual provedor', '+que ferramenta', '+quais provedores', '+quais ferramentas', '+quais integracoes', '+que provedor', '+qual api', '+algum provedor', '+alguma integracao', '+alguma ferramenta', 'quais opcoes', 'que opcoes', 'alguma opcao', 'alguma solucao', 'vcs tem', 'da pra'],
    es: ['hay alguna', 'hay algun', 'hay algo', 'existe', 'existen', 'tienen', 'tienes alguna', 'tienes algun', '+que herramienta', '+cual herramienta', '+que integracion', '+cual integracion', '+que proveedor', '+cual proveedor', '+que proveedores', '+cuales proveedores', '+que integraciones', '+algun proveedor', '+alguna herramienta', '+algun servicio', '+que api', 'que opciones', 'alguna opcion', 'alguna solucion', 'se puede'],
  },
  {
    id: 'q.unknown_name',
    gloss: 'the speaker does not know what the tool is called',
    en: ['dont know what', 'do not know what', 'not sure what', 'not sure which', 'dont know which', 'which one to use', 'dont know the name', 'whatever it is called', 'something that', 'anything that', 'something to', 'something for'],
    pt: ['nao sei o nome', 'nao sei qual', 'nao sei como se chama', 'algo que', 'alguma coisa que', 'algo pra', 'algo para', 'qualquer coisa que'],
    es: ['no se como se llama', 'no se el nombre', 'no se cual', 'algo que', 'algo para', 'alguna cosa que'],
  },
  {
    id: 'obj.lookup_data',
    gloss: 'reference data or a back-office capability outside the core rails (rates, holidays, codes, stock, reviews)',
    en: ['exchange rate', 'exchange rates', 'fx rate', 'holiday', 'holidays', 'business days', 'bank codes', 'inventory', 'stock levels', 'reviews', 'loyalty', 'coupon', 'coupons', 'discount', 'report', 'reports', 'taxes', 'tax rate', 'sync', 'synchronize', 'publish', 'listing', 'listings', 'lookup table', 'street address', 'import', 'importing', 'export', 'pull orders', 'vehicle', 'license plate', 'plate data', 'geocode', 'geocoding', 'open finance', 'payroll'],
    pt: ['cotacao do dolar', 'cotacao do euro', 'taxa de cambio', 'cambio', 'feriado', 'feriados', 'dias uteis', 'codigos de banco', 'codigos bancarios', 'estoque', 'avaliacoes', 'fidelidade', 'cupom', 'cupons', 'desconto', 'relatorio', 'relatorios', 'impostos', 'imposto', 'icms', 'sincronizar', 'sincroniza', 'publicar', 'publica', 'anuncios', 'tabela fipe', 'fipe', 'reclame aqui', 'importar', 'exportar', 'placa', 'veiculo', 'geolocalizacao', 'open finance', 'folha de pagamento'],
    es: ['tipo de cambio', 'feriado', 'feriados', 'dias habiles', 'codigos bancarios', 'inventario', 'existencias', 'resenas', 'lealtad', 'cupon', 'cupones', 'descuento', 'reporte', 'reportes', 'informe', 'impuestos', 'impuesto', 'iva', 'isr', 'sincronizar', 'sincroniza', 'publicar', 'publica', 'banxico', 'importar', 'exportar', 'placa', 'vehiculo', 'geolocalizacion', 'nomina'],
  },

  // ---------------------------------------------------------------- getting started
  {
    id: 'gs.start',
    gloss: 'how to get started',
    en: ['get started', 'getting started', 'start using', 'where do i begin', 'where to start', 'where do i start', 'where should i begin', 'where should i start', 'where can i start', 'how should i start', 'how do i start', 'how do i begin', 'how to start', 'what should i do first', 'do first', 'first thing'],
    pt: ['por onde comeco', 'por onde comecar', 'como comeco', 'como comecar', 'comecar a usar', 'como eu comeco', 'o que faco primeiro', 'primeiro passo', 'primeira coisa'],
    es: ['como empiezo', 'como empezar', 'por donde empiezo', 'empezar a usar', 'como comienzo', 'que hago primero', 'primer paso', 'hacer primero', 'para arrancar'],
  },
  {
    id: 'gs.new',
    gloss: 'the speaker is new to the platform',
    en: ['new here', 'im new', 'i am new', 'first time', 'just signed up', 'newbie', 'beginner', 'new user', 'just created my account', 'just registered', 'just joined', 'what now', 'what next', 'whats next'],
    pt: ['sou novo', 'sou nova', 'primeira vez', 'acabei de criar', 'iniciante', 'novato', 'novata', 'to comecando', 'estou comecando', 'acabei de me cadastrar', 'me cadastrei agora', 'acabei de entrar', 'e agora', 'proximo passo', 'e depois'],
    es: ['soy nuevo', 'soy nueva', 'primera vez', 'acabo de crear', 'principiante', 'novato', 'novata', 'estoy empezando', 'acabo de registrarme', 'me acabo de registrar', 'que sigue', 'y ahora que', 'siguiente paso'],
  },
  {
    id: 'gs.steps',
    gloss: 'a walkthrough, tutorial or first steps',
    en: ['first steps', 'step by step', 'walkthrough', 'walk me through', 'quickstart', 'quick start', 'tutorial', 'guide', 'onboarding process', 'happy path', 'initial setup'],
    pt: ['primeiros passos', 'passo a passo', 'tutorial', '=guia', 'configuracao inicial', 'passo inicial'],
    es: ['primeros pasos', 'paso a paso', 'tutorial', 'guia de inicio', 'configuracion inicial'],
  },
  {
    id: 'gs.setup',
    gloss: 'configure or set up the platform',
    en: ['setup', 'configure', 'configuration', 'install', 'installation', 'integrate', 'set up'],
    pt: ['configurar', 'configura', 'configure', 'configuro', 'configuracao', 'instalar', 'integrar', 'setup'],
    es: ['configurar', 'configura', 'configuro', 'configuracion', 'instalar', 'integrar', 'setup'],
  },
  {
    id: 'gs.overview',
    gloss: 'asking what the platform can do',
    en: ['what can you do', 'what do you do', 'what can this do', 'what do you support', 'what you support', 'what do you offer', 'what you offer', 'overview', 'features', 'capabilities', 'how does this work', 'how does it work', 'how this works', 'what is this', 'everything you support', 'what is possible', 'what else can you do', 'whats supported', 'what is supported', 'what are supported', 'give me a tour', 'tour of'],
    pt: ['o que voce consegue fazer', 'o que voce faz', 'o que voces fazem', 'o que voce pode fazer', 'o que da pra fazer', 'o que consegue fazer', 'visao geral', 'funcionalidades', 'recursos', 'como funciona', 'o que e isso', 'o que voces oferecem', 'oferecem', 'o que e suportado', 'o que voces suportam', 'o que essa plataforma faz', 'o que a plataforma faz'],
    es: ['que puedes hacer', 'que pueden hacer', 'que haces', 'que hacen', 'vision general', 'resumen general', 'funcionalidades', 'funciones', 'como funciona', 'que es esto', 'que ofrecen', 'ofrecen', 'que se puede hacer', 'que soportan', 'lo que ofrece', 'que ofrece'],
  },
  {
    id: 'gs.sandbox',
    gloss: 'a sandbox or test environment',
    any: ['sandbox'],
    en: ['test environment', 'test mode', 'testing environment', 'test account', 'test project'],
    pt: ['ambiente de teste', 'ambiente de testes', 'modo de teste', 'conta de teste', 'homologacao'],
    es: ['entorno de pruebas', 'ambiente de pruebas', 'modo de prueba', 'cuenta de prueba', 'cuenta de pruebas'],
  },
  {
    id: 'gs.api_key',
    gloss: 'an API key or credential for the platform',
    en: ['api key', 'api keys', 'api token', 'secret key', 'access key'],
    pt: ['chave de api', 'chave da api', 'chave api', 'token de api', 'token da api'],
    es: ['clave de api', 'llave de api', 'clave api', 'token de api'],
  },
  { id: 'gs.platform', gloss: 'the platform itself', en: ['platform', 'this service', 'this system', 'this thing'], pt: ['plataforma', 'sistema', 'isso aqui', 'usar isso'], es: ['plataforma', 'sistema', 'usar esto', 'con esto'] },

  // ---------------------------------------------------------------- parties
  {
    id: 'party.customer',
    gloss: 'a customer or buyer',
    en: ['customer', 'customers', 'client', 'clients', 'buyer', 'buyers', 'shopper', 'shoppers', 'consumer', 'subscriber', 'subscribers', 'payer', 'patient', 'student', 'tenant'],
    pt: ['cliente', 'clientes', 'comprador', 'compradora', 'compradores', 'consumidor', 'assinante', 'assinantes', 'pagador', 'aluno', 'aluna', 'paciente', 'inquilino'],
    es: ['cliente', 'clientes', 'comprador', 'compradora', 'compradores', 'consumidor', 'suscriptor', 'suscriptores', 'pagador', 'alumno', 'paciente', 'inquilino'],
  },
  {
    id: 'party.supplier',
    gloss: 'a supplier or someone the business pays',
    en: ['supplier', 'suppliers', 'vendor', 'landlord', 'freelancer', 'contractor', 'contractors'],
    pt: ['fornecedor', 'fornecedores', 'fornecedora', 'prestador', 'prestadora', 'locador', 'freelancer', 'terceirizado'],
    es: ['=proveedor', '=proveedores', '=proveedora', 'arrendador', 'contratista', 'freelancer', 'casero'],
  },
  {
    id: 'party.staff',
    gloss: 'staff, a team or an employee of the business',
    en: ['employee', 'employees', 'staff', 'team', 'new hire', 'hire', 'colleague', 'cardholder', 'cardholders', 'department', 'marketing', 'finance team', 'ops team', 'sales team', 'driver', 'manager'],
    pt: ['funcionario', 'funcionaria', 'funcionarios', 'colaborador', 'colaboradora', 'colaboradores', 'equipe', 'time de', 'portador', 'departamento', 'setor', 'marketing', 'financeiro', 'gerente', 'motorista'],
    es: ['empleado', 'empleada', 'empleados', 'colaborador', 'colaboradora', 'equipo', 'personal', 'titular', 'departamento', 'area de', 'marketing', 'gerente', 'chofer'],
  },
  {
    id: 'party.seller',
    gloss: 'a seller or merchant being onboarded',
    en: ['seller', 'sellers', 'merchant', 'merchants', 'business partner', 'sub merchant'],
    pt: ['vendedor', 'vendedora', 'vendedores', 'lojista', 'lojistas', 'parceiro', 'seller', 'estabelecimento'],
    es: ['vendedor', 'vendedora', 'vendedores', 'comerciante', 'comercio', 'socio', 'seller'],
  },
  { id: 'party.company', gloss: 'a company', en: ['company', 'companies', 'business', 'firm'], pt: ['empresa', 'empresas', 'companhia', 'pj'], es: ['empresa', 'empresas', 'compania', 'negocio'] },

  // ---------------------------------------------------------------- shopping
  {
    id: 'obj.store',
    gloss: 'a store or marketplace',
    en: ['store', 'stores', 'shop', 'shops', 'online store', 'marketplace', 'marketplaces', 'retailer', 'retailers', 'ecommerce', 'e commerce'],
    pt: ['loja', 'lojas', 'loja online', 'loja virtual', 'marketplace', 'varejista', 'ecommerce'],
    es: ['tienda', 'tiendas', 'tienda en linea', 'tienda online', 'marketplace', 'comercio electronico', 'ecommerce'],
  },
  {
    id: 'obj.cheap',
    gloss: 'the cheapest or best price',
    en: ['cheap', 'cheaper', 'cheapest', 'best price', 'lowest price', 'affordable', 'best deal', 'on sale'],
    pt: ['barato', 'barata', 'baratos', 'mais barato', 'mais barata', 'melhor preco', 'menor preco', 'promocao', 'em conta'],
    es: ['barato', 'barata', 'baratos', 'mas barato', 'mas barata', 'mejor precio', 'menor precio', 'oferta', 'economica'],
  },
  {
    id: 'obj.product',
    gloss: 'products or items',
    en: ['product', 'products', 'item', 'items', 'goods', 'sku'],
    pt: ['produto', 'produtos', 'item', 'itens', 'mercadoria', 'mercadorias'],
    es: ['producto', 'productos', 'articulo', 'articulos', 'item', 'items', 'mercancia'],
  },
  {
    id: 'obj.goods',
    gloss: 'a consumer good someone might shop for',
    en: ['earbuds', 'headphones', 'headset', 'tv', 'television', 'laptop', 'notebook', 'phone', 'smartphone', 'iphone', 'charger', 'shoes', 'sneakers', 'shirt', 'tshirt', 'hoodie', 'cap', 'caps', 'jacket', 'diapers', 'blender', 'air fryer', 'coffee maker', 'beer', 'mouse', 'keyboard', 'chair', 'backpack', 'fan', 'fridge', 'microwave', 'dog food', 'cat food', 'batteries', 'perfume', 'watch', 'monitor', 'tablet', 'camera', 'toy', 'toys', 'groceries', 'console'],
    pt: ['fone', 'fones', 'televisao', 'tv', 'notebook', 'celular', 'smartphone', 'carregador', 'tenis', 'sapato', 'camiseta', 'camisetas', 'camisa', 'moletom', 'bone', 'fralda', 'fraldas', 'liquidificador', 'fritadeira', 'airfryer', 'cafeteira', 'cerveja', 'latas', 'mouse', 'teclado', 'cadeira', 'mochila', 'ventilador', 'geladeira', 'microondas', 'racao', 'pilhas', 'perfume', 'relogio', 'monitor', 'tablet', 'camera', 'brinquedo', 'capinha', 'videogame'],
    es: ['audifonos', 'auriculares', 'television', 'televisor', 'pantalla', 'laptop', 'celular', 'smartphone', 'cargador', 'tenis', 'zapatos', 'zapatillas', 'playera', 'camiseta', 'camisa', 'sudadera', 'gorra', 'panales', 'licuadora', 'freidora', 'cafetera', 'cerveza', 'mouse', 'teclado', 'silla', 'mochila', 'ventilador', 'refrigerador', 'microondas', 'croquetas', 'pilas', 'perfume', 'reloj', 'monitor', 'tableta', 'camara', 'juguete', 'consola'],
  },
  {
    id: 'obj.product_spec',
    gloss: 'a product size or specification',
    any: ['gb', 'tb', 'ram', 'ssd', 'usbc', 'usb', 'hdmi', 'inch', 'inches', '4k', 'polegadas', 'pulgadas'],
    en: ['size', 'sized'],
    pt: ['tamanho', 'numero'],
    es: ['talla', 'tamano', 'etapa'],
  },
  {
    id: 'obj.cart',
    gloss: 'a shopping cart',
    en: ['cart', 'carts', 'basket', 'shopping bag'],
    pt: ['carrinho', 'carrinhos', 'cesta', 'sacola'],
    es: ['carrito', 'carritos', 'canasta', 'cesta', 'bolsa de compras'],
  },
  {
    id: 'obj.checkout',
    gloss: 'a hosted checkout, payment page or payment link',
    en: ['checkout', 'checkouts', 'check out', 'payment link', 'payment links', 'pay link', 'paylink', 'payment page', 'payment pages', 'hosted page', 'hosted checkout', 'checkout page', 'checkout link', 'checkout session', 'chekout', 'link to pay', 'link they can pay', 'shareable link'],
    pt: ['checkout', 'link de pagamento', 'links de pagamento', 'link pagamento', 'link de pgto', 'link de pagto', 'link para pagamento', 'pagina de pagamento', 'pagina de checkout', 'checkout hospedado', 'chekout', 'pagina de cobranca', 'link de cobranca', 'link pra pagar', 'link para pagar'],
    es: ['checkout', 'link de pago', 'links de pago', 'liga de pago', 'enlace de pago', 'enlaces de pago', 'pagina de pago', 'pagina de checkout', 'boton de pago', 'chekout', 'pagina de cobro', 'link de cobro', 'liga de cobro', 'enlace de cobro'],
  },
  { id: 'obj.hosted', gloss: 'hosted by the platform', en: ['hosted'], pt: ['hospedado', 'hospedada'], es: ['hospedado', 'hospedada', 'alojado', 'alojada'] },
  { id: 'obj.link', gloss: 'a link', en: ['link', 'links', 'url'], pt: ['link', 'links', 'url'], es: ['link', 'links', 'enlace', '!=liga', 'url'] },
  {
    id: 'obj.order',
    gloss: 'an order (as a noun: a sale or purchase record)',
    en: ['order', 'orders', 'sale', 'purchase order'],
    pt: ['pedido', 'pedidos', 'venda', 'vendas', 'compra', 'compras'],
    es: ['pedido', 'pedidos', 'orden', 'ordenes', 'venta', 'ventas', 'compra', 'compras'],
  },

  // ---------------------------------------------------------------- charge-side details
  {
    id: 'obj.due',
    gloss: 'a due date or expiry',
    en: ['due', 'due date', 'expires', 'expire', 'expiring', 'expiry', 'expiration', 'deadline'],
    pt: ['vencimento', 'vence', 'vencer', 'vencendo', 'venca', 'validade', 'expira', 'prazo', 'ate dia', 'ate o dia', 'pagar ate'],
    es: ['vencimiento', 'vence', 'vencer', 'venza', 'expira', 'caduca', 'fecha limite', 'plazo', 'hasta el dia', 'pagar antes'],
  },
  {
    id: 'obj.recurring',
    gloss: 'a recurring or subscription charge',
    en: ['monthly', 'recurring', 'subscription', 'subscriptions', 'weekly', 'yearly', 'membership', 'tuition'],
    pt: ['mensal', 'mensalidade', 'mensalidades', 'recorrente', 'recorrencia', 'assinatura', 'assinaturas', 'semanal', 'anual'],
    es: ['mensual', 'mensualidad', 'mensualidades', 'recurrente', 'suscripcion', 'suscripciones', 'semanal', 'anual', 'colegiatura'],
  },
  {
    id: 'obj.installments',
    gloss: 'paying in instalments',
    any: ['msi'],
    en: ['installment', 'installments', 'instalment', 'instalments'],
    pt: ['parcela', 'parcelas', 'parcelado', 'parcelada', 'parcelamento', 'parcelar', 'prestacoes'],
    es: ['cuota', 'cuotas', 'meses sin intereses', 'parcialidades', 'plazos'],
  },

  // ---------------------------------------------------------------- cards issued to the business
  { id: 'obj.virtual', gloss: 'virtual (as in a virtual card)', en: ['virtual'], pt: ['virtual', 'virtuais'], es: ['virtual', 'virtuales'] },
  { id: 'obj.physical', gloss: 'physical (as in a plastic card)', en: ['physical', 'plastic'], pt: ['fisico', 'fisica', 'fisicos'], es: ['fisica', 'fisico', 'fisicas'] },
  { id: 'obj.corporate', gloss: 'corporate or for business spending', en: ['corporate', 'company card', 'business card', 'expense card', 'expenses card', 'prepaid', 'spend card'], pt: ['corporativo', 'corporativa', 'empresarial', 'pre pago', 'prepago', 'cartao da empresa'], es: ['corporativa', 'corporativo', 'empresarial', 'prepagada', 'prepago', 'tarjeta de la empresa'] },
  { id: 'obj.single_use', gloss: 'single-use or disposable', en: ['single use', 'one time', 'disposable', 'burner'], pt: ['uso unico', 'descartavel', 'temporario', 'temporaria'], es: ['uso unico', 'desechable', 'temporal', 'un solo uso'] },
  { id: 'obj.limit', gloss: 'a spending limit', en: ['limit', 'limits', 'spending limit'], pt: ['limite', 'limites'], es: ['limite', 'limites', 'tope'] },
  { id: 'obj.lost', gloss: 'lost or stolen', en: ['lost', 'stolen', 'misplaced'], pt: ['perdido', 'perdi', 'roubado', 'furtado', 'extraviado'], es: ['perdida', 'perdi', 'robada', 'robado', 'extraviada'] },
  { id: 'obj.card_ending', gloss: 'a card referred to by its last digits', en: ['ending in', 'ends in', 'last four digits'], pt: ['terminado em', 'termina em', 'com final', 'cartao final'], es: ['termina en', 'con terminacion', 'que termina'] },

  // ---------------------------------------------------------------- status questions
  {
    id: 'q.status',
    gloss: 'asking about the status or outcome of something',
    en: ['status', 'went through', 'go through', 'gone through', 'did it arrive', 'completed', 'complete', 'confirmed', 'approved', 'processed', 'pending', 'succeeded', 'failed'],
    pt: ['status', 'situacao', '=caiu', 'ja caiu', 'concluido', 'concluida', 'confirmado', 'confirmada', 'aprovado', 'aprovada', 'processado', 'pendente', 'deu certo', 'andamento'],
    es: ['estatus', 'status', 'estado', 'completo', 'completado', 'completada', 'confirmado', 'confirmada', 'confirmo', 'aprobado', 'aprobada', 'procesado', 'pendiente', 'se completo', 'paso'],
  },

  // ---------------------------------------------------------------- off-topic context
  {
    id: 'ctx.offtopic',
    gloss: 'chit-chat or a task unrelated to commerce',
    en: ['joke', 'jokes', 'poem', 'poems', 'haiku', 'song', 'lyrics', 'story', 'weather', 'forecast', 'recipe', 'translate', 'translation', 'movie', 'movies', 'film', 'series', 'music', 'football', 'soccer', 'world cup', 'capital', 'president', 'who won', 'painted', 'paint', 'homework', 'css', 'html', 'python', 'javascript', 'linked list', 'div', 'sql query', 'summarize', 'summary', 'essay', 'flight', 'hotel', 'trip', 'vacation', 'horoscope', 'meaning of life', 'what time', 'time is it', 'jazz', 'fun fact', 'trivia', 'shopping list', 'grocery list', 'to do list', 'bored', 'universe', 'cover letter', 'birthday', 'party ideas', 'alarm', 'tallest', 'highest', 'how tall', 'how old'],
    pt: ['piada', 'piadas', 'poema', 'poemas', 'poesia', 'musica', 'letra de', 'historia', 'previsao do tempo', 'clima', 'traduz', 'traduzir', 'traducao', 'filme', 'filmes', 'serie', 'futebol', 'copa', 'capital', 'presidente', 'quem ganhou', 'quem descobriu', 'bolo', 'voo', 'passagem aerea', 'viagem', 'ferias', 'horoscopo', 'que horas', 'resumo', 'resumir', 'redacao', 'escreve', 'escrever', 'curiosidade', 'lista de compras', 'lista de mercado', 'churrasco', 'sentido da vida', 'raiz quadrada', 'entediado', 'aniversario', 'me conta', 'reuniao'],
    es: ['chiste', 'chistes', 'poema', 'poemas', 'poesia', 'cancion', 'cuento', 'historia', 'clima', 'pronostico', 'receta', 'recetas', 'traduce', 'traducir', 'traduccion', 'pelicula', 'peliculas', 'serie', 'futbol', 'mundial', 'capital', 'presidente', 'quien gano', 'pinto', 'pintor', 'vuelo', 'hotel', 'viaje', 'vacaciones', 'horoscopo', 'que hora', 'resumen', 'resume', 'resumir', 'ensayo', 'escribe', 'escribeme', 'escribir', 'dato curioso', 'lista del super', 'lista de compras', 'partido', 'montana', 'cumpleanos', 'fiesta', 'cuentame', 'habitantes', 'significa', 'relatividad', 'aburrido'],
  },
  {
    id: 'ctx.greeting',
    gloss: 'a greeting or thanks with no request',
    en: ['how are you', 'good morning', 'thats all', 'thank you'],
    pt: ['bom dia', 'boa tarde', 'boa noite', 'tudo bem', 'valeu', 'so isso', 'muito obrigado'],
    es: ['buenos dias', 'buenas tardes', 'como estas', 'eso es todo', 'muchas gracias'],
  },
];
