"""Function words per language: words that say nothing about what a text is about.

English is the list the project has always used (question words, auxiliaries, pronouns, "explain",
"describe"…). Chinese and Hindi are small hand lists of particles, postpositions, pronouns, auxiliaries
and question words, as jieba (Chinese) and the word pattern (Hindi, marks kept) cut them. A word of one
of these never looks like a word of another, so ``STOPWORDS`` is their union.

German (issue 42) is a hand list of articles, pronouns, prepositions, conjunctions, auxiliaries, modal
verbs, question words and particles, lower case. It is **not** in the union: German function words are
English content words ("die", "war", "man", "also", "bin", "hat"), so it applies only to a text whose
language is German: ``stopwords_for("de")`` (the union, for the English words a German text quotes, and
German). Every other code gives ``STOPWORDS``.
"""

from __future__ import annotations

__all__ = ["CHINESE", "ENGLISH", "GERMAN", "HINDI", "STOPWORDS", "stopwords_for"]

ENGLISH = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each else ever few for from further get gets got had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in
    into is isn't it it's its itself just know let's like make many may me might more most much must
    mustn't my myself need no nor not now of off on once one only or other ought our ours ourselves out
    over own please same say said shall shan't she she'd she'll she's should shouldn't so some such tell
    than that that's the their theirs them themselves then there there's these they they'd they'll
    they're they've thing things this those through to too under until up upon us very via was wasn't we
    we'd we'll we're we've well were weren't what what's when when's where where's whether which while
    who who's whom why why's will with within without won't would wouldn't yes yet you you'd you'll
    you're you've your yours yourself yourselves explain describe anything something else more
    other another give show find""".split()
)

CHINESE = frozenset(
    """的 地 得 了 着 过 和 与 及 或 或者 是 在 就 都 而 也 还 又 但 但是 并 并且 而且 以及 被 把 让 对 对于 从 向
    往 于 为 为了 以 由 之 其 此 该 这 那 这个 那个 这些 那些 这样 那样 这里 那里 这种 那种 一个 一些 一种 个
    些 等 等等 我 你 他 她 它 我们 你们 他们 她们 它们 自己 什么 哪 哪些 哪个 哪里 哪儿 谁 怎么 怎样 如何 为什么
    多少 几 吗 呢 吧 啊 呀 嘛 是否 是不是 有没有 请 请问 可以 能 能够 会 要 将 已 已经 曾 曾经 所 所以 因为 因此
    如果 虽然 然后 即 则 就是 还是 不 没 没有 有 很 最 更 非常 比较 上 下 中 里 内 外 之间 时 时候 吗 么 呢 个
    叫 叫做 称为 哪家 哪位 哪年 啥""".split()
)

HINDI = frozenset(
    """का की के को में से पर ने है हैं था थी थे हो होता होती होते होना होने हुआ हुई हुए और या तथा एवं कि जो
    जिस जिसे जिसका जिसकी जिसके जिन जिनका तो ही भी यह वह ये वे इस उस इन उन इसे उसे इसका उसका इसकी उसकी इसके
    उसके इनका उनका इनकी उनकी इनके उनके एक कुछ सब सभी कोई किसी कर करता करती करते करना करने किया किए गई गए
    गया जा जाता जाती जाते जाना जाने रहा रही रहे लिए लिये साथ तक द्वारा बाद पहले अपने अपना अपनी हम आप मैं
    क्या कौन कौनसा कौनसी कब कहाँ कहां कैसे कैसा कैसी किस किसे किसका किसकी किसके कितना कितनी कितने क्यों नहीं
    न अब जब तब यहाँ वहाँ वहां यहां""".split()
)

STOPWORDS = ENGLISH | CHINESE | HINDI

GERMAN = frozenset(
    """der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner keines ich
    du er sie es wir ihr mich dich sich uns euch mir dir ihm ihn ihnen ihre ihren ihrem ihrer ihres mein
    meine meinen meinem meiner dein deine deinen deinem deiner sein seine seinen seinem seiner seines
    unser unsere unseren unserem euer eure dies diese dieser dieses diesen diesem jene jener jenes jenen
    welche welcher welches welchen welchem man jemand etwas nichts alle alles allen aller jede jeder
    jedes jeden jedem selbst an am auf aus bei beim bis durch für fuer gegen hinter im in ins mit nach
    neben ohne seit über ueber um unter von vom vor während wegen zu zum zur zwischen innerhalb außerhalb
    statt anstatt trotz gemäß per ab und oder aber denn sondern dass daß ob wenn als wie weil da damit
    sodass obwohl bevor nachdem indem sowie sowohl weder noch entweder falls bin bist ist sind seid war
    waren gewesen wird werden wirst werdet wurde wurden worden hat habe hast haben habt hatte hatten
    gehabt kann kannst können könnt konnte konnten könnte könnten muss musst müssen müsst musste mussten
    müsste soll sollst sollen sollte sollten darf dürfen durfte will willst wollen wollte wollten mag
    möchte möchten was wer wen wem wessen wo wohin woher wann warum weshalb wieso womit wofür worüber
    wozu wodurch nicht nur auch noch schon sehr so dann dort hier dabei dafür dagegen daher danach darauf
    darin darüber davon dazu dadurch doch eben etwa ganz gar gerade immer ja jetzt mal mehr meist meistens
    nun oft sogar somit sonst wieder zudem zusammen also bereits bitte siehe z.b usw bzw dessen deren
    denen jedoch hingegen einerseits andererseits erst jeweils zwar""".split()
)


def stopwords_for(language: str) -> frozenset[str]:
    """The stopwords of a text in ``language`` (an ISO 639-1 code): ``STOPWORDS``, with ``GERMAN`` for
    "de" (see the module docstring)."""
    return _GERMAN_TEXT if language == "de" else STOPWORDS


_GERMAN_TEXT = STOPWORDS | GERMAN
