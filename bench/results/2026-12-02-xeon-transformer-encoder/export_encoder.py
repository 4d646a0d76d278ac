"""A 2-layer torch.nn.TransformerEncoder (d_model 256, 4 heads, feed-forward 1024, batch_first, 64
tokens) exported by Debian's torch (the legacy exporter, opset 17): nn.MultiheadAttention's form,
the tokens sequence first, one packed projection Sliced into Q, K and V, heads [B*N,S,d].
Exported with gradients on: in eval mode under no_grad torch takes its fused fast path, which its
exporter refuses. Weights seeded (0).
    /usr/bin/python3 export_encoder.py OUT_DIR BATCH..."""
import sys
from pathlib import Path

import torch


def export(out: Path, batch: int) -> None:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    x = torch.randn(batch, 64, 256, generator=torch.Generator().manual_seed(1))
    folder = out / f"encoder_b{batch}"
    folder.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(encoder, x, str(folder / "model.onnx"), opset_version=17, do_constant_folding=True,
                      input_names=["x"], output_names=["y"])
    print(f"wrote {folder / 'model.onnx'}")


if __name__ == "__main__":
    for batch in sys.argv[2:]:
        export(Path(sys.argv[1]), int(batch))
