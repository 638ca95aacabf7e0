import { fold } from './normalize';
import { stem, type Lang } from './stem';

/**
 * A word-for-word Portuguese and Spanish to English glossary of the words
 * people use when they ask a tool to do something: verbs of actions, the
 * things acted on, and the everyday nouns and adjectives of requests (time,
 * places, people, media, money). `renderQuery` uses it for the words of a
 * request that the concepts do not explain, and in place of a broad
 * concept's English terms when a single word has its own translation here.
 *
 * Each line: `english: portuguese words / spanish words`. The English side
 * may hold two or three words (the first is the usual rendering). Words are
 * matched by their Snowball stem in their own language, so one form stands
 * for its inflections ("reembolsar" also catches "reembolsa", "reembolsos").
 * A word written `=word` matches that exact word only, before any stem: the
 * noun "agenda" (a calendar) shares its stem with "agendar" (to schedule).
 */
const TABLE = `
refund: estornar estorno reembolsar reembolso devolver devolucao / reembolsar reembolso devolver devolucion
cancel: cancelar cancelamento anular / cancelar cancelacion anular
create: criar crie cria / crear creacion
make: fazer faca / hacer haz hace
generate: gerar gere / generar genera
issue: emitir emissao / emitir emision
stamp: carimbar / timbrar timbrado
send: enviar envio mandar disparar / enviar envio mandar
receive: receber recebimento recebido / recibir recibido
get: obter pegar / obtener conseguir traer
fetch: buscar / traer
search: pesquisar pesquisa procurar / buscar busqueda
find: encontrar achar descobrir / encontrar hallar descubrir averiguar
look up: consultar consulta / consultar consulta
check: verificar checar conferir / verificar revisar comprobar chequear
validate: validar validacao / validar validacion
show: mostrar exibir / mostrar ensenar
see: ver veja / ver mirar
list: listar lista listagem / listar lista listado
read: ler leitura / leer lectura
write: escrever redigir / escribir redactar
update: atualizar atualizacao alterar / actualizar actualizacion modificar
change: mudar trocar / cambiar
edit: editar / editar
delete: apagar excluir deletar remover / borrar eliminar suprimir quitar
add: adicionar acrescentar incluir / agregar anadir incluir
register: cadastrar cadastro registrar / registrar registro
open: abrir abertura / abrir apertura
close: fechar fechamento encerrar / cerrar cierre
start: iniciar comecar / iniciar empezar comenzar
stop: parar interromper / detener parar
pay payment: pagar pagamento / pagar pago abonar
charge: cobrar cobranca / cobrar cobro cargo
collect: arrecadar / recaudar recaudo
transfer: transferir transferencia / transferir transferencia
move: mover movimentar / mover
withdraw: sacar saque / retirar retiro
deposit: depositar deposito / depositar deposito
buy purchase: comprar compra / comprar compra
sell sale: vender venda / vender venta
order: pedido / pedido orden
quote: cotar cotacao orcamento / cotizar cotizacion presupuesto
price: preco / precio
rate: taxa tarifa / tasa tarifa
fee: tarifa / comision
cost: custo / costo coste
value: valor / valor
amount: montante quantia / monto importe cantidad
balance: saldo / saldo
account: conta / cuenta
bank: banco bancario bancaria / banco bancario bancaria
card: cartao / tarjeta
cash: dinheiro / efectivo dinero
money: grana / plata
currency: moeda / moneda divisa
exchange: cambio / cambio
entry: lancamento / asiento
statement: extrato / extracto
transaction: transacao / transaccion
report: relatorio / informe reporte
result: resultado / resultado
history: historico / historial
record: registro / registro
file: arquivo / archivo fichero
document: documento / documento
download: baixar download / descargar bajar
upload: subir carregar / subir cargar
print: imprimir impressao / imprimir impresion
label: etiqueta / etiqueta
invoice: fatura / factura
receipt: recibo comprovante / recibo =comprobante =comprobantes
tax: imposto tributo / impuesto tributo
taxpayer: contribuinte / contribuyente
company: empresa companhia / empresa compania
business: negocio / negocio
customer: cliente / cliente
buyer: comprador / comprador
seller: vendedor lojista / vendedor
supplier: fornecedor / proveedor
recipient: recebedor destinatario / destinatario beneficiario
person: pessoa / persona
user: usuario / usuario
employee: funcionario colaborador / empleado
contact: contato / contacto
name: nome / nombre
address: endereco / direccion domicilio
street: rua avenida / calle avenida
city: cidade / ciudad
state: estado / estado
country: pais / pais
zip code: cep / postal
code: codigo / codigo
number: numero / numero
phone: telefone celular / telefono celular movil
email: correio email / correo email
message: mensagem / mensaje
template: modelo template / plantilla
menu: menu / menu
option: opcao / opcion
button: botao / boton
interactive: interativo / interactivo
question: pergunta duvida / pregunta duda
answer: responder resposta / responder respuesta
reply: retornar / contestar
comment: comentario / comentario
review: avaliacao resenha / resena valoracion
rating: classificacao / calificacion puntuacion
statistics: estatistica metricas / estadistica metricas
click: clique / clic
marketing: marketing / marketing
campaign: campanha / campana
ad: anuncio / anuncio
listing: anuncio / publicacion
category: categoria / categoria
suggest: sugerir sugestao / sugerir sugerencia
predict: prever previsao / predecir prediccion
recommend: recomendar recomendacao / recomendar recomendacion
product: produto / producto
item: item / articulo
stock: estoque / inventario existencias
warehouse: deposito armazem / almacen bodega
store: loja / tienda
shop: comercio / comercio
convenience store: conveniencia / conveniencia
marketplace: marketplace / marketplace
cart: carrinho / carrito
shipping: frete envio / envio flete
shipment: remessa / envio
package: pacote encomenda volume / paquete paqueteria bulto
parcel: encomenda / paquete
delivery: entrega / entrega
deliver: entregar / entregar
pickup: coleta retirada / recoleccion recogida
schedule: agendar / programar agendar
calendar: calendario =agenda =agendas / calendario =agenda =agendas
appointment: compromisso consulta / cita
meeting: reuniao / reunion
track: rastrear rastreio rastreamento / rastrear rastreo seguimiento
coverage: cobertura / cobertura
area: area regiao / area region comuna zona
route: rota / ruta
map: mapa / mapa
distance: distancia / distancia
near: perto proximo / cerca
location: localizacao local / ubicacion lugar
trip: viagem / viaje
travel: viajar / viajar
flight: voo / vuelo
bus: onibus / autobus colectivo
train: trem / tren
ticket: passagem passagens bilhete ingresso ingressos / boleto boletos billete tiquete tiquetes
seat: assento poltrona / butaca
reserve book: reservar reserva / reservar reserva
room: quarto quartos / habitacion cuarto
available: disponivel disponiveis / disponible disponibles
therapist: terapeuta / terapeuta
salon: salao / salon
hotel: hotel hospedagem / hotel alojamiento
car: carro / coche auto
airport: aeroporto / aeropuerto
weather: clima meteorologia / clima meteorologia
forecast: previsao / pronostico
today: hoje / hoy
tomorrow: amanha / manana
yesterday: ontem / ayer
week: semana / semana
month: mes / mes
year: ano / ano
day: dia / dia
date: data / fecha
time: hora horario / hora horario
now: agora / ahora
current: atual / actual
last: ultimo passado / ultimo pasado
next: proximo / siguiente proximo
new: novo / nuevo
old: antigo velho / antiguo viejo
first: primeiro / primero
approved: aprovado / aprobado
approval approve: aprovacao aprovar / aprobacion aprobar
paid: pago quitado / pagado
pending: pendente / pendiente
issued: emitido / emitido
connected: conectado / conectado
status: situacao / estado situacion
background check: antecedentes / antecedentes
criminal: criminais penal / penales penal
identity: identidade / identidad
face: rosto / rostro cara
photo: foto / foto
image: imagem / imagen
picture: figura / imagen
video: video / video
music: musica / musica
song: cancao / cancion
movie: filme / pelicula
series: serie / serie
watch: assistir / ver mirar
book: livro / libro
news: noticia noticias / noticia noticias
article: artigo / articulo
text: texto / texto
word: palavra / palabra
language: idioma lingua / idioma lengua
translate: traduzir traducao / traducir traduccion
summarize: resumir resumo / resumir resumen
explain: explicar explicacao / explicar explicacion
learn: aprender / aprender
teach: ensinar / ensenar
course: curso / curso
school: escola / escuela
student: aluno estudante / alumno estudiante
child: filho crianca / hijo nino
game: jogo / juego
play: jogar brincar / jugar
player: jogador / jugador
team: time equipe / equipo
sport: esporte / deporte
football: futebol / futbol
recipe: receita / receta
food: comida / comida
meal: refeicao / comida
restaurant: restaurante / restaurante
drink: bebida / bebida
health: saude / salud
doctor: medico / medico
exercise: exercicio / ejercicio
job: emprego vaga / empleo trabajo
work: trabalho / trabajo
resume: curriculo / curriculum
house: casa imovel / casa vivienda inmueble
rent: aluguel alugar / alquiler alquilar
clothes: roupa / ropa
gift: presente / regalo
stock market: bolsa / bolsa
investment: investimento / inversion
crypto: cripto criptomoeda / cripto criptomoneda
wallet: carteira / billetera cartera
insurance: seguro / seguro
loan: emprestimo / prestamo
credit: credito / credito
debt: divida / deuda
website: site pagina / sitio web pagina
page: pagina / pagina
link: link / enlace
web: web / web
internet: internet / internet
traffic: trafego / trafico
security: seguranca / seguridad
vulnerability: vulnerabilidade / vulnerabilidad
scan: escanear varredura / escanear
performance: desempenho / rendimiento
data: dados / datos
table: tabela / tabla
chart: grafico / grafico
diagram: diagrama / diagrama
query: consulta / consulta
convert: converter conversao / convertir conversion
calculate: calcular calculo / calcular calculo
compare: comparar comparacao / comparar comparacion
analyze: analisar analise / analizar analisis
measure: medir medicao / medir medicion
count: contar contagem / contar conteo
sum: somar soma / sumar suma
test: testar teste / probar prueba
sandbox: homologacao / pruebas
draw: desenhar / dibujar
design: design projeto / diseno
logo: logo logotipo / logo logotipo
color: cor / color
font: fonte / fuente
brand: marca / marca
domain: dominio / dominio
enrich: enriquecer / enriquecer
import: importar / importar
export: exportar / exportar
sync: sincronizar / sincronizar
connect: conectar conexao integrar / conectar conexion integrar
token: token / token
key: chave / clave llave
password: senha / contrasena clave
login: login entrar / login
sign: assinar / firmar firma
contract: contrato / contrato
help: ajuda ajudar / ayuda ayudar
support: suporte / soporte
plan: plano / plan
subscription: assinatura / suscripcion
recurring: recorrente / recurrente
installment: parcela parcelado / cuota
discount: desconto / descuento
coupon: cupom / cupon
split: dividir / dividir
return: devolucao retorno / devolucion retorno
fraud: fraude / fraude
risk: risco / riesgo
score: pontuacao score / puntaje
limit: limite / limite
notify: notificar notificacao avisar / notificar notificacion avisar
alert: alerta / alerta
call: ligar ligacao chamada / llamar llamada
chat: conversa / conversacion charla
group: grupo / grupo
holiday: feriado / feriado
bitcoin: bitcoin / bitcoin
peso: pesos / pesos
dollar: dolar dolares / dolar dolares
euro: euro / euro
shipped: enviado despachado / enviado despachado
capture: capturar captura / capturar captura
encrypt: criptografar / cifrar encriptar
browser: navegador / navegador
session: sessao / sesion
methods: meios metodos / medios metodos
undo: desfazer / deshacer
know: saber / saber
declined decline: recusado recusada recusar / rechazado rechazada rechazar
retail: varejo / minorista
outbound: saida / saliente
bounced bounce: / rebotar rebote
revoke: revogar / revocar
consent: consentimento / consentimiento
fields: campos / campos
against: contra / contra
holder: titular titulares / titular titulares
flow: fluxo / flujo
participate: participar / participar
allowed: permitido permitidos / permitido permitidos
external: externo externa / externo externa
draft: rascunho / borrador
set: definir / establecer
level: nivel / nivel
each: cada / cada
end: fim / fin
hold: reter / retener
mexican: mexicano mexicana mexicanos mexicanas / mexicano mexicana mexicanos mexicanas
brazilian: brasileiro brasileira brasileiros / brasileno brasilena brasilenos
reference: referencia / referencia
acceptance: aceitacao / aceptacion
preview: previa / previa
hosted: hospedado hospedada / =alojado =alojada
between: entre / entre
two: dois duas / dos
`;

let index: Map<string, string[]> | null = null;

function key(lang: Lang, word: string): string {
  return `${lang}\u0000${stem(word, lang)}`;
}

/** Stem → English words, per language, built on first use. */
function glossaryIndex(): Map<string, string[]> {
  if (index) return index;
  index = new Map();
  for (const line of TABLE.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const english = line.slice(0, colon).trim().split(/\s+/);
    const [pt = '', es = ''] = line.slice(colon + 1).split('/');
    for (const [lang, words] of [
      ['pt', pt],
      ['es', es],
    ] as const) {
      // Multi-word sources ("nota fiscal", "libro mayor") are left to the
      // concepts; here every word stands alone.
      for (const w of fold(words).split(/\s+/).filter(Boolean)) {
        const k = w.startsWith('=') ? `=${lang}:${w.slice(1)}` : key(lang, w);
        if (!index.has(k)) index.set(k, english);
      }
    }
  }
  return index;
}

/** The English words of a folded Portuguese or Spanish word, if the glossary has it. */
export function glossEnglish(word: string, lang: Lang): string[] | undefined {
  if (lang === 'en' || word.length < 2) return undefined;
  const index = glossaryIndex();
  return index.get(`=${lang}:${word}`) ?? index.get(key(lang, word));
}

/**
 * Endings that turn a Portuguese or Spanish word into its English cognate,
 * longest first: "transacción" → "transaction", "integração" → "integration",
 * "interactivo" → "interactive", "identidade" → "identity", "automático" →
 * "automatic". Folded forms ("cao", "cion").
 */
const COGNATE_ENDINGS: ReadonlyArray<readonly [string, string, number]> = [
  // [ending, English ending, shortest stem kept before it]
  ['ccional', 'ctional', 3],
  ['cional', 'tional', 3],
  ['ccion', 'ction', 3],
  ['ccoes', 'ctions', 3],
  ['acoes', 'ations', 2],
  ['coes', 'tions', 2],
  ['ciones', 'tions', 3],
  ['cion', 'tion', 3],
  ['acao', 'ation', 2],
  ['cao', 'tion', 2],
  ['idades', 'ities', 3],
  ['idade', 'ity', 3],
  ['idad', 'ity', 3],
  ['ivos', 'ives', 3],
  ['ivas', 'ives', 3],
  ['ivo', 'ive', 3],
  ['iva', 'ive', 3],
  ['icos', 'ics', 3],
  ['icas', 'ics', 3],
  ['ico', 'ic', 3],
  ['ica', 'ic', 3],
  ['avel', 'able', 3],
];

/** The English cognate of a folded Portuguese or Spanish word by its ending, if it has one of the endings above. */
export function cognate(word: string): string | undefined {
  for (const [ending, english, min] of COGNATE_ENDINGS) {
    if (word.length >= ending.length + min && word.endsWith(ending))
      return word.slice(0, word.length - ending.length) + english;
  }
  return undefined;
}
