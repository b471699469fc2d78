/**
 * The readings of Spanish, Portuguese, French, German and Russian.
 *
 * @module
 */

import { type Announced, leadIns, type Reading } from "./_announce_phrases.ts";

/** `pattern` after a language's lead-in words, as a Unicode RegExp. */
function led(lead: string, pattern: string): RegExp {
  return new RegExp(lead + pattern, "u");
}

/** Builds the reading of a language that says "I'm going to <verb>". */
function romance(spec: {
  lead: string;
  opener: RegExp;
  future?: RegExp;
  doing?: RegExp;
  /** The present first person of a verb of work: "Je vérifie", "Reviso". */
  present?: RegExp;
  immediate: RegExp;
  noAction: RegExp;
  saying: RegExp;
}): Reading {
  const lead = new RegExp(leadIns(spec.lead));
  return (s) => {
    const body = s.replace(lead, "");
    const immediate = spec.immediate.test(s);
    const found = spec.opener.exec(body) ?? spec.future?.exec(body) ??
      spec.doing?.exec(body) ?? spec.present?.exec(body);
    if (!found) return null;
    const verb = found.slice(1).find((g) => g !== undefined) ?? "";
    if (spec.noAction.test(verb)) return null;
    return { kind: spec.saying.test(verb) ? "saying" : "action", immediate };
  };
}

export const readSpanish: Reading = romance({
  lead:
    "ahora|ahora mismo|a continuación|acto seguido|enseguida|primero|luego|después|entonces|bien|muy bien|vale|de acuerdo|perfecto|listo|ok|okay|bueno|entendido|claro|genial|excelente|y|así que|por último|finalmente",
  opener:
    /^(?:(veamos|revisemos|empecemos|comencemos|sigamos|continuemos|probemos|comprobemos|ejecutemos|pasemos a|verifiquemos|arreglemos|corrijamos)(?=[\s,.!:]|$)|(?:voy a|vamos a|déjame|déjeme|dejame|permíteme|permítame|procedo a|procedo con|paso a|pasemos a|paso ahora a|me pongo a|empiezo a|empiezo por|empiezo con|comienzo a|comienzo por|continúo con|sigo con|me encargo de|me ocupo de|ahora voy a) (?:(?:ahora|ahora mismo|a continuación|primero|también|rápidamente|ya|enseguida) )*([\p{L}-]+))/u,
  future:
    /^(?:(?:lo|la|los|las|le|les|me|te) )?([\p{L}]+(?:aré|eré|iré))(?:\s|[.!:,]|$)/u,
  doing: /^(?:estoy|ahora estoy) (?:ahora )?([\p{L}]+(?:ando|iendo))\b/u,
  present:
    /^(?:lo |la |los |las )?(reviso|compruebo|verifico|ejecuto|actualizo|añado|agrego|corrijo|elimino|borro|instalo|lanzo|leo|escribo|modifico|aplico|pruebo|busco|genero|configuro|reinicio|limpio|renombro|muevo|copio|implemento|preparo|edito|miro|arreglo|subo|descargo|compilo|despliego|migro|reescribo|relanzo)(?=[\s,.!:]|$)/u,
  immediate:
    /(?:^|\s)(?:ahora|ahora mismo|enseguida|de inmediato|inmediatamente|a continuación|ya)(?=[\s,.!:]|$)/u,
  noAction:
    /^(?:esperar|esperaré|esperando|necesitar|necesitaré|quedar|quedarme|quedaré|estar|estaré|ser|seré|dejar|dejarlo|tener|tendré|saber|mantener|recordar|recordaré|poder|podré|no|nada|asegurarme|asegurarte)$/u,
  saying:
    /^(?:(?:resumir|explicar|aclarar|describir|mencionar|señalar|destacar|recapitular|detallar|decir|comentar|enumerar|mostrar|presentar|contar|listar|repasar)(?:te|le|les|os|lo|la|telo)?|resumiré|explicaré|aclararé|describiré|mencionaré|detallaré|diré|comentaré|mostraré|presentaré|contaré|resumiendo|explicando)$/u,
});

export const readPortuguese: Reading = romance({
  lead:
    "agora|a seguir|em seguida|primeiro|depois|então|bem|certo|ok|okay|perfeito|pronto|entendi|beleza|ótimo|excelente|claro|e|por fim|finalmente",
  opener:
    /^(?:vou|vamos|deixe-me|deixa-me|deixa eu|deixe eu|permita-me|passo a|passo para|passo agora para|começo a|começo por|começo com|procedo a|procedo com|prossigo com|sigo com|continuo com|irei) (?:(?:agora|já|primeiro|também|rapidamente|em seguida|a seguir) )*([\p{L}-]+)/u,
  future: /^([\p{L}]+(?:arei|erei|irei))(?:\s|[.!:,]|$)/u,
  doing:
    /^(?:estou|agora estou|estamos) (?:agora )?([\p{L}]+(?:ando|endo|indo))\b/u,
  present:
    /^(verifico|confiro|executo|atualizo|adiciono|corrijo|removo|apago|instalo|rodo|leio|escrevo|modifico|aplico|testo|busco|procuro|gero|configuro|reinicio|limpo|renomeio|movo|copio|implemento|preparo|edito|olho|conserto|subo|baixo|compilo|migro|reescrevo)(?=[\s,.!:]|$)/u,
  immediate:
    /(?:^|\s)(?:agora|já|imediatamente|em seguida|a seguir|de imediato)(?=[\s,.!:]|$)/u,
  noAction:
    /^(?:esperar|aguardar|precisar|ficar|estar|ser|deixar|ter|saber|manter|lembrar|poder|não|nada|esperando|aguardando|garantir|aguardarei|esperarei|ficarei|lembrarei)$/u,
  saying:
    /^(?:(?:resumir|explicar|esclarecer|descrever|mencionar|destacar|recapitular|detalhar|dizer|comentar|listar|mostrar|apresentar|contar)(?:-lhe|-te|-lhes)?|resumirei|explicarei|detalharei|direi|mostrarei|apresentarei|resumindo|explicando)$/u,
});

export const readFrench: Reading = romance({
  lead:
    "maintenant|ensuite|à présent|d'abord|tout d'abord|bien|très bien|parfait|d'accord|ok|okay|bon|alors|entendu|compris|super|excellent|et|donc|enfin|pour finir",
  opener:
    /^(?:je m'en occupe|je m'y mets|je vais|laissez-moi|laisse-moi|permettez-moi|permets-moi|je passe à|je passe maintenant à|je m'occupe de|je m'occupe maintenant de|je m'attaque à|je commence par|je me mets à|je lance|je suis en train de|on va|nous allons|passons à|passons maintenant à|allons-y|voyons|vérifions|lançons|regardons|corrigeons|testons|essayons|commençons|exécutons|ajoutons|créons|installons|examinons|continuons|analysons|mettons|modifions|procédons|je procède à|je continue avec|je poursuis avec)(?: (?:(?:maintenant|d'abord|ensuite|aussi|rapidement|tout de suite|donc|immédiatement|directement|vous|te|lui|leur|le|la|les) )*(?:l'|t')?([\p{L}-]*))?/u,
  future: /^(?:je |j')([\p{L}]{2,}rai)(?:\s|[.!:,]|$)/u,
  present:
    /^(?:je (?:(?:maintenant|d'abord|ensuite|aussi|donc) )?(vérifie|crée|lance|relance|corrige|fixe|regarde|lis|relis|charge|recharge|rédige|active|désactive|ajoute|mets|modifie|supprime|teste|exécute|installe|commite|pousse|nettoie|renomme|déplace|copie|écris|réécris|génère|configure|applique|remplace|cherche|récupère|télécharge|compile|construis|redémarre|prépare|édite|patche|migre|fusionne|déploie|synchronise)|j'(ajoute|active|exécute|installe|applique|écris|examine|analyse|implémente|inspecte|édite))(?=[\s,.!:]|$)/u,
  immediate:
    /(?:^|\s)(?:maintenant|tout de suite|immédiatement|à présent|ensuite|dès maintenant)(?=[\s,.!:]|$)/u,
  noAction:
    /^(?:attendre|rester|être|avoir|laisser|savoir|patienter|garder|pouvoir|devoir|ne|pas|bien|mieux|attendrai|resterai|serai|aurai|saurai)$/u,
  saying:
    /^(?:résumer|expliquer|préciser|décrire|mentionner|souligner|récapituler|détailler|dire|lister|noter|montrer|présenter|clarifier|rappeler|résumerai|expliquerai|préciserai|détaillerai|dirai|montrerai|présenterai)$/u,
});

// ----------------------------------------------------------------- German

const DE_LEAD = leadIns(
  "gut|okay|ok|alles klar|perfekt|prima|super|verstanden|also|so|und|dann|jetzt|nun|als nächstes|zunächst|zuerst|danach|anschließend",
);

/** "Ich werde jetzt die Tests ausführen", "Lass mich die Logs prüfen". */
const DE_VERB_LAST = led(
  DE_LEAD,
  `(?:ich werde|lass mich|lassen sie mich|lasst mich|wir werden) `,
);

/** "Jetzt prüfe ich", "Als Nächstes passe ich ... an". */
const DE_INVERTED =
  /^(?:jetzt|nun|als nächstes|zunächst|zuerst|dann|danach|anschließend|gleich|sofort|direkt)[,]? ([\p{L}]+) ich\b/u;

/** "Ich prüfe jetzt", "Ich kümmere mich jetzt um". */
const DE_NOW_AFTER = led(
  DE_LEAD,
  `ich ([\\p{L}]+) (?:mich )?(?:jetzt|nun|gleich|sofort|als nächstes|zunächst|zuerst|direkt)(?=[\\s,.!:]|$)`,
);

/** "Ich kümmere mich darum", "Ich mache mich an die Arbeit". */
const DE_TAKE_ON = led(
  DE_LEAD,
  `ich (?:kümmere mich|mache mich|setze mich) (?:(?:jetzt|nun|gleich|sofort|direkt) )*(?:darum|um|an|daran|dran)(?=[\\s,.!:]|$)`,
);

/** "Ich prüfe die Logs": the present of a verb of work, first person. */
const DE_PRESENT = led(
  DE_LEAD,
  `ich (?:prüfe|teste|starte|baue|aktualisiere|erstelle|füge|korrigiere|behebe|lösche|entferne|installiere|lese|schreibe|ändere|passe|führe|suche|lade|committe|pushe|implementiere|richte|lege|setze|verschiebe|benenne|kopiere|überprüfe|schaue|sehe mir|analysiere|untersuche|repariere|migriere|generiere|ergänze|bereinige|räume|mache mich)(?=[\\s,.!:]|$)`,
);

/** "Prüfen wir", "Schauen wir uns ... an": let's. */
const DE_LETS = /^([\p{L}]+en) wir\b/u;

const DE_NOT_LETS =
  /^(?:haben|sind|können|müssen|sollen|wollen|dürfen|werden|wenn|möchten|gehen)$/u;

const DE_IMMEDIATE =
  /(?:^|\s)(?:jetzt|nun|sofort|gleich|als nächstes|direkt)(?=[\s,.!:]|$)/u;

const DE_NO_ACTION =
  /^(?:warten|abwarten|bleiben|sein|haben|wissen|brauchen|benötigen|lassen|behalten|merken|beachten|sehe|weiß|denke|glaube|brauche|warte|bin|habe|kann|muss|möchte|würde|werde|bleibe|melden)$/u;

const DE_SAYING =
  /^(?:zusammenfassen|erklären|erläutern|beschreiben|erwähnen|hinweisen|festhalten|darstellen|zeigen|auflisten|sagen|nennen|skizzieren|fasse|erkläre|erläutere|beschreibe|zeige|nenne|liste|zusammen)$/u;

/** A "nicht" anywhere: the sentence says what will not be done. */
const DE_NEGATED =
  /(?:^|\s)(?:nicht|nichts|kein|keine|keinen|niemals)(?=[\s,.!:]|$)/u;

export function readGerman(s: string): Announced | null {
  if (DE_NEGATED.test(s)) return null;
  const immediate = DE_IMMEDIATE.test(s);
  if (DE_TAKE_ON.test(s) || DE_PRESENT.test(s)) {
    return { kind: "action", immediate };
  }
  let verb: string | null = null;
  const verbLast = DE_VERB_LAST.exec(s);
  if (verbLast) {
    const clause = s.slice(verbLast[0].length).split(/[,;:]/)[0] ?? "";
    verb = clause.replace(/[.!…]+$/, "").trim().split(" ").at(-1) ?? "";
  } else {
    const found = DE_INVERTED.exec(s) ?? DE_NOW_AFTER.exec(s);
    if (found) verb = found[1] as string;
    else {
      const lets = DE_LETS.exec(s);
      if (lets && !DE_NOT_LETS.test(lets[1] as string)) {
        verb = lets[1] as string;
      }
    }
  }
  if (verb === null || verb === "" || DE_NO_ACTION.test(verb)) return null;
  return { kind: DE_SAYING.test(verb) ? "saying" : "action", immediate };
}

// ---------------------------------------------------------------- Russian

const RU_LEAD = leadIns(
  "итак|хорошо|отлично|ладно|окей|ок|понял|поняла|понятно|так|и|а|ну|супер|готово|ok",
);

const RU_MARK =
  "(?:теперь|сейчас|далее|дальше|затем|сначала|потом|следующим шагом|в первую очередь)";

/** "Теперь я проверю", "Я сейчас обновлю", "Давайте проверим". */
const RU_OPENERS: readonly RegExp[] = [
  led(RU_LEAD, `${RU_MARK},? я (?:теперь |сейчас |сразу )?([\\p{L}-]+)`),
  led(RU_LEAD, `я (?:теперь|сейчас|сразу|далее|затем|сначала) ([\\p{L}-]+)`),
  led(RU_LEAD, `давайте (?:я |теперь |сейчас |сначала |сразу )*([\\p{L}-]+)`),
  led(RU_LEAD, `давай (?:я |теперь |сейчас |сначала )*([\\p{L}-]+)`),
  led(RU_LEAD, `${RU_MARK},? ([\\p{L}]+(?:ю|у))(?=[\\s,.!:]|$)`),
  led(RU_LEAD, `я ([\\p{L}]+(?:ю|у)) .*(?:сейчас|теперь|сразу)(?=[\\s,.!:]|$)`),
  led(
    RU_LEAD,
    `(?:${RU_MARK},? )?(приступаю|перехожу|переходим|перейду|приступлю|займусь|начну|начинаю|продолжаю|продолжу)(?=[\\s,.!:]|$)`,
  ),
  // "Проверяю логи", "Обновляю файл": the present of the first person.
  led(RU_LEAD, `([\\p{L}]+(?:аю|яю|ую|юю))(?=[\\s,.!:]|$)`),
];

const RU_IMMEDIATE =
  /(?:^|\s)(?:теперь|сейчас|сразу|немедленно|далее)(?=[\s,.!:]|$)/u;

const RU_NO_ACTION =
  /^(?:жду|подожду|ждать|подождать|знаю|понимаю|вижу|думаю|считаю|могу|смогу|хочу|должен|должна|нужно|надо|готов|готова|останусь|оставлю|буду|не|уже|рад|рада|помню|запомню|учту|прошу|предлагаю|рекомендую|советую|ожидаю|благодарю|напоминаю|подытоживаю|надеюсь|полагаю|допускаю|сомневаюсь|извиняюсь|уточняю)$|(?:л|ла|ло|ли|лся|лась|лись)$/u;

const RU_SAYING =
  /^(?:подытожу|резюмирую|объясню|поясню|опишу|отмечу|перечислю|расскажу|скажу|уточню|напомню|покажу|обобщу|изложу|сформулирую|суммирую|подытожим|резюмируем|обсудим|разберём|разберем|рассмотрим|обобщим)$/u;

export function readRussian(s: string): Announced | null {
  for (const opener of RU_OPENERS) {
    const found = opener.exec(s);
    if (!found) continue;
    const verb = found[1] as string;
    if (RU_NO_ACTION.test(verb)) return null;
    return {
      kind: RU_SAYING.test(verb) ? "saying" : "action",
      immediate: RU_IMMEDIATE.test(s),
    };
  }
  return null;
}
