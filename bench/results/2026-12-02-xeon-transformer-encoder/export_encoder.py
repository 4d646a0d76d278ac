"""A 2-layer torch.nn.TransformerEncoder (d_model 256, 4 heads, feed-forward 1024, batch_first, 64
tokens) exported by Debian's torch (the legacy exporter, opset 17): nn.MultiheadAttention's form,
the tokens sequence first, one packed projection Sliced into Q, K and V, heads [B*N,S,d].
Exported with gradients on: in eval mode under no_grad torch takes its fused fast path, which its
exporter refuses. Weights seeded (0). --padding-mask: a second input, a bool src_key_padding_mask
[B,64] (OUT_DIR/encoder_mask_b<B>).
    /usr/bin/python3 export_encoder.py OUT_DIR [--padding-mask] BATCH..."""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "models"))
from export_multihead import PaddedEncoder  # noqa: E402  the encoder with its padding mask as input 1


def export(out: Path, batch: int, padding_mask: bool) -> None:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    x = torch.randn(batch, 64, 256, generator=torch.Generator().manual_seed(1))
    folder = out / (f"encoder_mask_b{batch}" if padding_mask else f"encoder_b{batch}")
    folder.mkdir(parents=True, exist_ok=True)
    if padding_mask:
        padded = torch.zeros(batch, 64, dtype=torch.bool)
        padded[:, 40:] = True
        torch.onnx.export(PaddedEncoder(encoder).eval(), (x, padded), str(folder / "model.onnx"), opset_version=17,
                          do_constant_folding=True, input_names=["x", "padded"], output_names=["y"])
    else:
        torch.onnx.export(encoder, x, str(folder / "model.onnx"), opset_version=17, do_constant_folding=True,
                          input_names=["x"], output_names=["y"])
    print(f"wrote {folder / 'model.onnx'}")


if __name__ == "__main__":
    mask = "--padding-mask" in sys.argv
    for batch in [arg for arg in sys.argv[2:] if arg != "--padding-mask"]:
        export(Path(sys.argv[1]), int(batch), mask)
