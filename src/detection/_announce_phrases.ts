/**
 * How the model says it is about to act: shared pieces, English, and what makes
 * a sentence no announcement. Patterns are anchored, never nested: linear.
 *
 * @module
 */

/** What a sentence announces, when it announces the model's own action. */
export interface Announced {
  /** `action`: work with a tool; `saying`: words the message itself holds (summarise, list). */
  kind: "action" | "saying";
  /** The sentence says the action is immediate ("now", "next", 现在, 이제). */
  immediate: boolean;
  /** Verb-first, whose work unsaid ("Now update the index:"): never a block's lead-in (a user's step). */
  bare?: true;
}

/** Full-width and CJK punctuation and spaces, and the ASCII each reads as. */
const WIDE =
  "\uff1a\uff0c\u3001\uff1f\uff01\u3002\uff1b\uff08\uff09\u2019\u2018\u00a0\u3000";
const NARROW = ":,,?!.;()''  ";
const WIDE_CHAR = new RegExp(`[${WIDE}]`, "g");

/** A sentence as the tables read it: lower case, full-width marks as ASCII, spaces collapsed. */
export function normalise(sentence: string): string {
  return sentence
    .replace(WIDE_CHAR, (c) => NARROW[WIDE.indexOf(c)] ?? c)
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** `^(?:(?:a|b|...)[,!.:]? )*`: lead-in words, each ended by a space or mark unless `joined`. */
export function leadIns(words: string, joined = false): string {
  const end = joined ? "[,!.:]? ?" : "(?:[,!.:] ?| )";
  return `^(?:(?:${words})${end})*`;
}

/** The words of a sentence after `at`, without leading spaces and commas. */
export function after(s: string, at: number): string {
  return s.slice(at).replace(/^[\s,]+/, "");
}

/** One language's reading of a normalised sentence; `colon`: it closed with a colon. */
export type Reading = (s: string, colon: boolean) => Announced | null;

const EN_LEAD = new RegExp(
  leadIns(
    "now|next|first|then|so|ok|okay|alright|all right|great|good|perfect|right|finally|and|sure|got it|understood|thanks|yes",
  ),
);

const EN_OPENER =
  /^(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i'm now going to|i'm gonna|i'm about to|i am about to|i shall) (?:(?:now|next|also|first|then|go ahead and|quickly|just|immediately|actually|right away|straight away) )*([a-z][a-z-]*)/;

/** "Now updating the plan:", "I'm now adding the tests", "Moving on to ...". */
const EN_DOING =
  /^(?:(?:now|next)[,:]? (?:i'm |i am )?([a-z]{3,}ing)\b|i(?:'m| am) now ([a-z]{3,}ing)\b|(moving on|proceeding|continuing|starting|beginning|switching|turning|getting started|jumping) (?:now )?(?:to|with|on|by|into)\b)/;

/** "I'm adding the tests now:", "Running the tests now." */
const EN_DOING_NOW =
  /^(?:i(?:'m| am) )?([a-z]{3,}ing)(?: (?!is |are |was |were |has |have |should |will |would |can |could |may |might |works |looks |seems |passes )[^ ]+)+ now[.!:]?$/;

/** Weaker openers ("Now I need to update the tests:"): only when immediate or on a colon. */
const EN_WEAK_OPENER =
  /^(?:i need to|i have to|i must|we need to|we have to|now we need to|we now need to|i now need to|time to) (?:(?:now|next|also|first|then|quickly|just) )*([a-z][a-z-]*)/;

/** Verbs of work, base form: what "Now <verb> ...:" sets about. */
const EN_WORK_VERBS =
  "do|try|wipe|initialize|initialise|init|add|update|fix|implement|wire|create|write|run|rerun|build|rebuild|test|commit|push|install|remove|delete|rename|move|refactor|check|verify|read|re-read|edit|change|apply|replace|merge|deploy|migrate|generate|regenerate|set|configure|restart|clean|modify|patch|copy|convert|port|register|mark|split|extract|search|inspect|fetch|download|upload|load|save|scan|review|draft|prepare|collect|gather|examine|investigate|explore|dispatch|launch|spawn|finish|finalize|format|lint|compile|bump|tag|revert|reset|sync|pull|clone|enable|disable|seed|insert|append|import|export|document|adjust|tweak|refresh|repoint|reload|retry|redo|rewrite|restore|trim|drop|strip|rerun";

/** The same verbs in -ing: "Writing both plists:", "Copying the files..." */
const EN_WORK_GERUNDS =
  "adding|updating|fixing|implementing|wiring|creating|writing|running|rerunning|building|rebuilding|testing|committing|pushing|installing|removing|deleting|renaming|moving|refactoring|checking|verifying|reading|re-reading|editing|changing|applying|replacing|merging|deploying|migrating|generating|regenerating|setting up|configuring|restarting|cleaning|modifying|patching|copying|converting|porting|registering|marking|splitting|extracting|searching|inspecting|fetching|downloading|uploading|loading|saving|scanning|reviewing|drafting|preparing|collecting|gathering|examining|investigating|exploring|dispatching|launching|spawning|finishing|finalizing|formatting|linting|compiling|bumping|tagging|reverting|resetting|syncing|pulling|cloning|enabling|disabling|seeding|inserting|appending|importing|exporting|documenting|adjusting|tweaking|refreshing|repointing|reloading|retrying|redoing|rewriting|restoring|trimming|dropping|stripping|looking into|digging into|kicking off";

/** "Now update the index:": the model's own next step, verb first. */
const EN_NOW_IMPERATIVE = new RegExp(
  `^(?:(?:ok|okay|good|great|perfect|alright|right|so|done|and)[,.!]? )*(?:now|next|also|then)[,]? (?:${EN_WORK_VERBS})\\b`,
);

/** "Copying the report files there.": a progress line, with no finite verb after it. */
const EN_PROGRESS = new RegExp(
  `^(?:(?:ok|okay|good|great|perfect|alright|right|so|done|now|next|then|and)[,.!:]? )*(?:${EN_WORK_GERUNDS})\\b`,
);

/** A finite verb makes a gerund the subject ("Checking the box enables dark mode"). */
const EN_FINITE =
  /\b(?:enables?|creates|adds|fixes|removes|updates|runs|sets|triggers|returns|starts|stops|gives|resolves|generates|produces|writes|reads|calls|uses|handles|prevents|ensures|allows|lets|goes|saves|loads|costs|matters|happens|belongs|depends|avoids|skips|hides|shows|clears|resets|lists|opens|closes|is|are|was|were|would|should|will|can|could|may|might|must|seems?|looks?|works?|worked|passes|passed|fails|failed|shows?|showed|helps?|needs?|needed|requires?|required|has|have|had|does|did|makes?|made|gives?|gave|takes?|took|means?|meant|keeps?|kept|breaks?|broke|ran|wrote|went|caused?)\b/;

const EN_IMMEDIATE =
  /\b(?:now|right away|immediately|straight away|next|right now)\b/;

/** Verbs after an opener that announce no action ("Let me know", "I'll wait", "I'll be happy to"). */
const EN_NO_ACTION = new Set(
  "know wait be leave stop pause hold keep let await standby stand remain stay defer discuss talk hear assume not never no need have require remember monitor watch seeing waiting getting monitoring watching think thinking happy glad understand recall ask nothing everything something anything"
    .split(" "),
);

/** Verbs of saying: "Let me summarize:" announces words, not work. */
const EN_SAYING = new Set(
  "add answer break clarify describe emphasize explain highlight lay list mention note outline point quote recap reiterate remind say share show spell stress summarise summarize walk"
    .split(" "),
);

/** What is said, as a noun ("I'll give a quick overview:"): words, not work. */
const EN_SAYING_NOUN =
  /\b(?:summary|overview|recap|rundown|breakdown|explanation|run-down|round-up|roundup|walkthrough|walk-through)\b/;

/** Verbs that hand over what a saying noun names ("give an overview"). */
const EN_GIVING = /^(?:provide|give|present|offer|share|do|put|write up)$/;

export function readEnglish(s: string, colon: boolean): Announced | null {
  const body = s.replace(EN_LEAD, "");
  const immediate = EN_IMMEDIATE.test(s);
  const opener = EN_OPENER.exec(body);
  if (opener) {
    const found = englishVerb(opener[1] as string, immediate);
    // "Let me provide a summary": saying; "let's write the summary to x.md": work.
    return found && EN_GIVING.test(opener[1] as string) &&
        EN_SAYING_NOUN.test(body)
      ? { ...found, kind: "saying" }
      : found;
  }
  const doing = EN_DOING.exec(s) ?? EN_DOING.exec(body) ??
    EN_DOING_NOW.exec(body);
  if (doing) {
    const verb = doing[1] ?? doing[2] ?? "";
    if (EN_NO_ACTION.has(verb)) return null;
    return { kind: "action", immediate: true };
  }
  const weak = EN_WEAK_OPENER.exec(body) ?? EN_WEAK_OPENER.exec(s);
  if (weak && (immediate || colon)) {
    return englishVerb(weak[1] as string, immediate);
  }
  if (EN_PROGRESS.test(s) && !EN_FINITE.test(s)) {
    return { kind: "action", immediate: true };
  }
  if (colon && EN_NOW_IMPERATIVE.test(s)) {
    return { kind: "action", immediate: true, bare: true };
  }
  return null;
}

/** The kind of an English verb after an opener, or null for no action. */
function englishVerb(verb: string, immediate: boolean): Announced | null {
  if (EN_NO_ACTION.has(verb)) return null;
  return { kind: EN_SAYING.has(verb) ? "saying" : "action", immediate };
}

// What makes a sentence no announcement

/** A question: a question mark, or a language's question ending. */
const QUESTION: readonly RegExp[] = [
  /\?["')\]]*$/,
  /^¿/,
  /[吗嗎呢][.!]?$/,
  /^是否|要不要|需不需要|可不可以|好不好|行不行/,
  /(?:か|かね|でしょうか|ますか|ませんか|ましょうか|どうですか|いかがですか|いかがでしょう)[.!]?$/,
  /(?:까요|까|나요|가요|니까|습니까|실래요|시겠어요|죠)[.!]?$/,
];

/** Phrases that hand the turn back: a request, an offer, a choice. */
const HAND_BACK: readonly RegExp[] = [
  /\b(?:let me know|tell me|please (?:confirm|review|check|let|run|try|test|share|provide|send|approve|advise)|feel free|would you like|do you want|want me to|if you(?:'d| would) like|shall i|should i|your call|up to you|you decide|your choice|you prefer|your preference|which (?:one|option|approach|would) (?:would|do|you)|i can also|i could also|ready when you are|awaiting your|waiting for your)\b/,
  /请问|請問|告诉我|告訴我|让我知道|讓我知道|请确认|請確認|请告诉|請告訴|请提供|請提供|请选择|請選擇|请授予|請授予|请检查|請檢查|请测试|請測試|请运行|請執行|请回复|請回覆|你可以|您可以|需要我|要我|由你|由您|你决定|你決定|看你|看您|您看|你看|如需|若需|需要的话|需要的話|随时|隨時|欢迎|歡迎|等你|等您|你的选择|你的選擇/,
  /ください|下さい|お知らせ|教えて|ご確認|ご指示|ご検討|ご判断|ご希望|お好み|よろしければ|よろしいでしょうか|必要であれば|必要なら|お申し付け|お気軽に|どうしますか|どちらが|どれが|お待ちしております/,
  /주세요|주십시오|주시기|바랍니다|부탁드립니다|부탁해요|원하시|필요하시|하시겠|선택해|결정해|알려 주|알려주|말씀해|말씀 주|확인해 주|어떠세요|어떠신가요|괜찮으세요|괜찮으신가요|편하게|기다리겠습니다/,
  /(?:^|\s)(?:avísame|avíseme|dime|dígame|hazme saber|házmelo saber|confírmame|confirma|confirme|si quieres|si prefieres|¿quieres|te parece|tú decides|como prefieras|cuando quieras|quedo atento|quedo atenta|quedo a la espera|por favor,? (?:confirma|revisa|prueba|indica|comparte|ejecuta))(?=[\s,.!:?]|$)/u,
  /(?:^|\s)(?:me avise|avise-me|diga-me|me diga|me fala|me conte|confirme|se quiser|se preferir|você decide|fico à disposição|fico no aguardo|por favor,? (?:confirme|revise|teste|verifique|compartilhe|execute))(?=[\s,.!:?]|$)/u,
  /(?:^|\s)(?:dis-moi|dites-moi|faites-moi savoir|fais-moi savoir|tiens-moi au courant|tenez-moi au courant|confirme|confirmez|n'hésite pas|n'hésitez pas|si tu veux|si vous voulez|si vous le souhaitez|si tu le souhaites|à toi de voir|à vous de voir|comme tu veux|comme vous voulez|que veux-tu|que voulez-vous)(?=[\s,.!:?]|$)/u,
  /(?:^|\s)(?:lass mich wissen|lassen sie mich wissen|gib mir bescheid|geben sie mir bescheid|sag mir|sagen sie mir|sag bescheid|sagen sie bescheid|bitte (?:bestätige|bestätigen|prüfe|prüfen|teste|testen|teile|teilen)|wenn du möchtest|wenn sie möchten|falls gewünscht|soll ich|möchtest du|möchten sie|willst du|wollen sie)(?=[\s,.!:?]|$)/u,
  /(?:^|\s)(?:дайте знать|дай знать|сообщите|скажите|подтвердите|напишите|уточните|если хотите|если нужно|хотите|нужно ли|решать вам|на ваше усмотрение|жду вашего|жду ответа|жду подтверждения)(?=[\s,.!:?]|$)/u,
];

/** Words making a sentence wait on something ("once you confirm", "when it finishes"). */
const CONDITIONAL: readonly RegExp[] = [
  // At a clause's start; after a verb ("check if") they ask whether.
  /(?:^|[,;] )(?:if|once|when|whenever|after|until|unless|as soon as|in case)\b/,
  /\b(?:once|whenever|until|unless|as soon as|in case)\b|(?<!\b(?:check|see|verify|confirm|know|determine|test|ask|wonder|find out|look at|tell) )\bif (?:you|your|needed|necessary|desired|required|wanted|preferred|so|not|approved|everything|all|this looks|that works|it helps)\b/,
  /\bwhen (?:you|your|it|they|that|this|the \w+ (?:finish|finishes|completes?|pass|passes|is|are|comes?|lands?|ends?))\b/,
  /\bafter (?:you|your|it|they|that|this|which|the \w+ (?:finish|finishes|completes?|pass|passes|is|are|lands?|ends?))\b/,
  /如果|若|假如|要是|的话|的話|一旦|等你|等您|等到|待你|待您|确认后|確認後|完成后|完成後|之后|之後|以后|以後|后再|後再|时候|時候|批准后|批准後|同意后|同意後/,
  /たら(?:[,\s]|$)|れば|なら(?:[,\s]|$)|場合|次第|確認後|完了後|承認後|いただければ|いただけたら|頂ければ|もし/,
  /(?:시|하|되|주|으|나|오|이|지|라|려|다|끝나|마치)면(?:\s|,|$)|후에|후\s|뒤에|다음에|때(?:\s|,|에|는|$)|경우|만약|[는은] ?대로/,
  /(?:^|\s)(?:si (?:quieres|prefieres|necesitas|lo deseas|usted|te parece|está de acuerdo|estás de acuerdo|me confirmas|confirmas|todo va bien|es necesario|hace falta|lo apruebas|apruebas)|cuando|una vez que|en cuanto|tan pronto como|después de que|hasta que|en caso de)(?=[\s,.!:]|$)/u,
  /(?:^|\s)(?:se (?:quiser|preferir|precisar|você|desejar|necessário|for necessário|confirmar|aprovar|estiver de acordo|tudo estiver)|quando|assim que|logo que|depois que|uma vez que|caso)(?=[\s,.!:]|$)/u,
  /(?:^|\s)(?:si (?:tu|vous|besoin|nécessaire|c'est bon|ça te va|ça vous va|tout va bien|ok)|s'il le faut|quand|lorsque|dès que|une fois que|après que|jusqu'à ce que|au cas où)(?=[\s,.!:]|$)/u,
  /(?:^|\s)(?:wenn|falls|sobald|nachdem|sofern|bis du|bis sie|im falle)(?=[\s,.!:]|$)/u,
  /(?:^|\s)(?:если|когда|как только|после того как|в случае)(?=[\s,.!:]|$)/u,
];

/** Words that put the action off: not an immediate one. */
const DEFERRED: readonly RegExp[] = [
  /\b(?:later|tomorrow|next time|another time|at some point|eventually|in the future|in future|future (?:conversations?|sessions?|turns?|runs?|projects?)|going forward|from now on|in (?:a|the) (?:next|following|future|later) (?:session|turn|step|pass|round)|afterwards?|(?:get|check|come) back)\b/,
  /稍后|稍後|下次|下一次|下一轮|下一輪|下个会话|下個會話|以后|以後|回头|回頭|晚点|晚點|明天|改天|后续|後續|之后再|之後再|今后|今後|往后|往後/,
  /後で|あとで|後ほど|のちほど|次回|今度|明日|今後|将来|いずれ|追って/,
  /나중에|추후|향후|다음 번|다음번|내일|이후에|다음부터|앞으로|다음 세션|다음 대화/,
  /(?:^|\s)(?:más tarde|mañana|la próxima vez|en otro momento|en el futuro|más adelante|mais tarde|amanhã|da próxima vez|na próxima vez|em outro momento|no futuro|mais adiante|plus tard|demain|la prochaine fois|ultérieurement|désormais|à l'avenir|dans un second temps|später|morgen|nächstes mal|beim nächsten mal|demnächst|künftig|zukünftig|in zukunft|irgendwann|позже|потом|завтра|в следующий раз|в дальнейшем|в будущем|впоследствии)(?=[\s,.!:]|$)/u,
];

/** Whether a normalised sentence hands the turn back (or asks). */
export function handsBack(s: string): boolean {
  return QUESTION.some((p) => p.test(s)) || HAND_BACK.some((p) => p.test(s));
}

/** Whether a normalised sentence waits on a condition or puts the act off. */
export function conditionalOrLater(s: string): boolean {
  return CONDITIONAL.some((p) => p.test(s)) || DEFERRED.some((p) => p.test(s));
}
