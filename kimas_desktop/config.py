"""One typed, validated configuration, loaded from TOML once and passed down.

Layers, later wins: built-in defaults → the preset named by ``preset`` (``presets/NAME.toml``) → the
user's file. Unknown keys are errors that name the key; closed choices are ``Literal``s. Writing it
back is the application's (``app.settings.config_store.save_config``, with a TOML library).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kimas_desktop.config_file import PRESETS, default_data_dir, explain, merge, preset_data, read_toml
from kimas_desktop.errors import ConfigError
from kimas_desktop.limits import LimitsConfig  # [limits] lives beside its checks

__all__ = [
    "PRESETS",
    "AgenticConfig",
    "ChatModelConfig",
    "CollectionConfig",
    "Config",
    "ContextConfig",
    "EmbeddingModelConfig",
    "GroundingConfig",
    "HopsConfig",
    "IndexerConfig",
    "LimitsConfig",
    "ReaderConfig",
    "RerankConfig",
    "RetrievalConfig",
    "RoutingConfig",
    "ServerConfig",
    "SourceConfig",
    "StorageConfig",
    "SummarizerConfig",
    "UiConfig",
    "default_data_dir",
    "load_config",
    "parse_config",
    "preset_data",
]

Strategy = str  # a registered rewrite strategy name: prompt, retrieval, keyword, hyde, translation, none


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ChatModelConfig(_Section):
    """Which chat LLM answers. ``kind = "llama"`` runs llama.cpp in-process; ``"openai"`` talks HTTP."""

    kind: Literal["llama", "openai"] = "llama"
    path: str = ""  # a local GGUF file; empty = the embedded default (SmolLM2-135M-Instruct)
    hf_repo: str = ""  # a Hugging Face repo id, downloaded only when set (needs the network)
    hf_file: str = ""  # file name or glob inside hf_repo
    n_ctx: int = Field(4096, ge=512)
    n_threads: int = Field(0, ge=0)  # 0 = one per physical core (half the CPUs this process may use)
    seed: int = 0
    base_url: str = ""  # for kind = "openai", e.g. http://127.0.0.1:8080/v1
    api_key_env: str = ""  # name of the environment variable holding the key
    model: str = ""  # model name sent to the OpenAI-compatible server
    timeout_s: float = Field(120.0, gt=0)
    # llama.cpp's prompt cache in MB (the bytes its states really hold): the look-back citations and the
    # agentic judgement reuse the answer prompt's evaluated prefix (bench/RESULTS.md). 64 MB holds one answer
    # prompt of the embedded model (~23 KB a token); an 8B model needs ~130 KB a token.
    prompt_cache_mb: int = Field(64, ge=0)
    # Prompt-lookup (n-gram) speculative decoding for llama.cpp: drafts tokens by copying from the prompt,
    # which grounded answers often do. "auto": as the model's catalog entry says (measured per model in
    # bench/RESULTS.md; off for a model the catalog does not know), "on"/"off" force it.
    prompt_lookup: Literal["auto", "on", "off"] = "auto"


class EmbeddingModelConfig(_Section):
    # "local": fastembed in-process; "openai": an OpenAI-compatible /v1/embeddings server at base_url
    backend: Literal["local", "openai"] = "local"
    base_url: str = ""  # for backend = "openai", e.g. http://127.0.0.1:8081/v1
    model: str = ""  # model name sent to the server
    api_key_env: str = ""  # name of the environment variable holding the server's key
    timeout_s: float = Field(60.0, gt=0)
    name: str = ""  # a fastembed model name (downloaded when not cached); empty = embedded default
    path: str = ""  # a local directory holding model.onnx + tokenizer files
    max_tokens: int = Field(128, ge=16)  # the model's real window
    batch_size: int = Field(16, ge=1)
    # The embedded model's weights (not name/path models): "int8", its dynamic quantization, indexed 1.91x the
    # chunks/s of "fp32" (the exact model) and embedded a question 1.9x faster on a quiet Xeon (AVX-512 VNNI),
    # full-path recall@5 equal, MRR@10 +0.006 (dev kit; bench/RESULTS.md, issue 28). Each has its own model
    # id: switching (or an update that changes this default) re-embeds the collections in the background.
    precision: Literal["int8", "fp32"] = "int8"
    # A new library whose first folder is not all English starts on the embedded multilingual-e5-small
    # (app/models/first_embedder.py); false keeps the configured model whatever the documents' languages.
    auto: bool = True


class RerankConfig(_Section):
    # "local": in-process; "http": a /rerank server (llama.cpp, vLLM, Infinity, Jina/Cohere API) at base_url
    backend: Literal["local", "http"] = "local"
    base_url: str = ""  # for backend = "http", e.g. http://127.0.0.1:8082/v1 (POST {base_url}/rerank)
    api_key_env: str = ""
    timeout_s: float = Field(60.0, gt=0)
    model: str = ""  # a fastembed cross-encoder name (or the server's model); empty = the fallback scorer
    top_n: int = Field(8, ge=1)  # candidates kept after reranking
    # Evidence scoring below this is dropped; with none left the answer is "not found" without an LLM call.
    # On the scorer's own scale; the default suits the fallback scorer with the embedded all-MiniLM-L6-v2
    # (dev kit, 0.3/0.7 mix): gold passages among the candidates scored ≥ 0.07 (1st percentile) and 0.12
    # (5th), so 0.1 drops the gold passage of 0.5% of questions (0.15: 1.75%); a nonsense question ("zxqv
    # blorpt frindle?") scored 0.099 at best. Off-topic questions over a large corpus still find 0.15+
    # (lexical overlap): this catches "nothing related at all", not every unanswerable question.
    min_score: float = 0.1
    # The fallback scorer's mix: this weight × cosine + (1 − it) × BM25 share of the candidates. Dev kit
    # full-path recall@5, all-MiniLM-L6-v2: 0.4 → 0.653, 0.3 → 0.658 (offline, same candidates: 0.657/0.680).
    semantic_weight: float = Field(0.3, ge=0, le=1)
    # multilingual-e5-small's share in the order of the kept candidates (kimas_desktop/retrieval/
    # second_opinion.py); 0 = the reranker's order alone. 0.25 is the dev kit's tune choice (bench/RESULTS.md,
    # "The meaning signal"); off: through the whole path it gains little held out for e5's memory beside
    # MiniLM (bench/RESULTS.md, "The second opinion through the whole app").
    second_opinion: float = Field(0.0, ge=0, le=1)


class StorageConfig(_Section):
    uri: str = ""  # LanceDB URI; empty = <data dir>/lancedb. s3://bucket/prefix works too.
    options: dict[str, str] = Field(default_factory=dict)  # storage_options (endpoint, keys, region)


class IndexerConfig(_Section):
    chunk_tokens: int = Field(120, ge=16)  # in embedding-model tokens, ≤ the model's window
    overlap_tokens: int = Field(20, ge=0)
    # k of the routing k-means. Dev kit routing@1/@2 (4 SQuAD-Shifts collections): k=8 0.585/0.835,
    # k=32 0.672/0.853 (centroids alone, with the earlier MiniLM-L3; routing now also uses word counts).
    centroids: int = Field(32, ge=1)
    debounce_s: float = Field(1.0, ge=0)
    watch: bool = True
    max_file_mb: float = Field(200.0, gt=0)
    # Per-file limits while a file is parsed and chunked (indexer/parse/file_limits.py): a file over one is
    # skipped with the reason, and tried again only once it changes.
    max_file_chunks: int = Field(5000, ge=1)
    max_file_seconds: float = Field(300.0, gt=0)
    max_file_memory_mb: float = Field(1024.0, gt=0)  # also the parser worker's cap while it parses a file
    # Zip-based files (.docx, .pptx, .epub, .odt) are checked before they are inflated (zip bombs,
    # indexer/parse/zip_guard.py): the inflated size of one part and of the whole file, and how many times a
    # part over 4 MB may inflate its packed size (text XML: 5-30 times; a bomb: ~1000).
    max_zip_member_mb: float = Field(256.0, gt=0)
    max_zip_inflated_mb: float = Field(512.0, gt=0)
    max_zip_ratio: float = Field(100.0, gt=1)
    # The entity index (issue 25): names, places, dates, numbers with units and defined terms of each
    # chunk, and their co-mentions, extracted without a model (indexer/upkeep/entity_upkeep.py); off drops it.
    entities: bool = True


class ServerConfig(_Section):
    """``kimas serve``: which addresses may reach the app, and how much one upload may carry."""

    # Host names besides 127.0.0.1, localhost and [::1] (with or without :PORT) that the app answers to.
    allowed_hosts: list[str] = Field(default_factory=list)
    max_upload_file_mb: float = Field(200.0, gt=0)
    max_upload_request_mb: float = Field(1000.0, gt=0)
    api: bool = True  # the OpenAI-compatible API (/v1) on 127.0.0.1:api_port, behind a token (`kimas token`)
    api_port: int = Field(7870, ge=1, le=65535)


class UiConfig(_Section):
    """The app's page. ``language``: its own words and labels; "auto" follows the browser's language."""

    language: Literal["auto", "en", "zh-CN"] = "auto"


class ContextConfig(_Section):
    """The paper's *context manager* (not Python's ``with``)."""

    enabled: bool = True
    rewrite: Literal["auto", "llm", "heuristic", "none"] = "auto"  # auto: heuristic on tiny models
    analysis: bool = True  # pick related earlier messages for the summarizer
    history_turns: int = Field(6, ge=0)  # turns considered at most
    timeout_s: float = Field(20.0, gt=0)


class RoutingConfig(_Section):
    """Routing scores mix a dense posterior (softmax of the centroid/mix-in similarity over
    ``temperature``) and a lexical one (query likelihood under each collection's word counts); see
    ``kimas_desktop/router.py``. Dev kit routing@1/@2 (4 SQuAD-Shifts collections, 400 questions): dense
    only 0.67/0.85, with ``lexical_weight = 0.6`` 0.83/0.945 (offline experiment)."""

    enabled: bool = True
    top_k: int = Field(2, ge=1)
    # Also activate any collection scoring above this. Scores are the collection's scale × its share of the
    # routing posterior (shares add up to 1 over the candidates): with scale 1 in [0, 1); ≤ -1 turns it off.
    threshold: float = -1.0
    recheck: bool = True  # re-route on the rewritten query
    temperature: float = Field(0.05, gt=0)  # of the softmax over dense similarities
    lexical_weight: float = Field(0.6, ge=0, le=1)  # λ; 0 = dense routing only
    lexical_mu: float = Field(100.0, gt=0)  # μ of the Dirichlet smoothing, in words


class HopsConfig(_Section):
    """Multi-hop retrieval without an LLM (``kimas_desktop/retrieval/hops.py``): when the best passage does
    not cover the question, search again for the bridge from the best passages."""

    enabled: bool = True
    rounds: int = Field(1, ge=0, le=3)
    cover: float = Field(0.9, ge=0, le=1)  # hop when the best passage covers less of the question's words
    passages: int = Field(3, ge=1, le=8)  # one bridge query from each of this many best passages
    terms: int = Field(4, ge=1, le=12)  # bridge words a query takes from its passage
    # Tuned on the even half of StrategyQA (bench/RESULTS.md, issue 25): each bridge query adds its best new
    # passage after the first round's best six (so a single-fact question's top five never changes).
    per_hop: int = Field(1, ge=1, le=8)  # new passages each bridge query adds
    keep: int = Field(6, ge=0)  # the first round's best passages that stay on top


class RetrievalConfig(_Section):
    k: int = Field(12, ge=1)  # hits per agent query
    mode: Literal["dense", "fts", "hybrid"] = "hybrid"
    output: Literal["raw", "digest"] = "raw"
    default_strategy: Strategy = "none"


class AgenticConfig(_Section):
    enabled: bool = False
    max_queries: int = Field(3, ge=1, le=5)
    timeout_s: float = Field(30.0, gt=0)


class SummarizerConfig(_Section):
    context_tokens: int = Field(1536, ge=128)  # evidence + history budget, in chat-model tokens
    # The first word of the answer is due this many seconds after the question: the answer prompt keeps
    # only the sources the model reads in time at its measured prompt speed (the quoted ones always stay;
    # answer/writing/budget.py). 0: no time limit, the token budget alone.
    first_token_s: float = Field(2.5, ge=0)
    max_answer_tokens: int = Field(384, ge=16)
    citations: bool = True
    temperature: float = Field(0.0, ge=0)


class GroundingConfig(_Section):
    """The grounded quote, the answer policy and the support check: see ``kimas_desktop/answer/``
    (``quote.py``, ``answerability.py``, ``policy.py``, ``support.py``). Weights tuned on the dev kit
    (bench/RESULTS.md, "Answers (issue 12)", "Answer policy (issue 22)")."""

    # Settings of earlier releases that no longer exist: a config file that still has them loads (the
    # value is ignored): ``enabled`` (the answer path before grounding) and ``llm_threshold``.
    RETIRED: ClassVar[tuple[str, ...]] = ("enabled", "llm_threshold")

    @model_validator(mode="before")
    @classmethod
    def _drop_retired(cls, data: Any) -> Any:
        return {k: v for k, v in data.items() if k not in cls.RETIRED} if isinstance(data, dict) else data

    decline: bool = True  # evidence judged not to answer: say so instead of asking the chat model
    sources: int = Field(3, ge=1, le=8)  # best reranked hits the quote is taken from
    quote_sentences: int = Field(2, ge=1, le=5)  # at most; a second one only when it scores close
    second_ratio: float = Field(0.9, ge=0, le=1)  # ... at least this share of the best one's score
    overlap_weight: float = Field(1.0, ge=0)  # IDF-weighted question-word overlap
    cosine_weight: float = Field(1.0, ge=0)  # embedding similarity to the question
    rerank_weight: float = Field(0.25, ge=0)  # the chunk's rerank score, relative to the best
    position_weight: float = Field(0.0, ge=0)  # earlier sentences of a chunk
    type_weight: float = Field(0.3, ge=0)  # holds a number for when/how many, a name for who/where
    # Answerability score below this: decline. Dev kit: 0.35 declines 35% of unanswerable questions with
    # 10% false declines, 0.4 45% / 15% (9% of the questions whose evidence holds the answer), 0.5 71% / 32%.
    threshold: float = Field(0.4, ge=0, le=1)
    # The chat model's extract-and-verify check (answer/signals/verify.py) refines the decision near the threshold
    # (answer/policy.py): "auto" = with a chat model whose description says it judges (not the embedded
    # 135M one, whose check is noise). A verified copy answers from ``model_rescues_from`` up; a check that
    # finds nothing declines below ``model_doubts_below``. Both bands are empty by default: with the 0.5B
    # benchmark model neither rule helped (bench/RESULTS.md, "Answer policy (issue 22)").
    llm_check: Literal["auto", "on", "off"] = "auto"
    model_rescues_from: float = Field(0.4, ge=0, le=1)
    model_doubts_below: float = Field(0.4, ge=0, le=1)
    support: bool = True  # check each answer sentence against the sources
    # Whose sentence similarities the quote and the decision read: "index" = the collections' embedder;
    # "multilingual" = the embedded multilingual-e5-small. Not the default: no held-out gain on the dev kit,
    # about twice the scoring time (bench/RESULTS.md, "The meaning signal (issue 58)").
    meaning: Literal["index", "multilingual"] = "index"
    # The reader ([reader], issue 68): its probability that a sentence answers, weighed into the quote's
    # sentence scores; the best sentence's probability below which the evidence is declined. 0 = not used.
    reader_weight: float = Field(0.0, ge=0)
    reader_declines_below: float = Field(0.0, ge=0, le=1)


class ReaderConfig(_Section):
    """The reader (issue 68): the model that reads a question against a text (docs/models.md, "Readers")."""

    model: str = ""  # "": the embedded one; a catalog reader's name; a GGUF's path (a Qwen3-Reranker)


class CollectionConfig(_Section):
    """Per-collection settings: folders, routing mix-in and scaling, retrieval-agent strategy."""

    title: str = ""  # the name the user gave it (any text); empty: its id (the key) is its name
    folders: list[str] = Field(default_factory=list)
    description: str = ""
    examples: list[str] = Field(default_factory=list)
    mixin_weight: float = Field(0.3, ge=0, le=1)  # weight of the description/examples similarity
    scale: float = Field(1.0, gt=0)  # multiplies the routing score
    language: str = ""  # for the translation strategy
    strategy: Strategy = ""  # empty = retrieval.default_strategy
    prompt: str = ""  # instruction for the prompt strategy


class SourceConfig(_Section):
    """An online knowledge source (KIMAs §3.3.1): a web search engine or an HTTP search API.

    Off until the user enables it; a question leaves the machine only for an enabled source. ``use``:
    ``always`` asks it with every routed question, ``weak`` only when the local collections do not answer
    well, ``ask`` only when the user names it for a question.
    """

    kind: Literal["searxng", "ddgs", "http"]
    enabled: bool = False
    use: Literal["always", "weak", "ask"] = "weak"
    base_url: str = ""  # searxng: the instance, e.g. http://127.0.0.1:8888; http: the request URL
    site: str = ""  # restrict results to this domain (example.org also keeps docs.example.org)
    description: str = ""  # what it knows, for routing (it has no local embeddings)
    examples: list[str] = Field(default_factory=list)
    scale: float = Field(1.0, gt=0)  # multiplies its match
    # a described source that matches a question less than this is not asked (bench/RESULTS.md)
    min_match: float = Field(0.1, ge=0, le=1)
    timeout_s: float = Field(8.0, gt=0, le=120)  # the whole source: search and page fetches
    max_results: int = Field(5, ge=1, le=20)
    max_pages: int = Field(3, ge=0, le=10)  # result pages fetched and read (0 = snippets only)
    max_page_kb: int = Field(2048, ge=16)  # a page's download is cut here
    cache_minutes: float = Field(60.0, ge=0)  # fetched pages are kept this long
    # kind = "http": the request and where the response keeps the results
    method: Literal["GET", "POST"] = "GET"
    query_param: str = "q"  # GET: the query goes into this parameter ("{query}" in base_url also works)
    params: dict[str, str] = Field(default_factory=dict)  # more GET parameters
    json_body: dict[str, Any] = Field(default_factory=dict)  # POST: "{query}" in any string is replaced
    headers: dict[str, str] = Field(default_factory=dict)  # "${NAME}" is read from the environment
    token_env: str = ""  # an environment variable holding a bearer token
    results_path: str = ""  # dotted path to the list of results ("" = the response is the list)
    title_field: str = "title"
    url_field: str = "url"
    text_field: str = "text"
    date_field: str = ""

    @model_validator(mode="after")
    def _needs_address(self) -> SourceConfig:
        if self.kind in ("searxng", "http") and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"a {self.kind} source needs an address (base_url) starting with http:// or https://"
            )
        return self


class Config(_Section):
    preset: Literal["full", "routed", "turbo", "custom"] = "full"
    chat: ChatModelConfig = ChatModelConfig()
    embedding: EmbeddingModelConfig = EmbeddingModelConfig()
    rerank: RerankConfig = RerankConfig()
    storage: StorageConfig = StorageConfig()
    indexer: IndexerConfig = IndexerConfig()
    server: ServerConfig = ServerConfig()
    limits: LimitsConfig = LimitsConfig()
    ui: UiConfig = UiConfig()
    context: ContextConfig = ContextConfig()
    routing: RoutingConfig = RoutingConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    hops: HopsConfig = HopsConfig()
    agentic: AgenticConfig = AgenticConfig()
    summarizer: SummarizerConfig = SummarizerConfig()
    grounding: GroundingConfig = GroundingConfig()
    reader: ReaderConfig = ReaderConfig()
    collections: dict[str, CollectionConfig] = Field(default_factory=dict)
    sources: dict[str, SourceConfig] = Field(default_factory=dict)

    def collection(self, name: str) -> CollectionConfig:
        return self.collections.get(name, CollectionConfig())

    def updated(self, **sections: Any) -> Config:
        """A copy with whole sections or fields replaced (validated again)."""
        data = self.model_dump()
        data.update(sections)
        return Config.model_validate(data)


def parse_config(data: dict[str, Any], origin: str = "") -> Config:
    """Validate a user's config mapping on top of defaults and its preset."""
    preset = data.get("preset", "full")
    if not isinstance(preset, str):
        raise ConfigError(f"invalid config {origin}: 'preset' must be a string")
    merged = merge(preset_data(preset), data)
    try:
        return Config.model_validate(merged)
    except ValidationError as err:
        raise ConfigError(explain(err, origin)) from None


def load_config(path: Path | None, *, preset: str | None = None) -> Config:
    """Load ``path`` (missing file = defaults). ``preset`` overrides the file's preset.

    A file that cannot be read (not UTF-8, a folder in its place, no permission, not TOML) is a
    ``ConfigError`` with a sentence that says so; it is only read, never changed. An empty file means the
    defaults, with a warning in the log (a file emptied by a failed save looks the same)."""
    data: dict[str, Any] = {}
    if path is not None and (path.exists() or path.is_symlink()):
        data = read_toml(path)
    if preset is not None:
        data = {**data, "preset": preset}
    return parse_config(data, origin=str(path) if path else "")
