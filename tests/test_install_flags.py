"""scripts/llama_build_flags.py: llama.cpp is built for the CPU it runs on, never with AMX."""

from __future__ import annotations

import importlib.util
import platform
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("llama_build_flags", ROOT / "scripts" / "llama_build_flags.py")
assert _spec and _spec.loader
flags_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(flags_mod)

SAPPHIRE_RAPIDS = (
    "fpu sse4_2 avx avx2 fma f16c bmi2 avx512f avx512dq avx512cd avx512bw avx512vl avx512vbmi "
    "avx512_vnni avx512_bf16 avx_vnni amx_bf16 amx_tile amx_int8"
)
LAPTOP = "fpu sse4_2 avx avx2 fma f16c bmi2"


def options(cpu: str) -> dict[str, str]:
    flags = flags_mod.cmake_flags(flags_mod.cpu_flags(f"processor : 0\nflags\t\t: {cpu}\n"))
    return dict(f.removeprefix("-D").split("=") for f in flags)


def test_an_amx_xeon_keeps_avx512_and_vnni_but_never_amx() -> None:
    o = options(SAPPHIRE_RAPIDS)
    assert o["GGML_NATIVE"] == "OFF"
    assert o["GGML_AVX512"] == o["GGML_AVX512_VNNI"] == o["GGML_AVX512_BF16"] == o["GGML_AVX_VNNI"] == "ON"
    assert o["GGML_AMX_TILE"] == o["GGML_AMX_INT8"] == o["GGML_AMX_BF16"] == "OFF"


def test_a_cpu_without_avx512_gets_no_avx512_code() -> None:
    o = options(LAPTOP)
    assert o["GGML_AVX2"] == o["GGML_FMA"] == o["GGML_F16C"] == "ON"
    assert o["GGML_AVX512"] == o["GGML_AVX512_VNNI"] == o["GGML_AVX_VNNI"] == "OFF"


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the flags are for x86-64")
def test_the_installed_llama_cpp_uses_this_cpus_vector_extensions_and_no_amx() -> None:
    from local_models.llama.chat import llama_runtime_info

    cpu = flags_mod.cpu_flags(Path("/proc/cpuinfo").read_text())
    features = llama_runtime_info()["features"]
    assert not any(on for name, on in features.items() if name.startswith("AMX")), features
    assert features.get("AVX2", False) == ("avx2" in cpu)
    assert features.get("AVX512", False) == ("avx512f" in cpu and "avx512bw" in cpu)
    assert features.get("AVX512_VNNI", False) == ("avx512_vnni" in cpu)


@pytest.mark.parametrize(
    ("system", "machine"), [("Darwin", "arm64"), ("Darwin", "x86_64"), ("Windows", "AMD64")]
)
def test_macos_and_windows_get_llama_cpps_default_build_without_reading_proc(
    system: str, machine: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("flags : avx avx2 fma\n")
    monkeypatch.setattr(platform, "system", lambda: system)
    monkeypatch.setattr(platform, "machine", lambda: machine)
    assert flags_mod.build_flags(cpuinfo) == ""  # Metal on Apple Silicon; the native build elsewhere
    monkeypatch.setattr(platform, "system", lambda: "Linux")
    assert flags_mod.build_flags(cpuinfo).startswith("-DGGML_NATIVE=OFF") == (machine != "arm64")
