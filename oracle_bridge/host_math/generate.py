"""Known answers for the host math unit gates (gates/lm/host_math_gate.cpp, gates/acoustic/host_math_gate.cpp),
computed by torch and transformers on the pinned CPU paths (reproducible_cpu.pin), never by the engine:
  lm.safetensors:  Qwen3RotaryEmbedding's cos/sin (transformers, theta 1e6, head_dim 16, positions 5..10) and
                   apply_rotary_pos_emb on q [6 tokens, 4 heads, 16]; GQA decode attention (4 query heads over 2 KV
                   heads, 7 keys) as the engine's contract states it in torch ops: f32 scores * scale, P = exp(s - max)
                   in f32 rounded to bf16 for P.V (f32), divided by the sum of the unrounded P, one rounding.
  dit.safetensors: F.layer_norm [5, 48] (eps 1e-6), F.linear [3, 40] x [24, 40] + bias, F.conv1d (40 -> 12 channels,
                   kernel 3, padding 1, T 9) + bias, F.scaled_dot_product_attention [2 heads, 6 positions, 16].
All in bf16 as the modules run. Usage: generate.py OUT_DIR (the committed copy is oracle_bridge/goldens/host_math/).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import reproducible_cpu  # noqa: E402

torch = reproducible_cpu.pin()
import torch.nn.functional as F  # noqa: E402
from safetensors.torch import save_file  # noqa: E402
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


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(1515)
    meta = {"producer": "oracle_bridge/host_math/generate.py", "torch": torch.__version__}
    save_file({k: v.contiguous() for k, v in lm_cases(gen).items()}, str(out / "lm.safetensors"), metadata=meta)
    save_file({k: v.contiguous() for k, v in dit_cases(gen).items()}, str(out / "dit.safetensors"), metadata=meta)


if __name__ == "__main__":
    main()
