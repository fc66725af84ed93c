"""The Chat tab's words in Japanese (issue 60): the ``ja`` column of ``ui.words``' labels and of
``ui.chat.said``'s lines, key → words. It holds the Chat tab's keys only; ``ui.i18n`` decides what the other
tabs show in Japanese (English for now). Names of buttons and choices are said as the page shows them."""

from __future__ import annotations

__all__ = ["JAPANESE"]

JAPANESE: dict[str, str] = {
    # the labels (``ui.words``): the page's title and tabs, the Chat tab
    "title": "# KIMAs Desktop\nあなた自身の文書からのプライベートな回答。すべてこのコンピューター上で計算されます。",
    "tab_chat": "チャット",
    "tab_knowledge": "ナレッジ",
    "tab_evaluation": "評価",
    "tab_settings": "設定",
    "new_chat": "新しいチャット",
    "search_chats": "会話を検索…",
    "rename_or_delete": "このチャットの名前を変更または削除",
    "chat_title": "タイトル",
    "rename": "名前を変更",
    "delete_chat": "チャットを削除…",
    "confirm_delete_chat": "はい、削除します",
    "cancel": "キャンセル",
    "ask_placeholder": "文書について質問する…",
    "ask_placeholder_model": "モデルだけに質問する（文書は読みません）…",
    "send": "送信",
    "also_ask": "オンラインにも問い合わせる（この質問のみ）",
    "stop": "停止",
    "regenerate": "再生成",
    "ready_hint": "文書について質問してください。回答には、その出典となったファイルが示されます。",
    "send_note": (
        "回答の作成中に新しい質問を送ると、その回答は停止し（見つけた内容は残ります）、新しい質問に答えます。"
        "**再生成** は別の回答を書きます。以前の回答はその下に残ります。"
    ),
    "mode_label": "回答の根拠",
    "mode_info": "あなたの文書から回答するか、モデルだけで回答するか（モデル自身の知識で答え、文書は使いません）。",
    "mode_documents": "自分の文書",
    "mode_model": "モデルのみ",
    "ask_model_alone": "代わりにモデルだけに質問する",
    "no_knowledge_hint": (
        "**まだナレッジがありません。** **ナレッジ** タブを開いてコレクションを作成し、ファイルやフォルダーを"
        "まるごとドロップしてください（または監視するフォルダーを追加してください）。それからここで質問して"
        "ください。下の **回答の根拠：モデルのみ** を選ぶこともできます。モデルが自身の知識で回答し、"
        "あなたの文書からではないことが明示されます。"
    ),
    "store_problem": "**ナレッジの保存先を読み込めません。** {message} 詳しくは {log} を参照してください。",
    "chats_none": "_ここに会話の一覧が表示されます。_",
    "chats_no_match": "_一致する会話はありません。_",
    "model_loading": "モデルを読み込んでいます…",
    "model_loading_named": "モデルを読み込んでいます…（{models}）",
    "model_ready": "準備完了：{models}。",
    "models": "チャットモデル {chat}、埋め込みモデル {embedding}",
    "built_in": "{name}（内蔵）",
    "server_model": "{url} の {model}",
    "the_server_model": "サーバーのモデル",
    "marked_wrong": (
        "誤りとして記録しました。この質問をテストするには、評価 タブで自分の質問として、"
        "答えが書かれたファイルと一緒に追加してください。"
    ),
    "marked_good_uncited": "良い回答として記録しましたが、ファイルを引用していないため、テストセットには加えられません。",
    "marked_good_no_set": "良い回答として記録しました。評価 タブでテストセットを作ると、このような質問を残せます。",
    "marked_good": "良い回答として記録しました：「{question}」がテストセットに加わります（答えは {file}）。",
    # the chat's own lines (``ui.chat.said``), said in the question's language
    "from your documents": "あなたの文書から",
    "closest passages": "あなたの文書で最も近い箇所",
    "sources": "出典",
    "how made": "この回答ができるまで",
    "try anyway": "_**再生成** を押すと、それでもモデルに回答させることができます。_",
    "pace writing": "これまでに {words} 語、毎秒 {rate} 語。",
    "pace reading": "モデルはまず出典を読んでいます：プロンプト {tokens} トークン。",
    "pace reading at": "モデルはまず出典を読んでいます：プロンプト {tokens} トークン、毎秒約 {rate} トークン（{source}）。",
    "measured at load": "読み込み時に測定",
    "recent answers": "最近の回答から",
    "unknown": "不明",
    "thinking": "考えています…",
    "stopped": "_停止しました。_",
    "stopped because": "_停止しました（{why}）。_",
    "you asked a new question": "新しい質問が送られたため",
    "could not answer": "⚠ **回答できませんでした：** {why}",
    "no citations": "_この回答には引用を付けられませんでした。_",
    "found before stop": "停止する前に見つかった出典",
    "quote unused": "⚠ モデルの回答は上の引用箇所を使っていません。引用が、あなたの文書に書かれている内容です。",
    "unsupported sentences": "⚠ この回答のうち {n} 文は出典に見つかりませんでした。",
    "at page": "{n} ページ",
    "at page ocr": "{n} ページ（OCR）",
    "at lines": "{start}-{end} 行目",
    "web": "ウェブ（{name}）",
    "open page": "ページを開く",
    "retrieved": " · {when} に取得",
    "original file": "元のファイル",
    "open file": "{name} を開く",
    "open at passage": "{name} をこの箇所で開く",
    "not in the sources": "出典にない",
    "weakly backed": "出典の裏付けが弱い",
    "restates the question": "質問を言い換えただけ",
    "misses the answer": "答えになっていない",
    "missing facts": "出典にない：{facts}",
    "sources say": "{reason}：出典では {facts}",
    "not found": "出典に見つからない",
    "flag": "根拠なし",
    "computed": "計算結果：{what}",
    "row": "行",
    "more rows": "ほか {n} 行",
    "answer n": "回答 {n}",
    "answer stopped": "（停止）",
    "no answer": "（回答なし）",
    "earlier answers": "この質問への以前の回答 {n} 件",
    "model alone label": "あなたの文書からではありません：モデルが自身の知識で回答しました。誤りがあるかもしれません。",
    "offer": (
        "モデルだけに質問することもできます。文書ではなく、モデル自身の知識で答えます。"
        "下の **{button}** をクリックするか、**{mode}：{alone}** を選んでください。"
    ),
}
