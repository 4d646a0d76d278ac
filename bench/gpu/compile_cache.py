"""torch.compile's work kept between GPU checks: each model and batch's compiled artifacts (PyTorch's portable cache, torch.compiler.save_cache_artifacts) in a file of their own, loaded before that model compiles, so a later check's torch.compile finds its graphs and kernels compiled.

The files lie under a folder named by the torch version and the card (artifacts of another torch are
never loaded): FOLDER/<torch version>--<card>/<model>_b<batch>.bin. A check reads them from the kit
(make-kit.sh carries bench/profiles/<target>-torch-compile/) and writes the ones it compiled to its
results, which after-check.sh adds to that folder.
"""
import contextlib
import os
import re
from pathlib import Path


def folder_name(torch) -> str:
    """'2.11.0+cu130--NVIDIA_H200': the torch version and the card, in file-name letters."""
    card = re.sub(r"[^A-Za-z0-9.+-]+", "_", torch.cuda.get_device_name(0))
    return f"{torch.__version__}--{card}"


def file_name(model: str, batch: int) -> str:
    return f"{model}_b{batch}.bin"


class CompileCache:
    """Loads a model's artifacts before it compiles (from `load_from`) and saves what its compile used (to
    `save_to`), each model on a record of its own; either folder may be None."""

    def __init__(self, torch, load_from=None, save_to=None):
        self.torch = torch
        self.load_from = Path(load_from) / folder_name(torch) if load_from else None
        self.save_to = Path(save_to) / folder_name(torch) if save_to else None

    def cached(self, model: str, batch: int) -> bool:
        return bool(self.load_from) and (self.load_from / file_name(model, batch)).is_file()

    @contextlib.contextmanager
    def recording(self, model: str, batch: int):
        """Around a model's compile: its artifacts loaded first where the cache has them, and those its compile
        wrote or read saved after. Yields a dict the caller reads: 'loaded' (artifacts loaded), 'saved' (bytes)."""
        outcome = {"loaded": 0, "saved": 0}
        manager = self._manager()
        with manager.with_fresh_cache() if manager else contextlib.nullcontext():
            if self.cached(model, batch):
                info = self.torch.compiler.load_cache_artifacts((self.load_from / file_name(model, batch)).read_bytes())
                outcome["loaded"] = sum(len(keys) for keys in info.artifacts.values()) if info else 0
            yield outcome
            if self.save_to:
                outcome["saved"] = self._save(file_name(model, batch))

    def _manager(self):
        """PyTorch's record of the artifacts a compile makes or reads, where this torch has it."""
        try:
            from torch.compiler._cache import CacheArtifactManager
            return CacheArtifactManager
        except ImportError:
            return None

    def _save(self, name: str) -> int:
        saved = self.torch.compiler.save_cache_artifacts()
        if not saved:
            return 0
        self.save_to.mkdir(parents=True, exist_ok=True)
        temporary = self.save_to / (name + ".tmp")
        temporary.write_bytes(saved[0])
        os.replace(temporary, self.save_to / name)
        return len(saved[0])
