"""Perturbs the parameters a module's upstream initialisation leaves constant, so a port that drops or misplaces
one of them (a norm weight or bias, a layer scale, a Snake alpha, a weight-norm gain) cannot match the oracle.

Contract: `perturb_constants(model, seed, spreads)` visits every parameter in sorted name order with one CPU
torch.Generator seeded with `seed` and changes, in place:
  - a parameter whose elements are all equal (value v; any one-element parameter counts): v + s * N(0, 1), with
    s = spreads[name's last part] when given, else DEFAULT_SPREAD;
  - a weight-norm gain (`*.weight_g`, which upstream derives from weight_v's norms): times 1 + s * N(0, 1);
the draws are float32, cast to the parameter's dtype. Returns the sorted names it changed (for the manifest), so
a reviewer sees what was perturbed. Deterministic: same module, seed and spreads give the same bits.
"""
import torch

DEFAULT_SPREAD = 0.1


def perturb_constants(model, seed, spreads=None):
    spreads = spreads or {}
    params = dict(model.named_parameters())
    generator = torch.Generator(device="cpu").manual_seed(seed)
    changed = []
    with torch.no_grad():
        for name in sorted(params):
            param = params[name]
            flat = param.detach().float().reshape(-1)
            gain = name.endswith(".weight_g")
            if not gain and not bool((flat == flat[0]).all()):
                continue
            spread = spreads.get(name.rsplit(".", 1)[-1], DEFAULT_SPREAD)
            draw = torch.randn(param.shape, generator=generator, dtype=torch.float32) * spread
            value = param.detach().float() * (1.0 + draw) if gain else param.detach().float() + draw
            param.data = value.to(param.dtype)
            changed.append(name)
    return changed
