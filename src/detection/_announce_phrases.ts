/**
 * How the model says, in the languages people write, that it is about to
 * act: "let me", "I'll now", "next I will", "now doing". For each language,
 * the phrasings of a first-person statement of an immediate action, and
 * the words that make such a sentence something else: a wait, an offer, a
 * promise about later, words said right there (a summary, an
 * explanation).
 *
 * Every function reads one sentence already normalised by
 * {@link normalise} (lower case, ASCII punctuation, single spaces). The
 * patterns are anchored and hold no nested quantifiers, so each test is
 * linear in the sentence.
 *
 * Languages: English, Chinese (simplified and traditional), Japanese,
 * Korean, Spanish, Portuguese, French, German, Russian.
 *
 * @module
 */

/** What a sentence announces, when it announces the model's own action. */
export interface Announced {
  /**
   * `action`: work with a tool (run, edit, write, check); `saying`: words
   * the message itself can hold (summarise, explain, list).
   */
  kind: "action" | "saying";
  /** The sentence says the action is immediate ("now", "next", 现在, 이제). */
  immediate: boolean;
  /**
   * The sentence names the work without saying whose it is (a verb-first
   * clause: "更新 todo：", "Now update the index:"): an announcement only
   * where the reply ends on it, never as the lead-in to a block, which may
   * be a step for the user ("執行：" and the command).
   */
  bare?: true;
}

/** Full-width and CJK punctuation, and the ASCII it reads as. */
const PUNCTUATION: Readonly<Record<string, string>> = {
  "\uff1a": ":", // ：
  "\uff0c": ",", // ，
  "\u3001": ",", // 、
  "\uff1f": "?", // ？
  "\uff01": "!", // ！
  "\u3002": ".", // 。
  "\uff1b": ";", // ；
  "\uff08": "(", // （
  "\uff09": ")", // ）
  "\u2019": "'", // ’
  "\u2018": "'", // ‘
  "\u00a0": " ",
  "\u3000": " ",
};

/**
 * A sentence as the phrase tables read it: lower case, full-width
 * punctuation as ASCII, whitespace runs as one space, trimmed.
 */
export function normalise(sentence: string): string {
  return sentence
    .replace(
      /[\uff1a\uff0c\u3001\uff1f\uff01\u3002\uff1b\uff08\uff09\u2019\u2018\u00a0\u3000]/g,
      (c) => PUNCTUATION[c] ?? c,
    )
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * `^(?:(?:a|b|...)[,!.:]? )*`: lead-in words that change nothing, each
 * ended by a space or a mark ("so" is no lead-in of "someone"). In the
 * languages written without spaces (`joined`), nothing need end them.
 */
function leadIns(words: readonly string[], joined = false): string {
  const end = joined ? "[,!.:]? ?" : "(?:[,!.:] ?| )";
  return `^(?:(?:${words.join("|")})${end})*`;
}

/** The words of a sentence after `at`, without leading spaces and commas. */
function after(s: string, at: number): string {
  return s.slice(at).replace(/^[\s,]+/, "");
}

/** One language's reading of a sentence. */
interface Language {
  /** What it is, for the docs and tests. */
  readonly name: string;
  /**
   * What the sentence announces, or null (see {@link Announced}).
   * `colon`: the sentence closed with a colon (it leads into what comes).
   */
  announced(s: string, colon: boolean): Announced | null;
}

// ---------------------------------------------------------------- English

const EN_LEAD = new RegExp(
  leadIns([
    "now",
    "next",
    "first",
    "then",
    "so",
    "ok",
    "okay",
    "alright",
    "all right",
    "great",
    "good",
    "perfect",
    "right",
    "finally",
    "and",
    "sure",
    "got it",
    "understood",
    "thanks",
    "yes",
  ]),
);

const EN_OPENER =
  /^(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i'm now going to|i'm gonna|i'm about to|i am about to|i shall) (?:(?:now|next|also|first|then|go ahead and|quickly|just|immediately|actually|right away|straight away) )*([a-z][a-z-]*)/;

/** "Now updating the plan:", "I'm now adding the tests", "Moving on to ...". */
const EN_DOING =
  /^(?:(?:now|next)[,:]? (?:i'm |i am )?([a-z]{3,}ing)\b|i(?:'m| am) now ([a-z]{3,}ing)\b|(moving on|proceeding|continuing|starting|beginning|switching|turning|getting started|jumping) (?:now )?(?:to|with|on|by|into)\b)/;

/** "I'm adding the tests now:", "Running the tests now." */
const EN_DOING_NOW =
  /^(?:i(?:'m| am) )?([a-z]{3,}ing)(?: (?!is |are |was |were |has |have |should |will |would |can |could |may |might |works |looks |seems |passes )[^ ]+)+ now[.!:]?$/;

/**
 * Weaker openers ("Now I need to update the tests:", "I have to fix the
 * import next."): an announcement only when immediate or closing on a
 * colon.
 */
const EN_WEAK_OPENER =
  /^(?:i need to|i have to|i must|we need to|we have to|now we need to|we now need to|i now need to|time to) (?:(?:now|next|also|first|then|quickly|just) )*([a-z][a-z-]*)/;

/** Verbs of work, base form: what "Now <verb> ...:" sets about. */
const EN_WORK_VERBS =
  "do|try|wipe|initialize|initialise|init|add|update|fix|implement|wire|create|write|run|rerun|build|rebuild|test|commit|push|install|remove|delete|rename|move|refactor|check|verify|read|re-read|edit|change|apply|replace|merge|deploy|migrate|generate|regenerate|set|configure|restart|clean|modify|patch|copy|convert|port|register|mark|split|extract|search|inspect|fetch|download|upload|load|save|scan|review|draft|prepare|collect|gather|examine|investigate|explore|dispatch|launch|spawn|finish|finalize|format|lint|compile|bump|tag|revert|reset|sync|pull|clone|enable|disable|seed|insert|append|import|export|document|adjust|tweak|refresh|repoint|reload|retry|redo|rewrite|restore|trim|drop|strip|rerun";

/** The same verbs in -ing: "Writing both plists:", "Copying the files..." */
const EN_WORK_GERUNDS =
  "adding|updating|fixing|implementing|wiring|creating|writing|running|rerunning|building|rebuilding|testing|committing|pushing|installing|removing|deleting|renaming|moving|refactoring|checking|verifying|reading|re-reading|editing|changing|applying|replacing|merging|deploying|migrating|generating|regenerating|setting up|configuring|restarting|cleaning|modifying|patching|copying|converting|porting|registering|marking|splitting|extracting|searching|inspecting|fetching|downloading|uploading|loading|saving|scanning|reviewing|drafting|preparing|collecting|gathering|examining|investigating|exploring|dispatching|launching|spawning|finishing|finalizing|formatting|linting|compiling|bumping|tagging|reverting|resetting|syncing|pulling|cloning|enabling|disabling|seeding|inserting|appending|importing|exporting|documenting|adjusting|tweaking|refreshing|repointing|reloading|retrying|redoing|rewriting|restoring|trimming|dropping|stripping|looking into|digging into|kicking off";

/**
 * "Now update the index:": the model's own next step, said the way Claude
 * often says it (verb first, closing colon).
 */
const EN_NOW_IMPERATIVE = new RegExp(
  `^(?:(?:ok|okay|good|great|perfect|alright|right|so|done|and)[,.!]? )*(?:now|next|also|then)[,]? (?:${EN_WORK_VERBS})\\b`,
);

/**
 * "Copying the report files there.", "Creating the components...": a
 * progress line, with no finite verb after the gerund ("Adding tests
 * would help" says something else).
 */
const EN_PROGRESS = new RegExp(
  `^(?:(?:ok|okay|good|great|perfect|alright|right|so|done|now|next|then|and)[,.!:]? )*(?:${EN_WORK_GERUNDS})\\b`,
);

/**
 * A finite verb after a gerund makes the gerund a subject ("Checking the
 * box enables dark mode"): the sentence describes, it does not announce.
 */
const EN_FINITE =
  /\b(?:enables?|creates|adds|fixes|removes|updates|runs|sets|triggers|returns|starts|stops|gives|resolves|generates|produces|writes|reads|calls|uses|handles|prevents|ensures|allows|lets|goes|saves|loads|costs|matters|happens|belongs|depends|avoids|skips|hides|shows|clears|resets|lists|opens|closes|is|are|was|were|would|should|will|can|could|may|might|must|seems?|looks?|works?|worked|passes|passed|fails|failed|shows?|showed|helps?|needs?|needed|requires?|required|has|have|had|does|did|makes?|made|gives?|gave|takes?|took|means?|meant|keeps?|kept|breaks?|broke|ran|wrote|went|caused?)\b/;

const EN_IMMEDIATE =
  /\b(?:now|right away|immediately|straight away|next|right now)\b/;

/**
 * Verbs after an opener that announce no action: waiting, offering,
 * handing back, promising to keep something in mind ("Let me know",
 * "I'll wait", "I'll be happy to", "I'll keep an eye on it").
 */
const EN_NO_ACTION = new Set([
  "know",
  "wait",
  "be",
  "leave",
  "stop",
  "pause",
  "hold",
  "keep",
  "let",
  "await",
  "standby",
  "stand",
  "remain",
  "stay",
  "defer",
  "discuss",
  "talk",
  "hear",
  "assume",
  "not",
  "never",
  "no",
  "need",
  "have",
  "require",
  "remember",
  "monitor",
  "watch",
  "seeing",
  "waiting",
  "getting",
  "monitoring",
  "watching",
  "think",
  "thinking",
  "happy",
  "glad",
  "understand",
  "recall",
  "ask",
  "nothing",
  "everything",
  "something",
  "anything",
]);

/**
 * Verbs of saying: "Let me summarize:" announces words to come, but "Let
 * me note that the build passed." already said them.
 */
const EN_SAYING = new Set([
  "add",
  "answer",
  "break",
  "clarify",
  "describe",
  "emphasize",
  "explain",
  "highlight",
  "lay",
  "list",
  "mention",
  "note",
  "outline",
  "point",
  "quote",
  "recap",
  "reiterate",
  "remind",
  "say",
  "share",
  "show",
  "spell",
  "stress",
  "summarise",
  "summarize",
  "walk",
]);

/**
 * What is said, named as a noun: "Let me provide a summary of what was
 * fixed:", "I'll give a quick overview:" announce words, not work.
 */
const EN_SAYING_NOUN =
  /\b(?:summary|overview|recap|rundown|breakdown|explanation|run-down|round-up|roundup|walkthrough|walk-through)\b/;

/** Verbs that hand over what a saying noun names ("give an overview"). */
const EN_GIVING = /^(?:provide|give|present|offer|share|do|put|write up)$/;

const ENGLISH: Language = {
  name: "English",
  announced(s, colon) {
    const body = s.replace(EN_LEAD, "");
    const immediate = EN_IMMEDIATE.test(s);
    const opener = EN_OPENER.exec(body);
    if (opener) {
      const found = classify(
        opener[1] as string,
        immediate,
        EN_NO_ACTION,
        EN_SAYING,
      );
      // "Let me provide a summary": saying; "let's write the summary to
      // plan.md" makes a file.
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
      return classify(weak[1] as string, immediate, EN_NO_ACTION, EN_SAYING);
    }
    if (EN_PROGRESS.test(s) && !EN_FINITE.test(s)) {
      return { kind: "action", immediate: true };
    }
    if (colon && EN_NOW_IMPERATIVE.test(s)) {
      return { kind: "action", immediate: true, bare: true };
    }
    return null;
  },
};

/** The kind of an English-like verb word, or null when it is no action. */
function classify(
  verb: string,
  immediate: boolean,
  noAction: ReadonlySet<string>,
  saying: ReadonlySet<string>,
): Announced | null {
  if (noAction.has(verb)) return null;
  return { kind: saying.has(verb) ? "saying" : "action", immediate };
}

// ---------------------------------------------------------------- Chinese

const ZH_LEAD = new RegExp(
  leadIns([
    "好的",
    "好吧",
    "好",
    "嗯",
    "行",
    "明白了?",
    "了解了?",
    "收到",
    "没问题",
    "沒問題",
    "对",
    "對",
    "是的",
    "确实",
    "確實",
    "你说得对",
    "你說得對",
    "您说得对",
    "您說得對",
    "没错",
    "沒錯",
    "那么",
    "那麼",
    "那",
    "所以",
    "因此",
    "接着",
    "接著",
    "然后",
    "然後",
    "首先",
    "另外",
    "此外",
    "ok",
    "okay",
  ], true),
);

/** "让我", "我来", "我现在", "我这就": the model itself, now. */
const ZH_SELF =
  /^(?:让我们?|讓我們?|我们来|我們來|我来|我來|我(?:现在|現在|这就|這就|马上|馬上|立即|立刻|先|接下来|接下來|接着|接著|随后|隨後|将|將|会|會|要|正在|开始|開始|继续|繼續|就|也来|也來)+)/;

/** "现在", "接下来", "下面", "正在": now, with or without the "I". */
const ZH_NOW =
  /^(?:现在|現在|接下来|接下來|下面|下一步|随后|隨後|马上|馬上|立即|立刻|这就|這就|紧接着|緊接著|正在)[,:]? ?(我们?|我們|让我们?|讓我們?)?/;

const ZH_IMMEDIATE =
  /现在|現在|马上|馬上|立即|立刻|这就|這就|接下来|接下來|下面|正在|下一步/;

/** Words between the opener and the verb: 来, 去, 一下, 帮你 ... */
const ZH_FILLER =
  /^(?:就|来|來|去|将|將|会|會|要|先|再|也|一下|帮你|幫你|为你|為你|替你|给你|給你|开始|開始|继续|繼續|着手|著手)*/;

/** What follows an opener and is no action: knowing, waiting, being able. */
const ZH_NO_ACTION =
  /^(?:知道|等|等待|等候|需要|可以|能|无法|無法|不|没|沒|别|別|已|明白|了解|理解|记住|記住|注意|保持|留意|停|暂停|暫停|建议|建議|推荐|推薦|提醒|你|您|是|在这|在這|随时|隨時|很|非常|想想?|觉得|覺得|认为|認為|希望)/;

/** What follows an opener and is words said right there. */
const ZH_SAYING =
  /^(?:总结|總結|说明|說明|解释|解釋|介绍|介紹|概括|回顾|回顧|列出|列举|列舉|汇报|彙報|匯報|报告|報告|说|說|讲|講|补充说明|補充說明|强调|強調|展示|演示|对比|對比|比较|比較|梳理|简述|簡述|描述|阐述|闡述|回答|答复|答覆|告诉你|告訴你|分析一下)/;

/**
 * Verbs of work, for a sentence that says "now" without the "I"
 * ("现在开始更新计划文件"): without one, "现在所有测试都通过" is a
 * description, not an announcement.
 */
const ZH_WORK =
  /^(?:处理|處理|更新|创建|創建|建立|新建|修改|修正|修复|修復|执行|執行|运行|運行|跑|写|寫|编写|編寫|撰写|撰寫|检查|檢查|查看|查找|搜索|搜尋|安装|安裝|提交|推送|测试|測試|实现|實現|实作|實作|添加|加入|新增|删除|刪除|移除|整理|读取|讀取|阅读|閱讀|部署|合并|合併|重构|重構|调整|調整|生成|配置|设置|設置|设定|設定|补充|補充|完善|进行|進行|验证|驗證|确认|確認|研究|调查|調查|排查|定位|优化|優化|改|加|做|记录|記錄|保存|储存|儲存|下载|下載|上传|上傳|启动|啟動|重启|重啟|构建|構建|编译|編譯|清理|打开|打開|导入|導入|导出|導出|迁移|遷移|升级|升級|准备|準備|把|将|將|开始|開始|着手|著手|继续|繼續|来|來|去|找|简化|簡化|试|試|撤销|撤銷|还原|還原|恢复|恢復|删|刪|回滚|回滾|替换|替換|重命名|拆分|切换|切換|引入|移动|移動|复制|複製|装|裝|跳过|跳過|标记|標記|同步|拉取|克隆|获取|獲取|抓取|列出)/;

/**
 * Adverbs of order before a verb with no subject ("先撤销修改", "继续查看",
 * "然后建立 worktree"): the speaker's own next steps.
 */
const ZH_SEQUENCE =
  /^(?:先|首先|再|继续|繼續|直接|接着|接著|然后|然後|最后|最後|同时|同時|顺便|順便|也|还要|還要|马上|馬上|立即|立刻|开始|開始)+/;

/** A clause in the past or done: "先读取了", "已经更新", "把文件都更新了". */
const ZH_DONE = /了(?:[,.!:;]|$)|^[^,]{0,6}了(?!解)|^已|已经|已經/;

const CHINESE: Language = {
  name: "Chinese",
  announced(s, colon) {
    const body = s.replace(ZH_LEAD, "");
    const immediate = ZH_IMMEDIATE.test(s);
    const self = ZH_SELF.exec(body);
    if (self) return zhVerb(after(body, self[0].length), immediate);
    const now = ZH_NOW.exec(body);
    if (now) {
      const rest = after(body, now[0].length);
      if (now[1] !== undefined) return zhVerb(rest, true);
      return ZH_WORK.test(rest) ? zhVerb(rest, true) : null;
    }
    // "我实作方案 1", "那我把两个 HTML 合成一个": the "I" and a verb of work.
    const mine = /^我(?!们|們)/.exec(body);
    if (mine) {
      const rest = after(body, 1).replace(ZH_FILLER, "");
      if (ZH_WORK.test(rest) && !ZH_DONE.test(rest)) {
        return zhVerb(rest, immediate);
      }
      return null;
    }
    // A verb with no subject: "更新 todo：", "先撤销 index.vue 的修改：".
    const sequence = ZH_SEQUENCE.exec(body)?.[0] ?? "";
    const led = sequence !== "" || body.length < s.length;
    const rest = body.slice(sequence.length).trim();
    if (!(colon || led) || !ZH_WORK.test(rest) || ZH_DONE.test(rest)) {
      return null;
    }
    const found = zhVerb(rest, true);
    return found && { ...found, bare: true };
  },
};

function zhVerb(rest: string, immediate: boolean): Announced | null {
  // "需要看看", "要先安装": needing to do is doing, after an opener.
  let verb = rest.replace(ZH_FILLER, "");
  const need = /^(?:需要|要)/.exec(verb);
  if (need) {
    const then = verb.slice(need[0].length).replace(ZH_FILLER, "");
    if (ZH_WORK.test(then) || /^看/.test(then)) verb = then;
  }
  if (verb === "" || ZH_NO_ACTION.test(verb)) return null;
  return { kind: ZH_SAYING.test(verb) ? "saying" : "action", immediate };
}

// --------------------------------------------------------------- Japanese

const JA_LEAD = new RegExp(
  leadIns([
    "はい",
    "了解です",
    "了解しました",
    "了解",
    "わかりました",
    "分かりました",
    "承知しました",
    "かしこまりました",
    "よし",
    "ok",
  ], true),
);

/** Opening words that make the polite form the model's own next step. */
const JA_NOW =
  /^(?:今から|これから|早速|さっそく|では|それでは|じゃあ|ここから|引き続き|続けて|続いて|次に|つぎに|次は|次の(?:タスク|ステップ|作業|段階|フェーズ|項目)|まず|最初に|改めて|すぐに|直ちに|ただちに)/;

/** Endings that are the speaker's own act whatever opens the sentence. */
const JA_OWN_END =
  /(?:てみます|でみます|ていきます|でいきます|させていただきます|させて頂きます|いたします|致します|しますね|ましょう|取り掛かります|取りかかります|着手します|進めます|進めていきます)(?:ね|よ)?$/;

/** The polite non-past that closes an announcement: "...します", "...ます". */
const JA_MASU = /ます(?:ね|よ)?$/;

/** Endings that are no action: waiting, proposing, thinking, being able. */
const JA_NO_ACTION =
  /(?:待ちます|お待ちします|待っています|控えます|勧めします|すすめします|推奨します|提案します|思います|考えます|存じます|できます|わかります|分かります|覚えておきます|留意します|気をつけます|注意します|意識します|心がけます|ません)$/;

/** Endings that are words said right there. */
const JA_SAYING =
  /(?:まとめます|説明します|解説します|要約します|整理します|紹介します|報告します|お伝えします|示します|列挙します|振り返ります|共有します)$/;

const JA_IMMEDIATE =
  /今から|これから|早速|さっそく|では|それでは|次に|すぐに|直ちに|ただちに/;

/**
 * A topic or subject of its own ("この関数は", "テストが"): the sentence
 * says what something else does, not what the model will do.
 */
const JA_OTHER_SUBJECT = /[^\sでずのれ今度回]は|[^\sな]が[^\sんら]/;

/** Moving on: the model's own when nothing else is the subject. */
const JA_MOVE_END = /(?:進みます|移ります|移行します)(?:ね|よ)?$/;

const JAPANESE: Language = {
  name: "Japanese",
  announced(s, colon) {
    const body = s.replace(JA_LEAD, "").replace(/[.!:;…]+$/, "").trim();
    const own = JA_OWN_END.test(body) ||
      (JA_MOVE_END.test(body) && !JA_OTHER_SUBJECT.test(body));
    const opened = JA_NOW.test(body) && JA_MASU.test(body);
    // "TODOリストを更新します：": a plain polite form that leads on.
    const leads = colon && JA_MASU.test(body) && !JA_OTHER_SUBJECT.test(body);
    if (!own && !opened && !leads) return null;
    if (JA_NO_ACTION.test(body)) return null;
    return {
      kind: JA_SAYING.test(body) ? "saying" : "action",
      immediate: JA_IMMEDIATE.test(body),
    };
  },
};

// ----------------------------------------------------------------- Korean

/** Hangul syllable `c`'s final consonant index (0: none; 8: ㄹ; 17: ㅂ). */
function finalConsonant(c: string): number {
  const code = c.charCodeAt(0) - 0xac00;
  return code >= 0 && code < 11172 ? code % 28 : -1;
}

const KO_LEAD = new RegExp(
  leadIns([
    "네",
    "좋습니다",
    "좋아요",
    "알겠습니다",
    "그럼",
    "그러면",
    "자",
    "ok",
  ]),
);

const KO_NOW =
  /^(?:이제|지금|바로|곧|다음으로|다음은|먼저|우선|이어서|계속해서|지금부터|이제부터|그럼 이제|그러면 이제)/;

const KO_IMMEDIATE = /이제|지금|바로|곧|다음으로|이어서/;

/** Present forms that announce only after "이제", "다음으로" ... */
const KO_PRESENT_ACTS =
  /(?:진행합니다|시작합니다|넘어갑니다|이동합니다|착수합니다|들어갑니다|실행합니다|수정합니다|작성합니다|확인합니다|업데이트합니다|생성합니다|추가합니다|적용합니다|설치합니다|커밋합니다|테스트합니다)$/;

/** The word an ending closes is no action: understanding, waiting, being. */
const KO_NO_ACTION =
  /(?:^|\s)(?:알|모르|좋|감사하|되|있|없|같|하시|기다리|기다릴|대기하|대기할|기억하|기억할|명심하|참고하|참고할|유의하|주의하|조심하|멈추|멈출|중단하|중단할|삼가|보류하|보류할|않|안 하|안 할|못 하|못 할)[가-힣]{0,2}$|않겠|안 하겠|못 하겠|수 있|드릴 수/;

/** The word is words said right there: summarising, explaining. */
const KO_SAYING =
  /(?:정리|요약|설명|말씀|안내|소개|보고|알려|답변|공유)[가-힣]*$/;

const KOREAN: Language = {
  name: "Korean",
  announced(s) {
    const body = s.replace(KO_LEAD, "").replace(/[.!:~…]+$/, "").trim();
    const last = body.slice(body.lastIndexOf(" ") + 1);
    let owns = /겠습니다$|겠어요$/.test(last);
    // "할게요", "볼게요": a syllable ending in ㄹ, then 게요 (a promise).
    const promise = /([가-힣])게요?$/.exec(last);
    if (promise && finalConsonant(promise[1] as string) === 8) owns = true;
    // "합시다", "봅시다": let's.
    const lets = /([가-힣])시다$/.exec(last);
    if (lets && finalConsonant(lets[1] as string) === 17) owns = true;
    if (!owns && !(KO_NOW.test(body) && KO_PRESENT_ACTS.test(last))) {
      return null;
    }
    const stem = last.replace(/(?:겠습니다|겠어요|게요|게|시다)$/, "");
    if (KO_NO_ACTION.test(` ${stem}`) || KO_NO_ACTION.test(body)) return null;
    // "설명해 드리겠습니다": the verb may be the word before the ending's.
    const words = body.replace(/(?:겠습니다|겠어요|게요|게|시다)$/, "");
    const said = KO_SAYING.test(stem) ||
      /(?:정리|요약|설명|말씀|안내|소개|보고|알려|답변|공유)[가-힣]* 드리$/
        .test(words);
    return {
      kind: said ? "saying" : "action",
      immediate: KO_IMMEDIATE.test(body),
    };
  },
};

// ---------------------------------------------- Spanish, Portuguese, French

/** Builds the reading of a language that says "I'm going to <verb>". */
function romance(spec: {
  name: string;
  lead: readonly string[];
  opener: RegExp;
  future?: RegExp;
  doing?: RegExp;
  /** The present first person of a verb of work: "Je vérifie", "Reviso". */
  present?: RegExp;
  immediate: RegExp;
  noAction: RegExp;
  saying: RegExp;
}): Language {
  const lead = new RegExp(leadIns(spec.lead));
  return {
    name: spec.name,
    announced(s) {
      const body = s.replace(lead, "");
      const immediate = spec.immediate.test(s);
      const found = spec.opener.exec(body) ?? spec.future?.exec(body) ??
        spec.doing?.exec(body) ?? spec.present?.exec(body);
      if (!found) return null;
      const verb = found.slice(1).find((g) => g !== undefined) ?? "";
      if (spec.noAction.test(verb)) return null;
      return { kind: spec.saying.test(verb) ? "saying" : "action", immediate };
    },
  };
}

const SPANISH = romance({
  name: "Spanish",
  lead: [
    "ahora",
    "ahora mismo",
    "a continuación",
    "acto seguido",
    "enseguida",
    "primero",
    "luego",
    "después",
    "entonces",
    "bien",
    "muy bien",
    "vale",
    "de acuerdo",
    "perfecto",
    "listo",
    "ok",
    "okay",
    "bueno",
    "entendido",
    "claro",
    "genial",
    "excelente",
    "y",
    "así que",
    "por último",
    "finalmente",
  ],
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

const PORTUGUESE = romance({
  name: "Portuguese",
  lead: [
    "agora",
    "a seguir",
    "em seguida",
    "primeiro",
    "depois",
    "então",
    "bem",
    "certo",
    "ok",
    "okay",
    "perfeito",
    "pronto",
    "entendi",
    "beleza",
    "ótimo",
    "excelente",
    "claro",
    "e",
    "por fim",
    "finalmente",
  ],
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

const FRENCH = romance({
  name: "French",
  lead: [
    "maintenant",
    "ensuite",
    "à présent",
    "d'abord",
    "tout d'abord",
    "bien",
    "très bien",
    "parfait",
    "d'accord",
    "ok",
    "okay",
    "bon",
    "alors",
    "entendu",
    "compris",
    "super",
    "excellent",
    "et",
    "donc",
    "enfin",
    "pour finir",
  ],
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

const DE_LEAD = leadIns([
  "gut",
  "okay",
  "ok",
  "alles klar",
  "perfekt",
  "prima",
  "super",
  "verstanden",
  "also",
  "so",
  "und",
  "dann",
  "jetzt",
  "nun",
  "als nächstes",
  "zunächst",
  "zuerst",
  "danach",
  "anschließend",
]);

/** "Ich werde jetzt die Tests ausführen", "Lass mich die Logs prüfen". */
const DE_VERB_LAST = new RegExp(
  `${DE_LEAD}(?:ich werde|lass mich|lassen sie mich|lasst mich|wir werden) `,
  "u",
);

/** "Jetzt prüfe ich", "Als Nächstes passe ich ... an". */
const DE_INVERTED =
  /^(?:jetzt|nun|als nächstes|zunächst|zuerst|dann|danach|anschließend|gleich|sofort|direkt)[,]? ([\p{L}]+) ich\b/u;

/** "Ich prüfe jetzt", "Ich kümmere mich jetzt um". */
const DE_NOW_AFTER = new RegExp(
  `${DE_LEAD}ich ([\\p{L}]+) (?:mich )?(?:jetzt|nun|gleich|sofort|als nächstes|zunächst|zuerst|direkt)(?=[\\s,.!:]|$)`,
  "u",
);

/** "Ich kümmere mich darum", "Ich mache mich an die Arbeit". */
const DE_TAKE_ON = new RegExp(
  `${DE_LEAD}ich (?:kümmere mich|mache mich|setze mich) (?:(?:jetzt|nun|gleich|sofort|direkt) )*(?:darum|um|an|daran|dran)(?=[\\s,.!:]|$)`,
  "u",
);

/** "Ich prüfe die Logs": the present of a verb of work, first person. */
const DE_PRESENT = new RegExp(
  `${DE_LEAD}ich (?:prüfe|teste|starte|baue|aktualisiere|erstelle|füge|korrigiere|behebe|lösche|entferne|installiere|lese|schreibe|ändere|passe|führe|suche|lade|committe|pushe|implementiere|richte|lege|setze|verschiebe|benenne|kopiere|überprüfe|schaue|sehe mir|analysiere|untersuche|repariere|migriere|generiere|ergänze|bereinige|räume|mache mich)(?=[\\s,.!:]|$)`,
  "u",
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

const GERMAN: Language = {
  name: "German",
  announced(s) {
    // A "nicht" anywhere: the sentence says what will not be done.
    if (
      /(?:^|\s)(?:nicht|nichts|kein|keine|keinen|niemals)(?=[\s,.!:]|$)/u.test(
        s,
      )
    ) {
      return null;
    }
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
  },
};

// ---------------------------------------------------------------- Russian

const RU_LEAD = leadIns([
  "итак",
  "хорошо",
  "отлично",
  "ладно",
  "окей",
  "ок",
  "понял",
  "поняла",
  "понятно",
  "так",
  "и",
  "а",
  "ну",
  "супер",
  "готово",
  "ok",
]);

const RU_MARK =
  "(?:теперь|сейчас|далее|дальше|затем|сначала|потом|следующим шагом|в первую очередь)";

/** "Теперь я проверю", "Я сейчас обновлю", "Давайте проверим". */
const RU_OPENERS: readonly RegExp[] = [
  new RegExp(
    `${RU_LEAD}${RU_MARK},? я (?:теперь |сейчас |сразу )?([\\p{L}-]+)`,
    "u",
  ),
  new RegExp(
    `${RU_LEAD}я (?:теперь|сейчас|сразу|далее|затем|сначала) ([\\p{L}-]+)`,
    "u",
  ),
  new RegExp(
    `${RU_LEAD}давайте (?:я |теперь |сейчас |сначала |сразу )*([\\p{L}-]+)`,
    "u",
  ),
  new RegExp(
    `${RU_LEAD}давай (?:я |теперь |сейчас |сначала )*([\\p{L}-]+)`,
    "u",
  ),
  new RegExp(`${RU_LEAD}${RU_MARK},? ([\\p{L}]+(?:ю|у))(?=[\\s,.!:]|$)`, "u"),
  new RegExp(
    `${RU_LEAD}я ([\\p{L}]+(?:ю|у)) .*(?:сейчас|теперь|сразу)(?=[\\s,.!:]|$)`,
    "u",
  ),
  new RegExp(
    `${RU_LEAD}(?:${RU_MARK},? )?(приступаю|перехожу|переходим|перейду|приступлю|займусь|начну|начинаю|продолжаю|продолжу)(?=[\\s,.!:]|$)`,
    "u",
  ),
  // "Проверяю логи", "Обновляю файл": the present of the first person.
  new RegExp(`${RU_LEAD}([\\p{L}]+(?:аю|яю|ую|юю))(?=[\\s,.!:]|$)`, "u"),
];

const RU_IMMEDIATE =
  /(?:^|\s)(?:теперь|сейчас|сразу|немедленно|далее)(?=[\s,.!:]|$)/u;

const RU_NO_ACTION =
  /^(?:жду|подожду|ждать|подождать|знаю|понимаю|вижу|думаю|считаю|могу|смогу|хочу|должен|должна|нужно|надо|готов|готова|останусь|оставлю|буду|не|уже|рад|рада|помню|запомню|учту|прошу|предлагаю|рекомендую|советую|ожидаю|благодарю|напоминаю|подытоживаю|надеюсь|полагаю|допускаю|сомневаюсь|извиняюсь|уточняю)$|(?:л|ла|ло|ли|лся|лась|лись)$/u;

const RU_SAYING =
  /^(?:подытожу|резюмирую|объясню|поясню|опишу|отмечу|перечислю|расскажу|скажу|уточню|напомню|покажу|обобщу|изложу|сформулирую|суммирую|подытожим|резюмируем|обсудим|разберём|разберем|рассмотрим|обобщим)$/u;

const RUSSIAN: Language = {
  name: "Russian",
  announced(s) {
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
  },
};

/** Every language, in the order they are tried. */
export const LANGUAGES: readonly Language[] = [
  ENGLISH,
  CHINESE,
  JAPANESE,
  KOREAN,
  SPANISH,
  PORTUGUESE,
  FRENCH,
  GERMAN,
  RUSSIAN,
];

/**
 * What a normalised sentence (or the clause of it that holds the opener)
 * announces, in the first language that reads one.
 */
export function announcedIn(s: string, colon = false): Announced | null {
  for (const language of LANGUAGES) {
    const found = language.announced(s, colon);
    if (found) return found;
  }
  return null;
}

// ---------------------------------------- what makes a sentence not one

/** A question: a question mark, or a language's question ending. */
const QUESTION: readonly RegExp[] = [
  /\?["')\]]*$/,
  /^¿/,
  /[吗嗎呢][.!]?$/,
  /^是否|要不要|需不需要|可不可以|好不好|行不行/,
  /(?:か|かね|でしょうか|ますか|ませんか|ましょうか|どうですか|いかがですか|いかがでしょう)[.!]?$/,
  /(?:까요|까|나요|가요|니까|습니까|실래요|시겠어요|죠)[.!]?$/,
];

/**
 * Phrases that hand the turn back to the user: a request, an offer, a
 * choice, a question put as a statement.
 */
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

/**
 * Words that make a sentence conditional on something still to happen
 * (the user, or work running elsewhere): "once you confirm, I'll...",
 * "I'll summarise when it finishes", "if you'd like, I can...".
 */
const CONDITIONAL: readonly RegExp[] = [
  // "If", "when", "after" open a condition at a clause's start; after a
  // verb ("check if", "see when") they ask whether, which is no condition.
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

/** Whether a normalised sentence is a question. */
export function isQuestion(s: string): boolean {
  return QUESTION.some((p) => p.test(s));
}

/** Whether a normalised sentence hands the turn back (or asks). */
export function handsBack(s: string): boolean {
  return isQuestion(s) || HAND_BACK.some((p) => p.test(s));
}

/** Whether a normalised sentence waits on a condition or puts the act off. */
export function conditionalOrLater(s: string): boolean {
  return CONDITIONAL.some((p) => p.test(s)) || DEFERRED.some((p) => p.test(s));
}
