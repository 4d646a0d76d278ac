#!/usr/bin/python3
"""Exports causal (decoder-only) transformers in the three ways their attention is commonly written,
as torch's legacy exporter writes them: a GPT whose causal mask is a masked_fill of -inf from a
lower-triangular buffer (as nanoGPT writes it), one whose mask is a Where with the float's lowest
value and whose projections are addmm on the tokens' rows (as HF transformers' GPT-2 writes it), and
torch's nn.TransformerEncoder given a square subsequent mask (0 on and below the diagonal, -inf
above).

Run with Debian's torch: /usr/bin/python3 models/export_decoder.py --out build/models-decoder
  OUT/gpt_masked_fill/model.onnx   token ids [B,T] -> logits [B,T,V]
  OUT/gpt_where/model.onnx         token ids [B,T] -> logits [B,T,V]
  OUT/encoder_causal/model.onnx    x [B,T,E] -> y [B,T,E] (batch_first)
and, with a current torch and HF transformers installed (--models hf_gpt2; torch 1.13's exporter
cannot write it), HF transformers' own GPT-2 (GPT2LMHeadModel of these sizes, random weights,
its default attention implementation, no cache):
  OUT/hf_gpt2/model.onnx           token ids [B,T] -> logits [B,T,V]
  OUT/hf_gpt2_padding/model.onnx   token ids [B,T] and attention_mask [B,T] (int64; the second row's
                                   last two tokens padded) -> logits [B,T,V]
  OUT/<model>/test_data_set_0/input_0.pb, output_0.pb   (onnx.TensorProto: seeded inputs, torch's output)

The sizes default to the tests' (width 32, 4 heads, 2 layers, 8 tokens, batch 2, vocabulary 64);
--width/--heads/--layers/--tokens/--batch/--vocab set others (bench/results uses them), --models
picks some. Opset 17 with torch 1.x (its legacy exporter's newest), 18 with a current torch (its
exporter's own; converted down to 17 some of its Splits are not valid ONNX), constant folding on,
weights seeded (SEED).
"""

import argparse
import inspect
import math
import pathlib

import torch
from onnx import numpy_helper

SEED = 2026


def write_tensor(path: pathlib.Path, tensor: torch.Tensor, name: str) -> None:
    path.write_bytes(numpy_helper.from_array(tensor.detach().numpy(), name=name).SerializeToString())


class MaskedFillAttention(torch.nn.Module):
    """One Linear to Q|K|V split in three, heads [B,N,T,d], scores times 1/sqrt(d), masked_fill(-inf)
    where a lower-triangular buffer is 0."""

    def __init__(self, width: int, heads: int, tokens: int):
        super().__init__()
        self.heads = heads
        self.c_attn = torch.nn.Linear(width, 3 * width)
        self.c_proj = torch.nn.Linear(width, width)
        self.register_buffer("bias", torch.tril(torch.ones(tokens, tokens)).view(1, 1, tokens, tokens))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (part.view(b, t, self.heads, c // self.heads).transpose(1, 2) for part in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = torch.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class Conv1D(torch.nn.Module):
    """A Linear written as addmm on the tokens' rows, weight [in, out]."""

    def __init__(self, width_in: int, width_out: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(width_in, width_out) * 0.02)
        self.bias = torch.nn.Parameter(torch.randn(width_out) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size_out = x.size()[:-1] + (self.weight.size(-1),)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(size_out)


class WhereAttention(torch.nn.Module):
    """Conv1D to Q|K|V split in three, heads by view and permute, scores divided by sqrt(d), Where of a
    bool lower-triangular buffer between them and the float's lowest value."""

    def __init__(self, width: int, heads: int, tokens: int):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(width, 3 * width)
        self.c_proj = Conv1D(width, width)
        self.register_buffer("bias", torch.tril(torch.ones(tokens, tokens, dtype=torch.bool)).view(1, 1, tokens, tokens))

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size()[:-1] + (self.heads, x.size(-1) // self.heads)).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        width = x.size(-1)
        q, k, v = (self.split_heads(part) for part in self.c_attn(x).split(width, dim=2))
        att = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5)
        t = q.size(-2)
        causal = self.bias[:, :, :t, :t]
        att = torch.where(causal, att, torch.full([], torch.finfo(att.dtype).min))
        y = torch.matmul(torch.softmax(att, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        return self.c_proj(y.view(y.size()[:-2] + (width,)))


class Block(torch.nn.Module):
    def __init__(self, attention: torch.nn.Module, width: int):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(width)
        self.attn = attention
        self.ln_2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(torch.nn.Module):
    """Token and position embeddings, pre-norm blocks, a final LayerNorm and the logits."""

    def __init__(self, attention: type, args: argparse.Namespace):
        super().__init__()
        self.wte = torch.nn.Embedding(args.vocab, args.width)
        self.wpe = torch.nn.Embedding(args.tokens, args.width)
        self.blocks = torch.nn.ModuleList(
            Block(attention(args.width, args.heads, args.tokens), args.width) for _ in range(args.layers))
        self.ln_f = torch.nn.LayerNorm(args.width)
        self.lm_head = torch.nn.Linear(args.width, args.vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.size(1), dtype=torch.long).unsqueeze(0)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class CausalEncoder(torch.nn.Module):
    """torch's TransformerEncoder (batch_first) given the square subsequent mask."""

    def __init__(self, args: argparse.Namespace):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=args.width, nhead=args.heads, dim_feedforward=4 * args.width,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=args.layers, enable_nested_tensor=False)
        self.register_buffer("mask", torch.nn.Transformer.generate_square_subsequent_mask(args.tokens))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if "is_causal" in inspect.signature(self.encoder.forward).parameters:  # torch 2: else it compares the mask
            return self.encoder(x, mask=self.mask, is_causal=True)
        return self.encoder(x, mask=self.mask)


class HfGpt2(torch.nn.Module):
    """HF transformers' GPT2LMHeadModel, token ids to logits, no cache."""

    def __init__(self, args: argparse.Namespace):
        super().__init__()
        import transformers  # only this model needs it

        config = transformers.GPT2Config(n_embd=args.width, n_layer=args.layers, n_head=args.heads, vocab_size=args.vocab,
                                         n_positions=args.tokens, bos_token_id=0, eos_token_id=0)
        self.model = transformers.GPT2LMHeadModel(config)

    def forward(self, ids: torch.Tensor, attention_mask: torch.Tensor = None) -> torch.Tensor:
        return self.model(input_ids=ids, attention_mask=attention_mask, use_cache=False).logits


def build(name: str, args: argparse.Namespace) -> torch.nn.Module:
    torch.manual_seed(SEED)
    if name.startswith("hf_gpt2"):
        return HfGpt2(args).eval()
    if name == "gpt_masked_fill":
        return Gpt(MaskedFillAttention, args).eval()
    if name == "gpt_where":
        return Gpt(WhereAttention, args).eval()
    return CausalEncoder(args).eval()


def export(out: pathlib.Path, name: str, args: argparse.Namespace) -> None:
    model = build(name, args)
    generator = torch.Generator().manual_seed(SEED + 1)
    if name == "encoder_causal":
        inputs, names = torch.randn(args.batch, args.tokens, args.width, generator=generator), ("x", "y")
    else:
        inputs, names = torch.randint(0, args.vocab, (args.batch, args.tokens), generator=generator), ("ids", "logits")
    folder = out / name
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    if name == "hf_gpt2_padding":
        attention_mask = torch.ones(args.batch, args.tokens, dtype=torch.long)
        attention_mask[-1, args.tokens - 2:] = 0
        export_padded(model, inputs, attention_mask, folder, opset=18)
        return
    # Gradients on: in eval mode under no_grad the encoder runs its fused fast path, which the
    # exporter refuses.
    opset = 17 if torch.__version__.startswith("1.") else 18
    torch.onnx.export(model, inputs, str(folder / "model.onnx"), opset_version=opset, do_constant_folding=True,
                      input_names=[names[0]], output_names=[names[1]])
    write_tensor(data / "input_0.pb", inputs, names[0])
    write_tensor(data / "output_0.pb", model(inputs), names[1])
    print(f"export_decoder: wrote {folder / 'model.onnx'}")


def export_padded(model: torch.nn.Module, ids: torch.Tensor, attention_mask: torch.Tensor, folder: pathlib.Path,
                  opset: int) -> None:
    """The model with its token ids and attention_mask as inputs 0 and 1."""
    data = folder / "test_data_set_0"
    torch.onnx.export(model, (ids, attention_mask), str(folder / "model.onnx"), opset_version=opset,
                      do_constant_folding=True, input_names=["ids", "attention_mask"], output_names=["logits"])
    write_tensor(data / "input_0.pb", ids, "ids")
    write_tensor(data / "input_1.pb", attention_mask, "attention_mask")
    write_tensor(data / "output_0.pb", model(ids, attention_mask), "logits")
    print(f"export_decoder: wrote {folder / 'model.onnx'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--models", default="gpt_masked_fill,gpt_where,encoder_causal")
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=64)
    args = parser.parse_args()
    for name in args.models.split(","):
        export(args.out, name, args)


if __name__ == "__main__":
    main()
