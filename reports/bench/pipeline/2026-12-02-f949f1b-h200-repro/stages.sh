#!/usr/bin/env bash
# Session 15: which stage of `music3 generate` differs between two runs of one seed at full geometry on the H200.
set -uo pipefail
root=$PWD
if [ ! -x /tmp/repo/build/bin/music3 ]; then
  rm -rf /tmp/repo && git clone -q "$root/.carry/repo.bundle" /tmp/repo 2>/dev/null && cd /tmp/repo && git checkout -q --detach origin/gpu-tree || exit 1
  ln -sfn "$root/.carry" .carry; ln -sfn "$root/.whl" .whl
  set +u; source scripts/gpu-env; set -u; export PATH=/usr/local/cuda/bin:$PATH
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUSIC3_CUDA=ON -DMUSIC3_ORACLE_PYTHON="$MUSIC3_ORACLE_PYTHON" >/tmp/configure.log 2>&1 &&
    cmake --build build -j 16 --target music3 >/tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
  echo "built"
fi
cd /tmp/repo; set +u; source scripts/gpu-env; set -u
P=build/synthetic-pipeline-full
if [ ! -f $P/modular_model_index.json ]; then
  rm -rf $P.partial; timeout 200 python3 bench/pipeline/synthetic_pipeline.py $P.partial --geometry full --device cuda > /tmp/synth.log 2>&1 && mv $P.partial $P; echo "synth $?"
fi
M=build/bin/music3
for r in 1 2; do
  $M ar --checkpoint $P --prompt 'a bright synth pop song with warm female vocals' --lyrics '[verse] hello world [chorus] sing with me' \
    --duration 10 --seed 0 --device cuda --dump /tmp/ar$r.safetensors --json > $OUT/ar$r.json 2>/tmp/ar$r.err; echo "ar$r exit $? $(sha256sum < /tmp/ar$r.safetensors | cut -c1-16)"
done
for r in 1 2; do
  $M acoustic --checkpoint $P --frames /tmp/ar1.safetensors --seed 0 --device cuda --dump /tmp/ac$r.safetensors --json > $OUT/ac$r.json 2>/tmp/ac$r.err; echo "acoustic$r exit $? $(sha256sum < /tmp/ac$r.safetensors | cut -c1-16)"
done
for r in 1 2; do
  $M vocode --checkpoint $P --latents /tmp/ac1.safetensors --out /tmp/v$r.wav --force --device cuda --json > $OUT/v$r.json 2>/tmp/v$r.err; echo "vocode$r exit $? $(sha256sum < /tmp/v$r.wav | cut -c1-16)"
done
python3 - <<'PY'
from safetensors.torch import load_file
import torch
for a, b in (("/tmp/ar1.safetensors", "/tmp/ar2.safetensors"), ("/tmp/ac1.safetensors", "/tmp/ac2.safetensors")):
    try:
        x, y = load_file(a), load_file(b)
    except Exception as e:
        print("cannot compare", a, e); continue
    for k in sorted(x):
        u, v = x[k], y.get(k)
        if v is None or u.shape != v.shape: print(k, "shape", tuple(u.shape), None if v is None else tuple(v.shape)); continue
        if u.dtype == torch.bfloat16: u, v = u.view(torch.int16), v.view(torch.int16)
        d = (u != v).reshape(-1).nonzero().flatten()
        first = None
        if d.numel():
            i = int(d[0]); idx = []
            for n in reversed(u.shape): idx.append(i % n); i //= n
            first = tuple(reversed(idx))
        print(k, tuple(u.shape), "differing", d.numel(), "first at", first)
PY
