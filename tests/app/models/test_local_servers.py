"""Local model servers found on 127.0.0.1 (``app.models.local_servers``) and used through their OpenAI-compatible
API: a test server speaking Ollama's API, and a real ``python -m llama_cpp.server`` with the embedded GGUF."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.models.local_files import FileScan, ModelFolders
from app.models.local_search import find_local_models, pick, use_local_model
from app.models.local_servers import ServerAddress, ServerProbe
from app.settings.config_store import ConfigStore
from kimas_desktop.config import Config, load_config
from kimas_desktop.types import Message
from local_models import build_chat_model
from tests.app.models.ollama_server import ANSWER, CHAT_MODEL, EMBED_MODEL, TAGS, ollama_server, static_server
from tests.local_models.remote.test_openai_chat import llama_server  # noqa: F401  (a fixture)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


NO_FILES = FileScan(ModelFolders())


def test_finds_ollamas_chat_and_embedding_models() -> None:
    with ollama_server() as served:
        # Ollama on a port of its own, beside a port where nothing listens: that one adds nothing.
        probe = ServerProbe(
            [ServerAddress("llama.cpp", _free_port()), ServerAddress("openai-compatible", served.port)]
        )
        models = {m.name: m for m in find_local_models(probe, NO_FILES)}
    assert set(models) == {CHAT_MODEL, EMBED_MODEL}
    chat, embed = models[CHAT_MODEL], models[EMBED_MODEL]
    assert (chat.source, chat.kind, chat.where) == ("ollama", "chat", "server")
    assert chat.base_url == f"{served.base}/v1" and chat.model_id == CHAT_MODEL  # Ollama's OpenAI API
    assert (chat.size_bytes, chat.quantization, chat.context) == (2019393189, "Q4_K_M", 131072)
    assert chat.fits is not None
    assert (embed.kind, embed.context, embed.quantization) == ("embedding", 2048, "F16")


def test_uses_an_ollama_model_and_answers_through_its_v1_api(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    with ollama_server() as served:
        models = find_local_models(ServerProbe([ServerAddress("ollama", served.port)]), NO_FILES)
        use_local_model(ConfigStore(config_file, Config()), pick(models, CHAT_MODEL))
        config = load_config(config_file)
        assert (config.chat.kind, config.chat.base_url, config.chat.model) == (
            "openai",
            f"{served.base}/v1",
            CHAT_MODEL,
        )
        chat = build_chat_model(config.chat)
        try:
            reply = chat.complete([Message("user", "At what temperature is the loaf baked?")], max_tokens=32)
        finally:
            chat.close()
    assert reply == ANSWER
    assert served.chats()[-1]["model"] == CHAT_MODEL
    assert config.embedding == Config().embedding  # the embedding model is left as it was


def test_an_embedding_model_is_used_through_the_servers_embeddings(tmp_path: Path) -> None:
    with ollama_server() as served:
        models = find_local_models(ServerProbe([ServerAddress("ollama", served.port)]), NO_FILES)
    config = use_local_model(
        ConfigStore(tmp_path / "config.toml", Config()), pick(models, "NOMIC-EMBED-TEXT:latest")
    )
    assert (config.embedding.backend, config.embedding.model) == ("openai", EMBED_MODEL)
    assert config.embedding.base_url == f"{served.base}/v1" and config.chat == Config().chat


LM_STUDIO = {  # GET /api/v0/models of LM Studio 0.3
    "/api/v0/models": {
        "object": "list",
        "data": [
            {"id": "qwen2.5-7b-instruct", "object": "model", "type": "llm", "publisher": "lmstudio-community",
             "arch": "qwen2", "compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "not-loaded",
             "max_context_length": 32768},
            {"id": "text-embedding-nomic-embed-text-v1.5", "object": "model", "type": "embeddings",
             "publisher": "nomic-ai", "arch": "nomic-bert", "compatibility_type": "gguf",
             "quantization": "Q4_K_M", "state": "not-loaded", "max_context_length": 2048},
        ],
    }
}  # fmt: skip
LLAMA_CPP_MODELS = {  # llama.cpp's llama-server answers GET /v1/models and /api/tags with both lists
    "models": [{"name": "Qwen2.5-7B-Instruct-Q4_K_M.gguf", "model": "Qwen2.5-7B-Instruct-Q4_K_M.gguf",
                "type": "model", "details": {"format": "gguf"}}],
    "object": "list",
    "data": [
        {"id": "Qwen2.5-7B-Instruct-Q4_K_M.gguf", "object": "model", "owned_by": "llamacpp",
         "meta": {"vocab_type": 2, "n_vocab": 152064, "n_ctx_train": 32768, "n_embd": 3584,
                  "n_params": 7615616512, "size": 4677120000}},
    ],
}  # fmt: skip
LLAMA_CPP = {"/v1/models": LLAMA_CPP_MODELS, "/api/tags": LLAMA_CPP_MODELS}
VLLM = {"/v1/models": {"data": [{"id": "BAAI/bge-m3", "object": "model", "max_model_len": 8192}]}}


def test_lm_studio_llama_cpp_and_vllm_listings() -> None:
    with static_server(LM_STUDIO) as lm, static_server(LLAMA_CPP) as cpp, static_server(VLLM) as vllm:
        addresses = [
            ServerAddress("lm-studio", lm),
            ServerAddress("llama.cpp", cpp),
            ServerAddress("vllm", vllm),
        ]
        models = {m.name: m for m in ServerProbe(addresses).find()}
    qwen, nomic = models["qwen2.5-7b-instruct"], models["text-embedding-nomic-embed-text-v1.5"]
    assert (qwen.source, qwen.kind, qwen.quantization, qwen.context) == ("lm-studio", "chat", "Q4_K_M", 32768)
    assert (nomic.kind, nomic.base_url) == ("embedding", f"http://127.0.0.1:{lm}/v1")
    gguf = models["Qwen2.5-7B-Instruct-Q4_K_M.gguf"]
    assert (gguf.source, gguf.kind, gguf.context, gguf.size_bytes) == ("llama.cpp", "chat", 32768, 4677120000)
    bge = models["BAAI/bge-m3"]
    assert (bge.source, bge.kind, bge.context, bge.fits) == ("vllm", "embedding", 8192, None)
    assert bge.choice().as_dict() == {
        "backend": "openai",
        "base_url": f"http://127.0.0.1:{vllm}/v1",
        "model": "BAAI/bge-m3",
        "api_key_env": "",  # a key kept for another server is not sent to this one
    }


@pytest.mark.slow
def test_finds_a_real_llama_cpp_server_and_answers_through_it(
    llama_server: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    port = int(llama_server.rsplit(":", 1)[1].split("/")[0])
    models = find_local_models(ServerProbe([ServerAddress("llama.cpp", port)]), NO_FILES)
    assert len(models) == 1
    model = models[0]
    assert (model.kind, model.where, model.base_url) == ("chat", "server", llama_server)
    assert model.context == 0 or model.context >= 2048
    config = use_local_model(ConfigStore(tmp_path / "config.toml", Config()), pick(models, model.name))
    assert (config.chat.kind, config.chat.base_url, config.chat.model) == (
        "openai",
        llama_server,
        model.model_id,
    )
    chat = build_chat_model(config.chat)
    try:
        reply = chat.complete([Message("user", "What is the capital of France?")], max_tokens=16)
    finally:
        chat.close()
    assert reply.strip()


def test_an_older_ollama_without_capabilities_is_read_from_the_families() -> None:
    with static_server({"/api/tags": TAGS}) as port:  # no /api/show: capabilities and context unknown
        models = {m.name: m for m in ServerProbe([ServerAddress("ollama", port)]).find()}
    assert (models[CHAT_MODEL].kind, models[CHAT_MODEL].context) == ("chat", 0)
    assert (models[EMBED_MODEL].kind, models[EMBED_MODEL].quantization) == ("embedding", "F16")
