"""Exports BERT-base as a current transformers library writes it (scaled_dot_product_attention with an
additive padding mask built from an int64 attention_mask input) through the installed torch's
default ONNX exporter, for measuring what a user's own export gets: bert_sdpa_s<S>_b<B>/model.onnx.

Runs under the default python3 with PyPI's torch and onnxscript (`python3 -m pip install torch
onnxscript`), not Debian's torch: the point is the current exporter. Weights are seeded and random
as in models/zoo.py; one seeded input and torch's output are stored beside the model.
"""

import argparse
import json
import pathlib
import shutil
import sys

import onnx
import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import zoo  # noqa: E402  (the constants and weight initialization of the evaluation's BERT)
from export_modern import write_tensor  # noqa: E402

SEED = 2026
DATA_DIR = "test_data_set_0"


class SdpaSelfAttention(nn.Module):
    """Separate Q, K, V projections, heads by view and transpose, torch's fused attention with a mask."""

    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(zoo.BERT_HIDDEN, zoo.BERT_HIDDEN)
        self.key = nn.Linear(zoo.BERT_HIDDEN, zoo.BERT_HIDDEN)
        self.value = nn.Linear(zoo.BERT_HIDDEN, zoo.BERT_HIDDEN)
        self.output = nn.Linear(zoo.BERT_HIDDEN, zoo.BERT_HIDDEN)
        self.head_dim = zoo.BERT_HIDDEN // zoo.BERT_HEADS

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        return x.view(n, s, zoo.BERT_HEADS, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        q, k, v = self.split_heads(self.query(x)), self.split_heads(self.key(x)), self.split_heads(self.value(x))
        context = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.output(context.transpose(1, 2).reshape(n, s, zoo.BERT_HIDDEN))


class SdpaEncoderLayer(zoo.EncoderLayer):
    """models/zoo.py's post-LN layer with the attention above, its mask passed through, and torch's GELU."""

    def __init__(self) -> None:
        super().__init__(attention=SdpaSelfAttention)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.attention_norm(x + self.attention(x, mask))
        f = self.ffn_output(nn.functional.gelu(self.intermediate(h)))
        return self.output_norm(h + f)


class SdpaBert(zoo.BertEncoder):
    """models/zoo.py's BERT-base with the layers above and an attention_mask input (1 keeps a token)."""

    def __init__(self, seq: int) -> None:
        super().__init__(seq, layer=SdpaEncoderLayer)

    def forward(self, input_ids, token_type_ids, attention_mask):  # noqa: D102
        x = self.embed(input_ids, token_type_ids)
        # transformers' extended mask: 0 where kept, the dtype's minimum where masked, [B, 1, 1, S].
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, mask)
        return x


def export(out_root: pathlib.Path, seq: int, batch: int) -> pathlib.Path:
    folder = out_root / f"bert_sdpa_s{seq}_b{batch}"
    if folder.exists():
        shutil.rmtree(folder)
    (folder / DATA_DIR).mkdir(parents=True)
    torch.manual_seed(SEED)
    model = SdpaBert(seq).eval()
    generator = torch.Generator().manual_seed(SEED + 1)
    inputs = (torch.randint(0, zoo.BERT_VOCAB, (batch, seq), generator=generator),
              torch.randint(0, zoo.BERT_TYPE_VOCAB, (batch, seq), generator=generator),
              (torch.arange(seq)[None, :] < torch.randint(seq // 2, seq + 1, (batch, 1), generator=generator)).long())
    with torch.no_grad():
        expected = model(*inputs)
    path = folder / "model.onnx"
    torch.onnx.export(model, inputs, str(path), input_names=["input_ids", "token_type_ids", "attention_mask"],
                      output_names=["last_hidden_state"])
    exported = onnx.load(str(path))
    for index, (name, tensor) in enumerate(zip(["input_ids", "token_type_ids", "attention_mask"], inputs)):
        write_tensor(folder / DATA_DIR / f"input_{index}.pb", tensor.numpy(), name)
    write_tensor(folder / DATA_DIR / "output_0.pb", expected.numpy(), "last_hidden_state")
    opset = next(entry.version for entry in exported.opset_import if entry.domain in ("", "ai.onnx"))
    info = {"torch": torch.__version__, "onnx": onnx.__version__, "opset": opset, "seed": SEED,
            "sequence": seq, "batch": batch}
    (folder / "export_info.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"export_bert_sdpa: {path} (torch {torch.__version__}, opset {opset})")
    return folder


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", required=True, help="output folder (a build folder, never inside git)")
    parser.add_argument("--sequence", type=int, default=128)
    parser.add_argument("--batches", default="1", help="comma-separated batch sizes (default 1)")
    args = parser.parse_args(argv)
    for batch in (int(b) for b in args.batches.split(",")):
        export(pathlib.Path(args.out), args.sequence, batch)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
