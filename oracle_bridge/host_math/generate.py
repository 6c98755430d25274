"""Known answers for the host math unit gates (gates/lm/host_math_gate.cpp, gates/acoustic/host_math_gate.cpp),
computed by torch and transformers on the pinned CPU paths (reproducible_cpu.pin), never by the engine:
  lm.safetensors:  Qwen3RotaryEmbedding's cos/sin (transformers, theta 1e6, head_dim 16, positions 5..10) and
                   apply_rotary_pos_emb on q [6 tokens, 4 heads, 16]; GQA decode attention (4 query heads over 2 KV
                   heads, 7 keys) as the engine's contract states it in torch ops: f32 scores * scale, P = exp(s - max)
                   in f32 rounded to bf16 for P.V (f32), divided by the sum of the unrounded P, one rounding.
  dit.safetensors: F.layer_norm [5, 48] (eps 1e-6), F.linear [3, 40] x [24, 40] + bias, F.conv1d (40 -> 12 channels,
                   kernel 3, padding 1, T 9) + bias, F.scaled_dot_product_attention [2 heads, 6 positions, 16].
  vocoder.safetensors (the vocoder's host kernels, engine/models/music3/vocoder/vocoder_host_math.h): F.conv1d
                   (8 -> 6 channels, kernel 7, dilation 3, padding 9, T 20) + bias; F.conv_transpose1d (8 -> 6
                   channels, kernel 4, stride 2, padding 1, T 5) + bias; diffusers' MiniMaxMusic3Snake1d over [6, 16]
                   with alpha exp(0.5 N(0,1)); torch.tanh over 40 values; a residual add of 32.
  depth.safetensors (the depth stage's host kernels, engine/runtime/host_math.h): F.linear [3, 40] x [24, 40] (no
                   bias, as the depth decoder's projections); diffusers' RMSNorm [4, 48] (eps 1e-6, bf16 weight);
                   F.silu(g) * u over [3, 32]; a residual add of 64; the last query row of causal
                   F.scaled_dot_product_attention (4 heads of 16, 7 positions, default scale), as the depth
                   decoder's attention gives it.
The vocoder and depth cases draw from generators of their own (seeds 1516, 1517), so adding them left lm and dit
byte-identical. All in bf16 as the modules run. Usage: generate.py OUT_DIR (the committed copy is oracle_bridge/goldens/host_math/).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import reproducible_cpu  # noqa: E402

torch = reproducible_cpu.pin()
import torch.nn.functional as F  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
from diffusers.models.autoencoders.minimax_music3_vocoder import MiniMaxMusic3Snake1d  # noqa: E402
from diffusers.models.normalization import RMSNorm  # noqa: E402
from transformers import Qwen3Config  # noqa: E402
from transformers.models.qwen3.modeling_qwen3 import Qwen3RotaryEmbedding, apply_rotary_pos_emb  # noqa: E402


def randn(gen, *shape, scale=1.0):
    return (torch.randn(*shape, generator=gen) * scale).to(torch.bfloat16)


def lm_cases(gen):
    heads, kv_heads, D, T, pos0 = 4, 2, 16, 6, 5
    cfg = Qwen3Config(hidden_size=heads * D, num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=D,
                      rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})
    rope = Qwen3RotaryEmbedding(cfg)
    q = randn(gen, 1, heads, T, D)
    cos, sin = rope(q, torch.arange(pos0, pos0 + T)[None])
    q_rot, _ = apply_rotary_pos_emb(q, q, cos, sin)
    out = {"rope.cos": cos[0].contiguous(), "rope.sin": sin[0].contiguous(),
           "rope.q": q[0].transpose(0, 1).contiguous(), "rope.q_rotated": q_rot[0].transpose(0, 1).contiguous()}
    keys = 7
    aq = randn(gen, heads, D)
    ak = randn(gen, keys, kv_heads, D)
    av = randn(gen, keys, kv_heads, D)
    scale = D ** -0.5
    kh = ak.float().repeat_interleave(heads // kv_heads, dim=1)  # [keys, heads, D]: head h reads kv head h // group
    vh = av.float().repeat_interleave(heads // kv_heads, dim=1)
    scores = torch.einsum("hd,khd->hk", aq.float(), kh) * scale
    p = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)  # unnormalised, f32
    acc = torch.einsum("hk,khd->hd", p.to(torch.bfloat16).float(), vh)
    att = (acc / p.sum(dim=-1, keepdim=True)).to(torch.bfloat16)
    out.update({"gqa.q": aq.reshape(-1), "gqa.k": ak.reshape(keys, -1), "gqa.v": av.reshape(keys, -1),
                "gqa.out": att.reshape(-1), "gqa.scale": torch.tensor([scale], dtype=torch.float32)})
    return out


def dit_cases(gen):
    x = randn(gen, 5, 48)
    w, b = randn(gen, 48, scale=0.5) + 1, randn(gen, 48, scale=0.1)
    out = {"ln.x": x, "ln.w": w, "ln.b": b, "ln.y": F.layer_norm(x, (48,), w, b, 1e-6)}
    lx, lw, lb = randn(gen, 3, 40), randn(gen, 24, 40, scale=0.2), randn(gen, 24, scale=0.1)
    out.update({"linear.x": lx, "linear.w": lw, "linear.b": lb, "linear.y": F.linear(lx, lw, lb)})
    cx, cw, cb = randn(gen, 40, 9), randn(gen, 12, 40, 3, scale=0.1), randn(gen, 12, scale=0.1)
    out.update({"conv.x": cx, "conv.w": cw, "conv.b": cb, "conv.y": F.conv1d(cx[None], cw, cb, padding=1)[0]})
    q, k, v = randn(gen, 1, 2, 6, 16), randn(gen, 1, 2, 6, 16), randn(gen, 1, 2, 6, 16)
    att = F.scaled_dot_product_attention(q, k, v, scale=16 ** -0.5)
    # the engine's layout: [S, heads, head_dim]
    out.update({"attn.q": q[0].transpose(0, 1).contiguous(), "attn.k": k[0].transpose(0, 1).contiguous(),
                "attn.v": v[0].transpose(0, 1).contiguous(), "attn.out": att[0].transpose(0, 1).contiguous()})
    return out


def vocoder_cases(gen):
    cx, cw, cb = randn(gen, 8, 20), randn(gen, 6, 8, 7, scale=0.2), randn(gen, 6, scale=0.1)
    out = {"conv.x": cx, "conv.w": cw, "conv.b": cb,
           "conv.y": F.conv1d(cx[None], cw, cb, dilation=3, padding=9)[0]}
    tx, tw, tb = randn(gen, 8, 5), randn(gen, 8, 6, 4, scale=0.2), randn(gen, 6, scale=0.1)  # weight [in, out, k]
    out.update({"convt.x": tx, "convt.w": tw, "convt.b": tb,
                "convt.y": F.conv_transpose1d(tx[None], tw, tb, stride=2, padding=1)[0]})
    snake = MiniMaxMusic3Snake1d(6).to(torch.bfloat16)
    alpha = torch.exp(0.5 * torch.randn(6, generator=gen)).to(torch.bfloat16)
    with torch.no_grad():
        snake.alpha.copy_(alpha.reshape(1, 6, 1))
        sx = randn(gen, 6, 16, scale=2.0)
        out.update({"snake.x": sx, "snake.alpha": alpha, "snake.y": snake(sx[None])[0]})
    hx = randn(gen, 40, scale=2.0)
    a, b = randn(gen, 32), randn(gen, 32)
    out.update({"tanh.x": hx, "tanh.y": torch.tanh(hx), "add.a": a, "add.b": b, "add.y": a + b})
    return out


def depth_cases(gen):
    lx, lw = randn(gen, 3, 40), randn(gen, 24, 40, scale=0.2)
    out = {"linear.x": lx, "linear.w": lw, "linear.y": F.linear(lx, lw)}
    norm = RMSNorm(48, eps=1e-6, elementwise_affine=True).to(torch.bfloat16)
    with torch.no_grad():
        nw = randn(gen, 48, scale=0.5) + 1
        norm.weight.copy_(nw)
        nx = randn(gen, 4, 48)
        out.update({"rms.x": nx, "rms.w": nw, "rms.y": norm(nx)})
    g, u = randn(gen, 3, 32, scale=2.0), randn(gen, 3, 32)
    a, b = randn(gen, 64), randn(gen, 64)
    out.update({"silu.g": g, "silu.u": u, "silu.y": F.silu(g) * u, "add.a": a, "add.b": b, "add.y": a + b})
    heads, D, T = 4, 16, 7
    q, k, v = randn(gen, 1, heads, T, D), randn(gen, 1, heads, T, D), randn(gen, 1, heads, T, D)
    att = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # [1, heads, T, D]
    # the engine's layout: the last query row [heads * D] over keys and values [T][heads * D]
    out.update({"attn.q": q[0, :, -1].reshape(-1).contiguous(), "attn.k": k[0].transpose(0, 1).reshape(T, -1).contiguous(),
                "attn.v": v[0].transpose(0, 1).reshape(T, -1).contiguous(),
                "attn.out": att[0, :, -1].reshape(-1).contiguous()})
    return out


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(1515)
    meta = {"producer": "oracle_bridge/host_math/generate.py", "torch": torch.__version__}
    save_file({k: v.contiguous() for k, v in lm_cases(gen).items()}, str(out / "lm.safetensors"), metadata=meta)
    save_file({k: v.contiguous() for k, v in dit_cases(gen).items()}, str(out / "dit.safetensors"), metadata=meta)
    for name, cases, seed in (("vocoder", vocoder_cases, 1516), ("depth", depth_cases, 1517)):
        tensors = cases(torch.Generator().manual_seed(seed))
        save_file({k: v.contiguous() for k, v in tensors.items()}, str(out / f"{name}.safetensors"), metadata=meta)


if __name__ == "__main__":
    main()
