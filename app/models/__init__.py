"""The models: the catalog one can install from (``catalog``: what there is, what is installed, what fits
this machine), downloads in the background (``downloads.ModelDownloads``), the loading state the UI
shows while models load (``loading.ModelLoading``), and the models already on this computer
(``local_search``: local servers from ``local_servers``, GGUF files from ``local_files``, one
``local_model.LocalModel`` record each)."""
