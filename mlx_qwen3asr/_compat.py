"""Module paths from before the package was grouped by stage, kept importable.

`import mlx_qwen3asr.encoder` (old) gives the module `mlx_qwen3asr.model.encoder` (new) itself, not
a copy, so patching either name patches the one module.
"""

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "activations": "model.activations",
    "attention": "model.attention",
    "cache": "model.cache",
    "config": "model.config",
    "decoder": "model.decoder",
    "encoder": "model.encoder",
    "features": "audio.features",
    "encoder_cache": "streaming.encoder_cache",
    "stream_input": "streaming.input",
    "window_decoder": "streaming.window_decoder",
    "convert_cli": "convert.cli",
    "fidelity": "convert.fidelity",
    "output": "convert.writer",
    "random_checkpoint": "testing.random_checkpoint",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, package: str):
        self.targets = {f"{package}.{old}": f"{package}.{new}" for old, new in MOVED.items()}

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in self.targets else None

    def create_module(self, spec):
        return importlib.import_module(self.targets[spec.name])

    def exec_module(self, module) -> None:
        pass  # the new module is already executed


def install(package: str) -> None:
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules(package))
