"""The CMake flags that build llama.cpp for this CPU, without AMX. Used by scripts/install.py.

    python3 scripts/llama_build_flags.py [/proc/cpuinfo]

A default ``pip install llama-cpp-python`` builds with ``GGML_NATIVE=ON`` (``-march=native``). On Intel
CPUs with AMX, llama.cpp then repacks weights into its AMX buffer type, and the first decode segfaults
(ggml-org/llama.cpp#20824). So on x86-64 we build with ``GGML_NATIVE=OFF`` and switch on exactly the vector
extensions this CPU reports (AVX, AVX2, FMA, F16C, BMI2, AVX-512 and its VNNI/VBMI/BF16 parts, AVX-VNNI),
with AMX off. An extension the CPU lacks stays off: an AVX-512 build would crash a laptop without it.
On other architectures llama.cpp's native build has no AMX path, and its default stays. On macOS and
Windows (no ``/proc/cpuinfo`` to read the extensions from) llama-cpp-python's own default build is used:
Metal on Apple Silicon, the native CPU build elsewhere.

Prints one line: the flags, space-separated (empty for the default build).
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

# ggml option → the /proc/cpuinfo flags it needs (all of them). GGML_AVX512 compiles with
# -mavx512f -mavx512cd -mavx512vl -mavx512dq -mavx512bw.
GGML_OPTIONS: dict[str, tuple[str, ...]] = {
    "GGML_SSE42": ("sse4_2",),
    "GGML_AVX": ("avx",),
    "GGML_AVX2": ("avx2",),
    "GGML_FMA": ("fma",),
    "GGML_F16C": ("f16c",),
    "GGML_BMI2": ("bmi2",),
    "GGML_AVX_VNNI": ("avx_vnni",),
    "GGML_AVX512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"),
    "GGML_AVX512_VBMI": ("avx512f", "avx512vbmi"),
    "GGML_AVX512_VNNI": ("avx512f", "avx512_vnni"),
    "GGML_AVX512_BF16": ("avx512f", "avx512_bf16"),
}
ALWAYS_OFF = ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")


def cpu_flags(cpuinfo: str) -> set[str]:
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "flags":
            return set(value.split())
    return set()


def cmake_flags(flags: set[str]) -> list[str]:
    out = ["-DGGML_NATIVE=OFF"]
    for option, needs in GGML_OPTIONS.items():
        out.append(f"-D{option}={'ON' if all(f in flags for f in needs) else 'OFF'}")
    out += [f"-D{option}=OFF" for option in ALWAYS_OFF]
    return out


def build_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The flags for this machine; empty (llama-cpp-python's default build) where our logic does not
    apply: not x86-64, or not Linux (where ``/proc/cpuinfo`` does not exist)."""
    if platform.machine().lower() not in ("x86_64", "amd64") or platform.system() != "Linux":
        return ""
    flags = cpu_flags(cpuinfo.read_text()) if cpuinfo.exists() else set()
    return " ".join(cmake_flags(flags))


def main() -> None:
    print(build_flags(Path(sys.argv[1])) if len(sys.argv) > 1 else build_flags())


if __name__ == "__main__":
    main()
