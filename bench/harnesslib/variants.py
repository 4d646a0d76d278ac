"""The variants a harness cell compares: the input, the peer tools' outputs and pet's modes, with their labels."""
from dataclasses import dataclass
from typing import Dict, List

INPUT = "input"
PEERS = ["onnxsim", "onnxslim", "onnxoptimizer", "ort-offline", "ort-transformers"]
PET_MODES = ["none", "taso", "pet", "pet-eq-only", "pet-neq-only"]
TARGETS = ["ort-cpu", "openvino-cpu"]

PEER_LABELS: Dict[str, str] = {
    "onnxsim": "onnxsim",
    "onnxslim": "onnxslim",
    "onnxoptimizer": "onnxoptimizer",
    "ort-offline": "ORT offline (ENABLE_ALL)",
    "ort-transformers": "ORT transformer optimizer",
}
MODE_LABELS: Dict[str, str] = {
    "none": "pet none (cleanup)",
    "taso": "TASO-only (proved rules)",
    "pet": "PET",
    "pet-eq-only": "pet-eq-only",
    "pet-neq-only": "pet-neq-only",
}


def pet_variant(mode: str) -> str:
    """The variant name of pet's mode `mode` in the CSV: pet-none, pet-taso, pet, pet-eq-only, pet-neq-only."""
    return mode if mode == "pet" or mode.startswith("pet-") else f"pet-{mode}"


def mode_of(variant: str) -> str:
    """The pet mode a variant name stands for, '' for the input and the peers."""
    for mode in PET_MODES:
        if pet_variant(mode) == variant:
            return mode
    return ""


@dataclass(frozen=True)
class Variant:
    name: str   # the CSV's `variant`
    label: str  # the tables' column title
    kind: str   # "input", "peer" or "pet"


def variants_for(peers: List[str], modes: List[str]) -> List[Variant]:
    """The variants of one cell in table order: the input, the peers, then pet's modes."""
    result = [Variant(INPUT, "input", "input")]
    result += [Variant(p, PEER_LABELS[p], "peer") for p in peers]
    result += [Variant(pet_variant(m), MODE_LABELS[m], "pet") for m in modes]
    return result


def label_of(variant: str) -> str:
    if variant == INPUT:
        return "input"
    if variant in PEER_LABELS:
        return PEER_LABELS[variant]
    return MODE_LABELS.get(mode_of(variant), variant)
