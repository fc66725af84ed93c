"""The models: the catalog one can install from (``catalog``: what there is, what is installed, what fits
this machine), downloads in the background (``downloads.ModelDownloads``), and the loading state the UI
shows while models load (``loading.ModelLoading``)."""
