import { LANGS, type Lang } from './stem';

/**
 * Function words per language, and the language guess built on them.
 *
 * The lists are folded (no accents). They carry no concept on
 * their own, are skipped between the words of a phrase, and are the main
 * evidence for guessing the language. Words that matter to commerce intents
 * (for example "saldo", "status", "conta") are deliberately absent.
 */
const words = (s: string): ReadonlySet<string> => new Set(s.split(/\s+/).filter(Boolean));

export const STOPWORDS: Readonly<Record<Lang, ReadonlySet<string>>> = {
  en: words(`
    a an the this that these those there here it its it's i im me my mine myself we us our ours you your yours
    he him his she her hers they them their theirs who whom whose which what whats when where why how
    is am are was were be been being do does did doing done have has had having can could will would shall should
    may might must of to in on at by for from with without about into onto over than then so as if or and but
    not no yes just also too very really please pls plz kindly want wanna need needs needed like would lets let
    some any all each every other another one ones it up out off again more most such own same only
    get got give gives go going gonna tell know ok okay hey hi hello thanks thank
    right now today yesterday tomorrow already yet still ever
  `),
  pt: words(`
    a o as os um uma uns umas de do da dos das no na nos nas em num numa ao aos pelo pela pelos pelas
    para pra pro pras pros por com sem sob sobre entre ate desde que se e ou mas nem como quando onde
    eu tu ele ela nos vos eles elas voce voces vc vcs me te lhe lhes mim ti meu minha meus minhas
    teu tua seu sua seus suas nosso nossa nossos nossas dele dela deles delas esse essa esses essas
    este esta estes estas isso isto aquele aquela aquilo aqui ai la ja ainda tambem so muito muita muitos
    ser sou e eh era foi sao estar estou esta estao ta to tava ter tenho tem temos tinha ha
    quero queria gostaria preciso precisa precisamos pode podes poderia posso consegue consigo
    favor porfavor pf pfv por_favor obrigado obrigada oi ola opa beleza
    qual quais quem o_que hoje ontem amanha agora mesmo entao tipo ne nao sim
    quanto quanta quantos quantas vou vai vamos fica ficar dessa desse deste desta nesse nessa neste nesta disso disto daquele daquela
  `),
  es: words(`
    el la los las un una unos unas de del al en con sin sobre entre hasta desde para por que se y e o u pero ni
    como cuando donde yo tu el ella nosotros nosotras ustedes usted ellos ellas me te le les lo nos os mi mis
    tu tus su sus nuestro nuestra nuestros nuestras ese esa esos esas este esta estos estas esto eso aquel aquella
    aqui ahi alla ya todavia tambien solo muy mucho mucha muchos
    ser soy es era fue son estar estoy esta estan tener tengo tiene tenemos hay habia
    quiero quisiera necesito necesita necesitamos puede puedes podria puedo
    favor gracias hola oye bueno
    cual cuales quien hoy ayer manana ahora mismo entonces si no
    cuanto cuanta cuantos cuantas voy va vamos dese desta deste esos
  `),
};

/** True when the folded word is a function word in any language. */
export function isStopword(word: string): boolean {
  return STOPWORDS.en.has(word) || STOPWORDS.pt.has(word) || STOPWORDS.es.has(word);
}

/** A language guess; `und` when the text gives no usable evidence. */
export type LangGuess = Lang | 'und';

/**
 * Guesses pt, es or en from function words and a few spelling marks.
 * Intents are short and often mixed ("faz o KYC"), so the guess is only used
 * to break ties between words that mean different things in two languages.
 * `votes` lets the caller add evidence of its own (the lexicon adds a vote
 * for each word that only one language's vocabulary knows).
 */
export function guessLanguage(
  tokens: readonly string[],
  raw: string,
  votes?: Partial<Record<Lang, number>>,
): LangGuess {
  const score: Record<Lang, number> = { pt: votes?.pt ?? 0, es: votes?.es ?? 0, en: votes?.en ?? 0 };
  for (const t of tokens) {
    let n = 0;
    for (const l of LANGS) if (STOPWORDS[l].has(t)) n++;
    if (n === 0) continue;
    for (const l of LANGS) if (STOPWORDS[l].has(t)) score[l] += 1 / n;
  }
  if (/[ãõ]|ç[ãõaoe]|ções|ção\b/.test(raw)) score.pt += 1.5;
  if (/[ñ¿¡]|ción\b|ciones\b/.test(raw)) score.es += 1.5;
  if (/\b(?:pra|pro|voce|você|vc|não|nao|uma|meu|minha|esse|essa|isso|tá|tô)\b/.test(raw)) score.pt += 0.5;
  if (/\b(?:el|los|del|mi|hay|qué|cómo|está|usted|quiero|necesito|y)\b/.test(raw)) score.es += 0.5;
  let best: LangGuess = 'und';
  let top = 0;
  let tie = false;
  for (const l of LANGS) {
    if (score[l] > top + 1e-9) {
      best = l;
      top = score[l];
      tie = false;
    } else if (Math.abs(score[l] - top) <= 1e-9 && top > 0) {
      tie = true;
    }
  }
  return tie || top < 0.5 ? 'und' : best;
}
