#!/usr/bin/env bash
# Session 16, GPU call 1: bisect the full-geometry AR repeat defect on the H200.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
source scripts/gpu-env
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUSIC3_ORACLE_PYTHON="$MUSIC3_ORACLE_PYTHON" > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
ninja -C build music3 > "$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -40; exit 1; }
stamp built
pipe=/tmp/synthetic-pipeline-full
python3 bench/pipeline/synthetic_pipeline.py "$pipe" --geometry full --device cuda > "$out/synth.log" 2>&1 \
  || { tail -20 "$out/synth.log"; exit 1; }
stamp synthesized
rc() { echo "== $1"; shift; env "$@" scripts/repro-check "$pipe" cuda "${DUR:-2}" "${RUNS:-2}" 2>&1; echo "exit $?"; }
{
  RUNS=3 rc plain
  stamp
  rc no-pdl MUSIC3_DISABLE_PDL=1
  stamp
  rc no-gemv MUSIC3_DISABLE_PROVIDERS=cuda.matmul_bt.gemv
  stamp
  rc blocking CUDA_LAUNCH_BLOCKING=1
  stamp
} | tee "$out/bisect.txt"
left=$(( ${BUDGET_S:-540} - ($(date +%s) - t0) ))
stamp "initcheck with ${left} s left"
if [ "$left" -gt 60 ]; then
  timeout $((left - 20)) compute-sanitizer --tool initcheck --track-unused-memory no --print-limit 20 \
    build/bin/music3 ar --checkpoint "$pipe" --prompt 'a bright synth pop song with warm female vocals' \
    --lyrics '[verse] hello world [chorus] sing with me' --duration 0.12 --seed 0 --device cuda --json \
    > "$out/initcheck.txt" 2>&1
  echo "initcheck exit $?"
  grep -v '^ *"' "$out/initcheck.txt" | head -60
fi
stamp done
