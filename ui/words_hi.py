"""The Chat tab's words in Hindi (issue 60): the ``hi`` column of ``ui.words``' labels and of
``ui.chat.said``'s lines, key → words. It holds the Chat tab's keys only; ``ui.i18n`` decides what the other
tabs show in Hindi (English for now). Names of buttons and choices are said as the page shows them."""

from __future__ import annotations

__all__ = ["HINDI"]

HINDI: dict[str, str] = {
    # the labels (``ui.words``): the page's title and tabs, the Chat tab
    "title": "# KIMAs Desktop\nआपके अपने दस्तावेज़ों से निजी उत्तर, जो इसी कंप्यूटर पर तैयार होते हैं।",
    "tab_chat": "चैट",
    "tab_knowledge": "ज्ञान",
    "tab_evaluation": "मूल्यांकन",
    "tab_settings": "सेटिंग्स",
    "new_chat": "नई चैट",
    "search_chats": "बातचीत खोजें…",
    "rename_or_delete": "इस चैट का नाम बदलें या इसे हटाएँ",
    "chat_title": "शीर्षक",
    "rename": "नाम बदलें",
    "delete_chat": "चैट हटाएँ…",
    "confirm_delete_chat": "हाँ, इसे हटाएँ",
    "cancel": "रद्द करें",
    "ask_placeholder": "अपने दस्तावेज़ों के बारे में पूछें…",
    "ask_placeholder_model": "केवल मॉडल से पूछें (आपके दस्तावेज़ों से नहीं)…",
    "send": "भेजें",
    "also_ask": "ऑनलाइन भी पूछें (केवल यह प्रश्न)",
    "stop": "रोकें",
    "regenerate": "फिर से बनाएँ",
    "ready_hint": "अपने दस्तावेज़ों के बारे में प्रश्न पूछें। उत्तर बताते हैं कि वे किन फ़ाइलों से लिए गए हैं।",
    "send_note": (
        "जब कोई उत्तर लिखा जा रहा हो और आप नया प्रश्न भेजें, तो वह उत्तर रुक जाता है (उसे जो मिला, वह बना रहता "
        "है) और नया प्रश्न पूछा जाता है। **फिर से बनाएँ** एक अलग उत्तर लिखता है; पहले के उत्तर उसके नीचे बने "
        "रहते हैं।"
    ),
    "mode_label": "उत्तर का आधार",
    "mode_info": "आपके दस्तावेज़ों से उत्तर, या केवल मॉडल से: उसके अपने ज्ञान से, आपके दस्तावेज़ों से नहीं।",
    "mode_documents": "मेरे दस्तावेज़",
    "mode_model": "केवल मॉडल",
    "ask_model_alone": "इसके बजाय केवल मॉडल से पूछें",
    "no_knowledge_hint": (
        "**अभी कोई ज्ञान नहीं है।** **ज्ञान** टैब खोलें, एक संग्रह बनाएँ और उस पर फ़ाइलें या पूरा फ़ोल्डर "
        "छोड़ें (या नज़र रखने के लिए कोई फ़ोल्डर जोड़ें)। फिर अपने प्रश्न यहाँ पूछें। या नीचे **उत्तर का आधार: "
        "केवल मॉडल** चुनें: मॉडल अपने ज्ञान से उत्तर देता है, और बताया जाता है कि उत्तर आपके दस्तावेज़ों से "
        "नहीं है।"
    ),
    "store_problem": "**ज्ञान-भंडार पढ़ा नहीं जा सकता।** {message} विवरण {log} में है।",
    "chats_none": "_आपकी बातचीत यहाँ दिखेंगी।_",
    "chats_no_match": "_कोई बातचीत मेल नहीं खाती।_",
    "model_loading": "मॉडल लोड हो रहा है…",
    "model_loading_named": "मॉडल लोड हो रहा है… ({models})",
    "model_ready": "तैयार: {models}।",
    "models": "चैट मॉडल {chat}, एम्बेडिंग मॉडल {embedding}",
    "built_in": "{name} (अंतर्निहित)",
    "server_model": "{url} पर {model}",
    "the_server_model": "सर्वर का मॉडल",
    "marked_wrong": (
        "गलत के रूप में चिह्नित किया गया। इस प्रश्न को परखने के लिए, इसे उत्तर देने वाली फ़ाइल के साथ "
        "मूल्यांकन टैब में अपने प्रश्न के रूप में जोड़ें।"
    ),
    "marked_good_uncited": (
        "सही के रूप में चिह्नित किया गया, लेकिन उत्तर किसी फ़ाइल का हवाला नहीं देता, इसलिए यह परीक्षण सेट में नहीं जुड़ सकता।"
    ),
    "marked_good_no_set": (
        "सही के रूप में चिह्नित किया गया। ऐसे प्रश्नों को रखने के लिए मूल्यांकन टैब में एक परीक्षण सेट बनाएँ।"
    ),
    "marked_good": "सही के रूप में चिह्नित किया गया: “{question}” परीक्षण सेट में जुड़ गया; इसका उत्तर {file} में है।",
    # the chat's own lines (``ui.chat.said``), said in the question's language
    "from your documents": "आपके दस्तावेज़ों से",
    "closest passages": "आपके दस्तावेज़ों के सबसे नज़दीकी अंश",
    "sources": "स्रोत",
    "how made": "यह उत्तर कैसे बना",
    "try anyway": "_मॉडल को फिर भी उत्तर देने देने के लिए **फिर से बनाएँ** दबाएँ।_",
    "pace writing": "अब तक {words} शब्द, {rate} शब्द प्रति सेकंड।",
    "pace reading": "मॉडल पहले अपने स्रोत पढ़ता है: {tokens} प्रॉम्प्ट टोकन।",
    "pace reading at": "मॉडल पहले अपने स्रोत पढ़ता है: {tokens} प्रॉम्प्ट टोकन, लगभग {rate} टोकन प्रति सेकंड ({source})।",
    "measured at load": "लोड के समय मापा गया",
    "recent answers": "हाल के उत्तरों से",
    "unknown": "अज्ञात",
    "thinking": "सोच रहा है…",
    "stopped": "_रोक दिया गया।_",
    "stopped because": "_रोक दिया गया ({why})।_",
    "you asked a new question": "आपने नया प्रश्न पूछा",
    "could not answer": "⚠ **उत्तर नहीं दिया जा सका:** {why}",
    "no citations": "_इस उत्तर के लिए उद्धरण उपलब्ध नहीं हैं।_",
    "found before stop": "रुकने से पहले मिले स्रोत",
    "quote unused": "⚠ मॉडल का उत्तर ऊपर उद्धृत अंश का उपयोग नहीं करता; आपके दस्तावेज़ जो कहते हैं, वह उद्धरण है।",
    "unsupported sentences": "⚠ इस उत्तर के {n} वाक्य स्रोतों में नहीं मिले।",
    "at page": "पृष्ठ {n}",
    "at page ocr": "पृष्ठ {n} (OCR)",
    "at lines": "पंक्तियाँ {start}-{end}",
    "web": "वेब ({name})",
    "open page": "पेज खोलें",
    "retrieved": " · {when} को प्राप्त",
    "original file": "मूल फ़ाइल",
    "open file": "{name} खोलें",
    "open at passage": "{name} को इस अंश पर खोलें",
    "not in the sources": "स्रोतों में नहीं",
    "weakly backed": "स्रोतों से कमज़ोर समर्थन",
    "restates the question": "केवल प्रश्न को दोहराता है",
    "misses the answer": "उत्तर नहीं देता",
    "missing facts": "स्रोतों में नहीं: {facts}",
    "sources say": "{reason}: स्रोत कहते हैं {facts}",
    "not found": "स्रोतों में नहीं मिला",
    "flag": "असमर्थित",
    "computed": "गणना: {what}",
    "row": "पंक्ति",
    "more rows": "और {n} पंक्तियाँ",
    "answer n": "उत्तर {n}",
    "answer stopped": " (रोका गया)",
    "no answer": "(कोई उत्तर नहीं)",
    "earlier answers": "इस प्रश्न के {n} पहले के उत्तर",
    "model alone label": "आपके दस्तावेज़ों से नहीं: मॉडल ने अपने ज्ञान से उत्तर दिया, जो गलत हो सकता है।",
    "offer": (
        "आप केवल मॉडल से भी पूछ सकते हैं: वह आपके दस्तावेज़ों से नहीं, अपने ज्ञान से उत्तर देता है। नीचे "
        "**{button}** पर क्लिक करें, या **{mode}: {alone}** चुनें।"
    ),
}
