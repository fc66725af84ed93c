"""The settings: the config file and every change of it (``config_store.ConfigStore``), the Settings
tab's form (``form``) and its rules (``rules``: presets, custom values, which model sections change), and
the tab's actions (``settings.Settings``: save, presets, Restore defaults, switching models)."""
