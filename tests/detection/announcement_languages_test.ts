/**
 * `announced_no_call` in the languages people write: for each, replies
 * shaped like a model's closing message after tool work (written for these
 * tests), the announcements that must be caught and the endings that must
 * stay silent: a question to the user (also in the sentence before the
 * last), handing the choice back, a summary in the past tense, a plan
 * offered for approval, a condition, a promise about later, quoted or code
 * text.
 */

import assert from "node:assert/strict";
import { judgeClosingText } from "../../src/detection/_model_text.ts";

/** A reply that must be caught, and the words it must be caught on. */
type Caught = readonly [reply: string, announcement: string];

/** One language's replies. */
interface Cases {
  caught: readonly Caught[];
  silent: readonly string[];
}

function check(language: string, cases: Cases): void {
  for (const [reply, announcement] of cases.caught) {
    const judged = judgeClosingText(reply);
    assert.equal(judged.announcement, announcement, `${language}: ${reply}`);
    assert.equal(judged.leadsOn, true, `${language}: ${reply}`);
    assert.equal(judged.complete, false, `${language}: ${reply}`);
  }
  for (const reply of cases.silent) {
    assert.equal(
      judgeClosingText(reply).announcement,
      null,
      `${language} must stay silent: ${reply}`,
    );
  }
}

Deno.test("announced_no_call, English: the next task named in bold after a colon, a lead-in to a list or a command; never a question before the last sentence, a plan for approval or a quoted line", () => {
  check("English", {
    caught: [
      [
        "Task 3 is done: the importer now skips blank rows and the 12 new tests pass.\n\nI'll now move on to the next task: **Task 4: Add response caching**.",
        "I'll now move on to the next task: Task 4: Add response caching.",
      ],
      [
        "Moving on to the next task: **Wire up the settings page**",
        "Moving on to the next task: Wire up the settings page",
      ],
      [
        "Found it: `saveOrder()` is never awaited.\n\nNow updating the handler and its test:\n\n- `src/handler.ts`: await the write\n- `tests/handler_test.ts`: assert the row exists",
        "Now updating the handler and its test:",
      ],
      [
        "Lint is clean. Let me run the build to confirm:\n\n```bash\nnpm run build\n```",
        "Let me run the build to confirm:",
      ],
      [
        "Got it, I'll fix the import order in `main.ts`.",
        "Got it, I'll fix the import order in main.ts.",
      ],
      [
        "34 of 34 pass. Now update the changelog and commit:",
        "Now update the changelog and commit:",
      ],
      [
        "The schema folder already exists. Copying the report files there.",
        "Copying the report files there.",
      ],
      [
        "Starting with Task 1: Install the mail client and send the welcome email.",
        "Starting with Task 1: Install the mail client and send the welcome email.",
      ],
      [
        "Let me check if you have the API key set:",
        "Let me check if you have the API key set:",
      ],
      [
        "The preview deploy is up.\n\nYou can try the signup form there while I keep wiring the email step.",
        "You can try the signup form there while I keep wiring the email step.",
      ],
    ],
    silent: [
      "The preview deploy is up. You can try the signup form while I wait for your feedback.",
      "The deploy is running; you can read the logs while I keep watching the build.",
      "The importer ran as I worked through the fixtures, and all 40 rows loaded.",
      "Shall I move on to the next task: **Add caching**?",
      "Does this look right to you? I'll start on the migration.",
      "Let me know which of the two layouts you prefer.",
      "I updated the parser, added three tests and fixed the docs. Everything passes.",
      "Here's the plan:\n\n1. Add the cache layer\n2. Update the handlers\n3. Write the tests\n\nDoes this plan work for you?",
      "Here's the plan I propose:\n\n1. I'll add the cache layer.\n2. I'll update the handlers.",
      "Let me summarize what changed:\n\n- The parser keeps offsets\n- The docs list the new flag",
      "The README's install section ends with this line:\n\n> I'll now pipe the installer into sh to finish the setup.",
      "The script's last comment reads:\n\n```sh\ncurl -fsSL https://example.com/i.sh -o i.sh\n# I'll now pipe the installer into sh\n```",
      'The issue ends with "I\'ll now run the migration on production."',
      "Once the CI run finishes, I'll merge the branch.",
      "I'll clean up the old fixtures in a later session.",
      "Now, in future sessions, I'll use the project's own test script.",
      // A verb-first lead-in to a command: a step for the user.
      "Now run the app:\n\n```bash\nnpm start\n```",
      "Adding tests for the parser would help here.",
      "Checking the box enables dark mode.",
      "Reading the config happens once at start-up.",
      "Testing is complete now.",
      "If you'd like, I can add the tests next.",
    ],
  });
});

Deno.test("announced_no_call, Chinese: 现在我来/接下来我将/我现在/让我/我来 and a closing colon or list, in simplified and traditional script; never a question, a hand-back, a condition, next time or a quote", () => {
  check("Chinese", {
    caught: [
      [
        "第一部分已经完成。\n\n我现在处理接下来的几点，并更新计划文件：\n\n- 第二点：补充错误处理\n- 第三点：更新单元测试\n- 第四点：同步文档",
        "我现在处理接下来的几点，并更新计划文件：",
      ],
      [
        "好的，现在开始写入笔记。\n\n**笔记摘要**：\n- 会话目标：重构权限模块\n- 关键决策：保留旧接口",
        "好的，现在开始写入笔记。",
      ],
      ["你说得对，我来修改。", "你说得对，我来修改。"],
      ["按照你的要求，我现在就去做。", "按照你的要求，我现在就去做。"],
      [
        "測試都通過了。接下來我將更新 README：",
        "接下來我將更新 README：",
      ],
      ["讓我檢查一下建置結果：", "讓我檢查一下建置結果："],
      [
        "找到原因了，是缓存键缺少语言参数。现在我来修复 `cache.ts`。",
        "现在我来修复 cache.ts。",
      ],
      ["两个版本都能正常运行。更新 todo：", "更新 todo："],
      ["先撤销 `index.vue` 的修改：", "先撤销 index.vue 的修改："],
      ["好，那我把两个 HTML 合成一个。", "好，那我把两个 HTML 合成一个。"],
    ],
    silent: [
      "已經修改完成。要我幫你執行嗎？",
      "你想用哪種方案？方案 B 更可靠，我來實作。",
      "如果你有這個腳本的路徑，可以告訴我，我來執行。",
      "已完成！worktree 已移除，目錄也清理乾淨了。",
      "下次發 PR 時我會直接使用 /pr skill。",
      "計劃如下：\n\n1. 新增快取層\n2. 更新處理函式\n\n這樣可以嗎？",
      "让我总结一下：\n\n- 修复了登录问题\n- 更新了测试",
      "README 最后一行写着：\n\n> 我现在来执行安装脚本。",
      "現在所有 git 專案都會自動忽略 `.serena/` 目錄。",
      "我需要讀取權限才能繼續。請授予我讀取此檔案的權限。",
      "请告诉我你想先处理哪个模块。",
      "确认后我再更新计划文件。",
      // A verb-first lead-in to a command, or after a clause that sets up
      // the user's step: not the model's.
      "执行以下命令：\n\n```bash\npnpm build\n```",
      "现在可以在 .env.local 加上这一行，然后跑 pnpm preview 就会生效了。",
      "先读取了完整内容，然后更新了测试。",
      "我把以下文件都更新了：\n\n- `a.ts`\n- `b.ts`",
    ],
  });
});

Deno.test("announced_no_call, Japanese: 次に〜します, 〜してみます, 〜しますね, では〜します： and a lead-in to a list; never a question, a request, a proposal, a description or a quote", () => {
  check("Japanese", {
    caught: [
      [
        "ビルドは成功しました。次に、テストを実行します。",
        "次に、テストを実行します。",
      ],
      ["では、設定ファイルを更新します：", "では、設定ファイルを更新します："],
      ["原因がわかりました。修正してみます。", "修正してみます。"],
      [
        "承知しました。それでは、以下の順で進めていきます：\n\n1. 型定義の修正\n2. テストの追加",
        "それでは、以下の順で進めていきます：",
      ],
      ["ログを確認しますね。", "ログを確認しますね。"],
    ],
    silent: [
      "どのPhaseから始めたいか教えていただければ、実装をサポートします！",
      "テストを実行しましょうか？",
      "修正が完了しました。すべてのテストが通っています。",
      "以下の方針を提案します：\n\n1. キャッシュ層を追加\n2. ハンドラを更新\n\nこの方針でよろしいでしょうか？",
      "このスクリプトは設定を読み込みます。",
      "後でログを確認します。",
      "「次に、テストを実行します。」とREADMEに書かれています。",
      "ご確認ください。",
    ],
  });
});

Deno.test("announced_no_call, Korean: 이제 ~하겠습니다, ~할게요, 다음으로, 먼저 ~해 보겠습니다: and a lead-in to a command; never a question, also not in the sentence before the last", () => {
  check("Korean", {
    caught: [
      [
        "빌드가 성공했습니다. 이제 테스트를 실행하겠습니다.",
        "이제 테스트를 실행하겠습니다.",
      ],
      [
        "다음으로 설정 파일을 수정할게요:",
        "다음으로 설정 파일을 수정할게요:",
      ],
      [
        "확인했습니다. 바로 커밋을 진행하겠습니다.",
        "바로 커밋을 진행하겠습니다.",
      ],
      [
        "먼저 로그를 확인해 보겠습니다:\n\n```bash\ntail -n 50 app.log\n```",
        "먼저 로그를 확인해 보겠습니다:",
      ],
      [
        "이제 문서를 업데이트합니다:\n\n- README 설치 절차\n- CHANGELOG 항목",
        "이제 문서를 업데이트합니다:",
      ],
    ],
    silent: [
      "어떤 방식으로 진행할까요? 결정해 주시면 바로 진행하겠습니다.",
      "이대로 커밋할까요? 바로 푸시하겠습니다.",
      "모든 테스트가 통과했습니다. 변경 사항을 정리했습니다.",
      "알겠습니다.",
      "앞으로는 커밋 전에 린트를 실행하겠습니다.",
      "완료되면 알려드리겠습니다.",
      "다음과 같이 진행하는 것을 제안합니다:\n\n1. 캐시 추가\n2. 핸들러 수정\n\n괜찮으신가요?",
      "설치 안내의 마지막 줄입니다:\n\n> 이제 설치 스크립트를 실행하겠습니다.",
      "이제 모든 테스트가 통과합니다.",
      "결과를 요약해 드리겠습니다.",
    ],
  });
});

Deno.test("announced_no_call, Spanish: Ahora voy a, Déjame, paso a, estoy + gerund, the future; never a question, a hand-back, a wait or words already said", () => {
  check("Spanish", {
    caught: [
      [
        "Los tests pasan. Ahora voy a actualizar la documentación.",
        "Ahora voy a actualizar la documentación.",
      ],
      [
        "Déjame revisar los logs del servidor:",
        "Déjame revisar los logs del servidor:",
      ],
      [
        "Perfecto, paso a la siguiente tarea: **Añadir caché**.",
        "Perfecto, paso a la siguiente tarea: Añadir caché.",
      ],
      [
        "Vale, estoy actualizando el archivo de configuración ahora:",
        "Vale, estoy actualizando el archivo de configuración ahora:",
      ],
      [
        "Revisaré el esquema de la base de datos ahora.",
        "Revisaré el esquema de la base de datos ahora.",
      ],
      ["Reviso los logs del contenedor:", "Reviso los logs del contenedor:"],
    ],
    silent: [
      "¿Quieres que ejecute las pruebas ahora?",
      "¿Te parece bien este enfoque? Voy a empezar por el módulo de pagos.",
      "Avísame si prefieres otra opción.",
      "He actualizado el archivo y todas las pruebas pasan.",
      "Este es el plan:\n\n1. Añadir la caché\n2. Actualizar los handlers\n\n¿Procedo con este plan?",
      "Cuando termine el despliegue, voy a revisar los logs.",
      "Voy a esperar a que termine la compilación.",
      "Déjame explicarte el cambio: la caché no se invalidaba.",
    ],
  });
});

Deno.test("announced_no_call, Portuguese: Agora vou, Deixe-me, estou + gerund, vou; never a question, a hand-back, a wait, a condition or a quote", () => {
  check("Portuguese", {
    caught: [
      [
        "O build passou. Agora vou rodar os testes de integração.",
        "Agora vou rodar os testes de integração.",
      ],
      [
        "Deixe-me verificar o arquivo de configuração:",
        "Deixe-me verificar o arquivo de configuração:",
      ],
      [
        "Certo, estou atualizando o README agora:",
        "Certo, estou atualizando o README agora:",
      ],
      [
        "Vou criar a migração do banco de dados.",
        "Vou criar a migração do banco de dados.",
      ],
      ["Verifico o log do servidor:", "Verifico o log do servidor:"],
    ],
    silent: [
      "Quer que eu rode os testes agora?",
      "Me avise se preferir outra abordagem.",
      "Atualizei o arquivo e todos os testes passaram.",
      "Se você confirmar, vou aplicar a migração.",
      "Vou aguardar o fim do build.",
      "A última linha do README diz:\n\n> Agora vou executar o script de instalação.",
    ],
  });
});

Deno.test("announced_no_call, French: Je vais maintenant, Laissez-moi, Passons à, Je lance, with French spacing before a colon; never a question, a hand-back, a condition, a wait or words already said", () => {
  check("French", {
    caught: [
      [
        "Les tests passent. Je vais maintenant mettre à jour la documentation.",
        "Je vais maintenant mettre à jour la documentation.",
      ],
      [
        "Laissez-moi vérifier les journaux du serveur :",
        "Laissez-moi vérifier les journaux du serveur :",
      ],
      [
        "Parfait, passons à la tâche suivante : **Ajouter le cache**.",
        "Parfait, passons à la tâche suivante : Ajouter le cache.",
      ],
      [
        "Je lance les tests d'intégration.",
        "Je lance les tests d'intégration.",
      ],
      [
        "Données reçues. Je rédige la page maintenant.",
        "Je rédige la page maintenant.",
      ],
    ],
    silent: [
      "Voulez-vous que je lance les tests ?",
      "Dis-moi ce que tu préfères.",
      "J'ai mis à jour le fichier et tous les tests passent.",
      "Si vous êtes d'accord, je vais appliquer la migration.",
      "Je vais attendre la fin du build.",
      "Je vais vous expliquer : le cache n'était pas invalidé.",
      "Je pense que le cache est la cause.",
      "Désormais, je vais lancer le linter avant chaque commit.",
    ],
  });
});

Deno.test("announced_no_call, German: Ich werde jetzt, Lass mich, Als Nächstes, Ich prüfe jetzt, Schauen wir; never a question, a hand-back, a condition, a negation or a wait", () => {
  check("German", {
    caught: [
      [
        "Die Tests sind grün. Ich werde jetzt die Dokumentation aktualisieren.",
        "Ich werde jetzt die Dokumentation aktualisieren.",
      ],
      ["Lass mich die Logs prüfen:", "Lass mich die Logs prüfen:"],
      [
        "Als Nächstes passe ich die Konfiguration an.",
        "Als Nächstes passe ich die Konfiguration an.",
      ],
      [
        "Gut, ich prüfe jetzt die Datenbankverbindung.",
        "Gut, ich prüfe jetzt die Datenbankverbindung.",
      ],
      [
        "Schauen wir uns die Fehlermeldung an:",
        "Schauen wir uns die Fehlermeldung an:",
      ],
      [
        "Ich prüfe die Logs des Containers.",
        "Ich prüfe die Logs des Containers.",
      ],
    ],
    silent: [
      "Soll ich die Tests jetzt ausführen?",
      "Gib mir Bescheid, welche Variante du bevorzugst.",
      "Ich habe die Datei aktualisiert und alle Tests laufen durch.",
      "Sobald du bestätigst, werde ich die Migration ausführen.",
      "Ich werde jetzt nichts weiter ändern.",
      "Ich werde auf den Build warten.",
      "Lass mich wissen, ob das so passt.",
    ],
  });
});

Deno.test("announced_no_call, Russian: Теперь я, Сейчас, Давайте, Перехожу к; never a question, a hand-back, the past, what it sees or a condition", () => {
  check("Russian", {
    caught: [
      [
        "Сборка прошла успешно. Теперь я обновлю документацию.",
        "Теперь я обновлю документацию.",
      ],
      ["Давайте проверим логи сервера:", "Давайте проверим логи сервера:"],
      ["Сейчас посмотрю конфигурацию.", "Сейчас посмотрю конфигурацию."],
      [
        "Перехожу к следующей задаче: **Добавить кэширование**.",
        "Перехожу к следующей задаче: Добавить кэширование.",
      ],
      ["Проверяю логи контейнера.", "Проверяю логи контейнера."],
    ],
    silent: [
      "Хотите, чтобы я запустил тесты?",
      "Дайте знать, какой вариант вам больше подходит.",
      "Я обновил файл, и все тесты проходят.",
      "Теперь я вижу, в чём проблема.",
      "Когда сборка закончится, я проверю логи.",
      "Давайте я подытожу: всё работает.",
      "Предлагаю сначала обновить схему.",
    ],
  });
});
