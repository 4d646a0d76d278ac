"""torchvision's VisionTransformer in a small configuration (64x64 images, patches of 16, 4 layers of
width 128 in 4 heads, MLP 256) exported by Debian's torch 1.13 / torchvision 0.14 (opset 17): its
attention is nn.MultiheadAttention, batch_first. torchvision initializes the classifier head to
zeros, which would make every output 0 whatever the rest computes, so the head is re-initialized
(normal, std 0.05). Weights seeded (0).
    /usr/bin/python3 export_vit.py OUT_DIR BATCH..."""
import sys
from pathlib import Path

import torch
import torchvision


def export(out: Path, batch: int) -> None:
    torch.manual_seed(0)
    model = torchvision.models.VisionTransformer(image_size=64, patch_size=16, num_layers=4, num_heads=4,
                                                 hidden_dim=128, mlp_dim=256).eval()
    torch.nn.init.normal_(model.heads.head.weight, std=0.05)
    folder = out / f"vit_small_b{batch}"
    folder.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, torch.randn(batch, 3, 64, 64), str(folder / "model.onnx"), opset_version=17,
                      do_constant_folding=True, input_names=["image"], output_names=["logits"])
    print(f"wrote {folder / 'model.onnx'}")


if __name__ == "__main__":
    for batch in sys.argv[2:]:
        export(Path(sys.argv[1]), int(batch))
