"""What the app's processes share. How our worker processes (the PDF reader, the llama.cpp chat model) talk
back to the app: length-prefixed JSON frames (``frames``); and the environment every process of ours starts
with, every library's telemetry switched off (``privacy``). Imports nothing of the project; every layer and
the workers use it."""
