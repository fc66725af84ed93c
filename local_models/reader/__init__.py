"""The reader (issue 68): multilingual-e5-small's layers fine-tuned here as a cross-encoder.

``onnx_reader.EmbeddedReader`` runs ``reader.int8.onnx`` (this folder) with onnxruntime; its word vectors
are gathered from the e5 model file the install already has. ``MODEL_CARD.md`` says how it was trained.
"""
