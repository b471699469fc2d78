/**
 * The readings of Chinese, Japanese and Korean (see `_announce_phrases.ts`):
 * written without spaces (Chinese, Japanese), or closed by a verb ending.
 *
 * @module
 */

import { after, type Announced, leadIns } from "./_announce_phrases.ts";

// Chinese (simplified and traditional)

const ZH_LEAD = new RegExp(
  leadIns(
    "好的|好吧|好|嗯|行|明白了?|了解了?|收到|没问题|沒問題|对|對|是的|确实|確實|你说得对|你說得對|您说得对|您說得對|没错|沒錯|那么|那麼|那|所以|因此|接着|接著|然后|然後|首先|另外|此外|ok|okay",
    true,
  ),
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

/** Verbs of work, needed after "now" without the "I" ("现在所有测试都通过" describes). */
const ZH_WORK =
  /^(?:处理|處理|更新|创建|創建|建立|新建|修改|修正|修复|修復|执行|執行|运行|運行|跑|写|寫|编写|編寫|撰写|撰寫|检查|檢查|查看|查找|搜索|搜尋|安装|安裝|提交|推送|测试|測試|实现|實現|实作|實作|添加|加入|新增|删除|刪除|移除|整理|读取|讀取|阅读|閱讀|部署|合并|合併|重构|重構|调整|調整|生成|配置|设置|設置|设定|設定|补充|補充|完善|进行|進行|验证|驗證|确认|確認|研究|调查|調查|排查|定位|优化|優化|改|加|做|记录|記錄|保存|储存|儲存|下载|下載|上传|上傳|启动|啟動|重启|重啟|构建|構建|编译|編譯|清理|打开|打開|导入|導入|导出|導出|迁移|遷移|升级|升級|准备|準備|把|将|將|开始|開始|着手|著手|继续|繼續|来|來|去|找|简化|簡化|试|試|撤销|撤銷|还原|還原|恢复|恢復|删|刪|回滚|回滾|替换|替換|重命名|拆分|切换|切換|引入|移动|移動|复制|複製|装|裝|跳过|跳過|标记|標記|同步|拉取|克隆|获取|獲取|抓取|列出)/;

/** Adverbs of order before a verb with no subject ("先撤销修改"): the speaker's next steps. */
const ZH_SEQUENCE =
  /^(?:先|首先|再|继续|繼續|直接|接着|接著|然后|然後|最后|最後|同时|同時|顺便|順便|也|还要|還要|马上|馬上|立即|立刻|开始|開始)+/;

/** A clause in the past or done: "先读取了", "已经更新", "把文件都更新了". */
const ZH_DONE = /了(?:[,.!:;]|$)|^[^,]{0,6}了(?!解)|^已|已经|已經/;

export function readChinese(s: string, colon: boolean): Announced | null {
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
  if (/^我(?!们|們)/.test(body)) {
    const rest = after(body, 1).replace(ZH_FILLER, "");
    const working = ZH_WORK.test(rest) && !ZH_DONE.test(rest);
    return working ? zhVerb(rest, immediate) : null;
  }
  // A verb with no subject: "更新 todo：", "先撤销 index.vue 的修改：".
  const sequence = ZH_SEQUENCE.exec(body)?.[0] ?? "";
  const led = sequence !== "" || body.length < s.length;
  const rest = body.slice(sequence.length).trim();
  if (!(colon || led) || !ZH_WORK.test(rest) || ZH_DONE.test(rest)) return null;
  const found = zhVerb(rest, true);
  return found && { ...found, bare: true };
}

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
  leadIns(
    "はい|了解です|了解しました|了解|わかりました|分かりました|承知しました|かしこまりました|よし|ok",
    true,
  ),
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

/** A topic or subject of its own ("この関数は"): the sentence is about something else. */
const JA_OTHER_SUBJECT = /[^\sでずのれ今度回]は|[^\sな]が[^\sんら]/;

/** Moving on: the model's own when nothing else is the subject. */
const JA_MOVE_END = /(?:進みます|移ります|移行します)(?:ね|よ)?$/;

export function readJapanese(s: string, colon: boolean): Announced | null {
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
}

// ----------------------------------------------------------------- Korean

/** Hangul syllable `c`'s final consonant index (0: none; 8: ㄹ; 17: ㅂ). */
function finalConsonant(c: string): number {
  const code = c.charCodeAt(0) - 0xac00;
  return code >= 0 && code < 11172 ? code % 28 : -1;
}

const KO_LEAD = new RegExp(
  leadIns("네|좋습니다|좋아요|알겠습니다|그럼|그러면|자|ok"),
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

export function readKorean(s: string): Announced | null {
  const body = s.replace(KO_LEAD, "").replace(/[.!:~…]+$/, "").trim();
  const last = body.slice(body.lastIndexOf(" ") + 1);
  let owns = /겠습니다$|겠어요$/.test(last);
  // "할게요", "볼게요": a syllable ending in ㄹ, then 게요 (a promise).
  const promise = /([가-힣])게요?$/.exec(last);
  if (promise && finalConsonant(promise[1] as string) === 8) owns = true;
  // "합시다", "봅시다": let's.
  const lets = /([가-힣])시다$/.exec(last);
  if (lets && finalConsonant(lets[1] as string) === 17) owns = true;
  if (!owns && !(KO_NOW.test(body) && KO_PRESENT_ACTS.test(last))) return null;
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
}
