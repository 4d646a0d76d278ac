"""The benchmark models: each entry builds a seeded, random-weight torch module and its inputs."""

import math
import zlib
from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

import torch
from torch import nn

BERT_VOCAB = 30522
BERT_HIDDEN = 768
BERT_HEADS = 12
BERT_FFN = 3072
BERT_LAYERS = 12
BERT_MAX_POSITIONS = 512
BERT_TYPE_VOCAB = 2
BERT_LN_EPS = 1e-12


@dataclass(frozen=True)
class InputSpec:
    name: str
    shape: Tuple[int, ...]  # without the batch dimension
    kind: str  # "normal" (float32 ~ N(0,1)) or "tokens:<k>" (int64 uniform in [0, k))


@dataclass(frozen=True)
class ModelSpec:
    name: str
    about: str
    build: Callable[[], nn.Module]
    inputs: List[InputSpec]
    output_names: List[str]


def seed_for(name: str) -> int:
    """A seed that depends only on the model's name, so that it never moves when the list grows."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


# ---------------------------------------------------------------- CSRNet


def dilated_back_end(in_channels: int, widths: List[int]) -> nn.Sequential:
    """CSRNet's back end: 3x3 convs with dilation 2 and padding 2, each followed by ReLU."""
    layers: List[nn.Module] = []
    for width in widths:
        layers += [nn.Conv2d(in_channels, width, 3, padding=2, dilation=2), nn.ReLU(inplace=True)]
        in_channels = width
    return nn.Sequential(*layers)


def vgg16_front_end() -> nn.Sequential:
    """The first ten 3x3 convs of VGG-16 with its first three max-pools (output stride 8)."""
    plan = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512]
    layers: List[nn.Module] = []
    in_channels = 3
    for item in plan:
        if item == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(in_channels, item, 3, padding=1), nn.ReLU(inplace=True)]
            in_channels = item
    return nn.Sequential(*layers)


def init_relu_convs(module: nn.Module) -> None:
    # He init keeps activations near unit scale through a deep plain ReLU stack, so the stored
    # outputs are neither vanishing nor huge and tolerance checks stay meaningful.
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
            nn.init.normal_(m.bias, std=0.01)


class CSRNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.front_end = vgg16_front_end()
        self.back_end = dilated_back_end(512, [512, 512, 512, 256, 128, 64])
        self.density = nn.Conv2d(64, 1, 1)
        init_relu_convs(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.density(self.back_end(self.front_end(x)))


class CSRNetBackEnd(nn.Module):
    """PET's "CSRNet" benchmark: only the dilated back end, on a [n,512,14,14] feature map."""

    def __init__(self) -> None:
        super().__init__()
        self.back_end = dilated_back_end(512, [512, 512, 512, 256, 128, 64])
        init_relu_convs(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.back_end(x)


# ---------------------------------------------------------------- EDSR


class ScaledResidualBlock(nn.Module):
    """EDSR's residual block: conv, ReLU, conv, the result scaled by a constant, plus the input."""

    def __init__(self, features: int, scale: float) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(features, features, 3, padding=1), nn.ReLU(inplace=True),
                                  nn.Conv2d(features, features, 3, padding=1))
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) * self.scale


class EDSR(nn.Module):
    """EDSR super-resolution (Lim et al., 2017): a ResNet without batch norm whose residual blocks
    scale their branch by 0.1 before the add (a conv followed by a scalar multiply, TASO's
    conv-and-scale fusion), then a x2 pixel-shuffle upsampler."""

    def __init__(self, features: int = 64, blocks: int = 16, scale: float = 0.1) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, features, 3, padding=1)
        self.body = nn.Sequential(*[ScaledResidualBlock(features, scale) for _ in range(blocks)],
                                  nn.Conv2d(features, features, 3, padding=1))
        self.tail = nn.Sequential(nn.Conv2d(features, 4 * features, 3, padding=1), nn.PixelShuffle(2),
                                  nn.Conv2d(features, 3, 3, padding=1))
        init_relu_convs(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.head(x)
        return self.tail(features + self.body(features))


# ---------------------------------------------------------------- BERT


def gelu_erf(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


class SelfAttention(nn.Module):
    """Multi-head self-attention written out so the graph keeps separate Q, K and V MatMuls."""

    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
        self.key = nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
        self.value = nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
        self.output = nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
        self.head_dim = BERT_HIDDEN // BERT_HEADS

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        return x.reshape(n, s, BERT_HEADS, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, s, _ = x.shape
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(n, s, BERT_HIDDEN)
        return self.output(context)


class EncoderLayer(nn.Module):
    """One post-LN BERT layer: LN(x + Attn(x)), then LN(h + FFN(h))."""

    def __init__(self, attention: Callable[[], nn.Module] = SelfAttention) -> None:
        super().__init__()
        self.attention = attention()
        self.attention_norm = nn.LayerNorm(BERT_HIDDEN, eps=BERT_LN_EPS)
        self.intermediate = nn.Linear(BERT_HIDDEN, BERT_FFN)
        self.ffn_output = nn.Linear(BERT_FFN, BERT_HIDDEN)
        self.output_norm = nn.LayerNorm(BERT_HIDDEN, eps=BERT_LN_EPS)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.attention_norm(x + self.dropout(self.attention(x)))
        f = self.ffn_output(gelu_erf(self.intermediate(h)))
        return self.output_norm(h + self.dropout(f))


class BertEncoder(nn.Module):
    """BERT-base: word + position + token-type embeddings, LayerNorm, 12 encoder layers."""

    def __init__(self, seq: int, layer: Callable[[], nn.Module] = EncoderLayer) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(BERT_VOCAB, BERT_HIDDEN)
        self.position_embeddings = nn.Embedding(BERT_MAX_POSITIONS, BERT_HIDDEN)
        self.token_type_embeddings = nn.Embedding(BERT_TYPE_VOCAB, BERT_HIDDEN)
        self.embedding_norm = nn.LayerNorm(BERT_HIDDEN, eps=BERT_LN_EPS)
        self.dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList(layer() for _ in range(BERT_LAYERS))
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0), persistent=False)
        self.apply(self.init_bert_weights)

    @staticmethod
    def init_bert_weights(m: nn.Module) -> None:
        # BERT's std 0.02 weights, but biases and LayerNorm parameters random rather than 0 and 1:
        # equal parameters would be merged by the exporter (Identity nodes), and zeros hide
        # mistakes in bias handling.
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.bias, std=0.02)
        if isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, mean=1.0, std=0.1)
            nn.init.normal_(m.bias, std=0.02)

    def embed(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        """Word + position + token-type embeddings, LayerNorm and dropout: the first layer's input."""
        x = (self.word_embeddings(input_ids) + self.position_embeddings(self.position_ids)
             + self.token_type_embeddings(token_type_ids))
        return self.dropout(self.embedding_norm(x))

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(input_ids, token_type_ids)
        for layer in self.layers:
            x = layer(x)
        return x


# ---------------------------------------------------------------- registry


def torchvision_builder(factory_name: str, **kwargs) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import torchvision

        module = torchvision.models
        for part in factory_name.split("."):
            module = getattr(module, part)
        return module(weights=None, **kwargs)

    return build


class ReferenceAttention(nn.Module):
    """nn.MultiheadAttention (batch first, self-attention) through torch's reference computation.

    torch 1.13 runs an eval-mode attention through a fused kernel that has no ONNX export; the
    reference path computes the same function with exportable ops.
    """

    def __init__(self, attention: nn.MultiheadAttention) -> None:
        super().__init__()
        self.attention = attention

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                need_weights: bool = False) -> Tuple[torch.Tensor, None]:
        a = self.attention
        q, k, v = (t.transpose(0, 1) for t in (query, key, value))
        out, _ = nn.functional.multi_head_attention_forward(
            q, k, v, a.embed_dim, a.num_heads, a.in_proj_weight, a.in_proj_bias, a.bias_k, a.bias_v,
            a.add_zero_attn, a.dropout, a.out_proj.weight, a.out_proj.bias, training=a.training,
            need_weights=False)
        return out.transpose(0, 1), None


def with_reference_attention(build: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    def build_exportable() -> nn.Module:
        model = build()
        for parent in list(model.modules()):
            for name, child in list(parent.named_children()):
                if isinstance(child, nn.MultiheadAttention):
                    setattr(parent, name, ReferenceAttention(child))
        return model

    return build_exportable


def image(size: int) -> List[InputSpec]:
    return [InputSpec("input", (3, size, size), "normal")]


def bert_inputs(seq: int) -> List[InputSpec]:
    return [InputSpec("input_ids", (seq,), f"tokens:{BERT_VOCAB}"),
            InputSpec("token_type_ids", (seq,), f"tokens:{BERT_TYPE_VOCAB}")]


INCEPTION = dict(aux_logits=False, init_weights=False)

MODELS: Dict[str, ModelSpec] = {spec.name: spec for spec in [
    ModelSpec("resnet18", "torchvision ResNet-18, 224x224",
              torchvision_builder("resnet18"), image(224), ["output"]),
    ModelSpec("resnet50", "torchvision ResNet-50, 224x224",
              torchvision_builder("resnet50"), image(224), ["output"]),
    ModelSpec("inception_v3_299", "torchvision Inception-v3 (no aux head), 299x299",
              torchvision_builder("inception_v3", **INCEPTION), image(299), ["output"]),
    ModelSpec("inception_v3_330", "torchvision Inception-v3 (no aux head), 330x330 as in PET",
              torchvision_builder("inception_v3", **INCEPTION), image(330), ["output"]),
    ModelSpec("csrnet", "CSRNet: VGG-16 front end, dilated back end, 1x1 density conv; 224x224",
              CSRNet, image(224), ["output"]),
    ModelSpec("csrnet_backend", "PET's CSRNet benchmark: the dilated back end on [n,512,14,14]",
              CSRNetBackEnd, [InputSpec("input", (512, 14, 14), "normal")], ["output"]),
    ModelSpec("bert_s128", "12-layer BERT-base encoder with embeddings, sequence 128",
              lambda: BertEncoder(128), bert_inputs(128), ["last_hidden_state"]),
    ModelSpec("bert_s512", "12-layer BERT-base encoder with embeddings, sequence 512 as in PET",
              lambda: BertEncoder(512), bert_inputs(512), ["last_hidden_state"]),
    ModelSpec("r3d_18", "torchvision ResNet3D-18 (video), [n,3,16,112,112]",
              torchvision_builder("video.r3d_18"),
              [InputSpec("input", (3, 16, 112, 112), "normal")], ["output"]),
]}

# Popular torchvision models the harness adds to the nine above (`--models all`); exported only
# when named, so the tests' default export and model checks stay the nine.
EXTRA_MODELS: Dict[str, ModelSpec] = {spec.name: spec for spec in [
    ModelSpec("mobilenet_v2", "torchvision MobileNet-v2 (depthwise convs, ReLU6), 224x224",
              torchvision_builder("mobilenet_v2"), image(224), ["output"]),
    ModelSpec("resnext50_32x4d", "torchvision ResNeXt-50 32x4d (grouped convs), 224x224",
              torchvision_builder("resnext50_32x4d"), image(224), ["output"]),
    ModelSpec("densenet121", "torchvision DenseNet-121 (concatenations), 224x224",
              torchvision_builder("densenet121"), image(224), ["output"]),
    ModelSpec("squeezenet1_1", "torchvision SqueezeNet 1.1 (fire modules: 1x1 and 3x3 siblings), 224x224",
              torchvision_builder("squeezenet1_1"), image(224), ["output"]),
    ModelSpec("googlenet", "torchvision GoogLeNet (Inception-v1 branches, no aux heads), 224x224",
              torchvision_builder("googlenet", aux_logits=False, init_weights=True), image(224), ["output"]),
    ModelSpec("edsr", "EDSR super-resolution ResNet: 16 blocks of 64 channels, residual scaling 0.1, x2 from 64x64",
              EDSR, image(64), ["output"]),
    ModelSpec("vit_b_16", "torchvision ViT-B/16 vision transformer, 224x224",
              with_reference_attention(torchvision_builder("vit_b_16")), image(224), ["output"]),
]}

ALL_MODELS: Dict[str, ModelSpec] = {**MODELS, **EXTRA_MODELS}
