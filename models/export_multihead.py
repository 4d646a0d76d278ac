#!/usr/bin/python3
"""Exports torch's nn.TransformerEncoder as its legacy exporter writes nn.MultiheadAttention: the
tokens sequence first [S,B,E], one packed input projection taken apart by column Slices, heads as a
3-D batch [B*N,S,d], the context back as rows [S*B,E] for the output projection's Gemm.

Run with Debian's torch: /usr/bin/python3 models/export_multihead.py --out build/models-multihead
  OUT/encoder_batch_first/model.onnx      2 layers, batch_first (x [B,S,E] transposed to the tokens)
  OUT/encoder_sequence_first/model.onnx   2 layers, x already [S,B,E]
  OUT/encoder_padding_mask/model.onnx     2 layers, batch_first, and a bool src_key_padding_mask [B,S]
                                          (input 1; the second row's last two tokens padded)
  OUT/<model>/test_data_set_0/input_N.pb, output_0.pb   (onnx.TensorProto: seeded inputs, torch's output)

Both: d_model 32, 4 heads, feed-forward 64, 6 tokens, batch 2, opset 17. Exported with gradients
on: in eval mode under no_grad torch runs its fused fast path, which the exporter refuses.
"""

import argparse
import pathlib

import torch
from onnx import numpy_helper

SEED = 2026
BATCH, TOKENS, WIDTH = 2, 6, 32


def write_tensor(path: pathlib.Path, tensor: torch.Tensor, name: str) -> None:
    path.write_bytes(numpy_helper.from_array(tensor.detach().numpy(), name=name).SerializeToString())


class PaddedEncoder(torch.nn.Module):
    """The encoder with its src_key_padding_mask as a second positional input (the export's)."""

    def __init__(self, encoder: torch.nn.Module):
        super().__init__()
        self.encoder = encoder

    def forward(self, x: torch.Tensor, padded: torch.Tensor) -> torch.Tensor:
        return self.encoder(x, src_key_padding_mask=padded)


def export(out: pathlib.Path, batch_first: bool, padding_mask: bool = False) -> None:
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(d_model=WIDTH, nhead=4, dim_feedforward=64, batch_first=batch_first)
    encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    shape = (BATCH, TOKENS, WIDTH) if batch_first else (TOKENS, BATCH, WIDTH)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(SEED + 1))
    name = "encoder_padding_mask" if padding_mask else "encoder_batch_first" if batch_first else "encoder_sequence_first"
    folder = out / name
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    inputs = (x,)
    if padding_mask:
        padded = torch.zeros(BATCH, TOKENS, dtype=torch.bool)
        padded[1, TOKENS - 2:] = True
        inputs = (x, padded)
        encoder = PaddedEncoder(encoder).eval()
        write_tensor(data / "input_1.pb", padded, "padded")
    torch.onnx.export(encoder, inputs if padding_mask else x, str(folder / "model.onnx"), opset_version=17,
                      do_constant_folding=True, input_names=["x", "padded"][:len(inputs)], output_names=["y"])
    write_tensor(data / "input_0.pb", x, "x")
    write_tensor(data / "output_0.pb", encoder(*inputs), "y")
    print(f"export_multihead: wrote {folder / 'model.onnx'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    args = parser.parse_args()
    for batch_first in (True, False):
        export(args.out, batch_first)
    export(args.out, True, padding_mask=True)


if __name__ == "__main__":
    main()
