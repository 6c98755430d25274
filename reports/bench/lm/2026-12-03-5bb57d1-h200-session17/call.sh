#!/usr/bin/env bash
# Session 17, GPU call 1 at main: build; the whole gpu ctest (incl. gate_ar_repeat_cuda_full); two 10 s songs of one
# seed (sha256); then .carry/l2-prefetch.patch applied and rebuilt incrementally: bench-lm / lm-step-breakdown /
# bench-ar alternated between the two builds, and the GEMV's gates on the patched build.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( 585 - ($(date +%s) - t0) )); }
source scripts/gpu-env
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/nvidia-smi.txt" 2>&1
pipe=$PWD/build/synthetic-pipeline-full
mkdir -p build
(python3 bench/pipeline/synthetic_pipeline.py "$pipe.partial" --geometry full --device cuda > "$out/synth.log" 2>&1 \
  && mv "$pipe.partial" "$pipe"; echo "synth exit $?" >> "$out/synth.log") &
synth=$!
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUSIC3_ORACLE_PYTHON="$MUSIC3_ORACLE_PYTHON" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
ninja -C build -k 0 > "$out/build.log" 2>&1 || grep -E "error|FAILED" "$out/build.log" | head -20
[ -x build/bin/music3 ] || exit 1
stamp built
wait $synth; tail -1 "$out/synth.log"; stamp synthesized
ln -sfn "$pipe" /tmp/music3-synthetic-pipeline-full
sha256sum build/bin/music3 build/bin/gate_* build/bin/bench-lm build/bin/bench-ar build/bin/lm-step-breakdown > "$out/binaries.sha256"
rec=$PWD/build/gate-records; rm -rf "$rec"; mkdir -p "$rec"
(cd build && MUSIC3_GATE_RECORD_DIR="$rec" timeout 250 ctest -L gpu -j8 --output-on-failure --timeout 240) > "$out/ctest-gpu.log" 2>&1
echo "ctest exit $?"
grep -E "tests passed|tests failed|\(Failed\)|\*\*\*|Not Run|Timeout|gate_ar_repeat" "$out/ctest-gpu.log" | tail -20
stamp gates
python3 reports/render_gate_report.py "$rec" "$out/gate-report" --bin-dir build/bin --tag h200 > "$out/gate-summary.txt" 2>&1
tar czf "$out/gate-records.tar.gz" -C "$rec" . 2>/dev/null
for r in a b; do
  timeout 60 build/bin/music3 generate --checkpoint "$pipe" --prompt 'a bright synth pop song with warm female vocals' \
    --lyrics '[verse] hello world [chorus] sing with me' --duration 10 --seed 0 --ignore-eos --quiet \
    --out /tmp/song-$r.wav --json > "$out/generate-10s-$r.json" 2> "$out/generate-10s-$r.err"
  echo "generate $r exit $?: $(sha256sum /tmp/song-$r.wav | cut -c1-64)"
done | tee "$out/generate-repeat.txt"
stamp generated
mkdir -p /tmp/base && cp build/bin/bench-lm build/bin/bench-ar build/bin/lm-step-breakdown /tmp/base/
for p in l2-prefetch gqa-hoist; do patch -p1 < .carry/$p.patch > /dev/null || { echo "patch $p failed"; exit 4; }; done
ninja -C build bench-lm bench-ar lm-step-breakdown op_matmul_bt_cuda op_gqa_attention_cuda gate_lm_device gate_depth_parity > "$out/build-patched.log" 2>&1 || { tail -20 "$out/build-patched.log"; }
stamp patched-built
sha256sum build/bin/bench-lm build/bin/bench-ar build/bin/lm-step-breakdown > "$out/binaries-patched.sha256"
for round in 1 2; do
  for arm in base patched; do
    [ "$(left)" -lt 60 ] && break 2
    bin=build/bin; [ $arm = base ] && bin=/tmp/base
    timeout 30 $bin/lm-step-breakdown --kv 300 --steps 20 > "$out/lm-step-breakdown-$arm-$round.txt" 2>&1
    timeout 40 $bin/bench-lm --benchmark_filter=lm/cuda --benchmark_min_time=0.3s \
      --benchmark_out="$out/bench-lm-$arm-$round.json" --benchmark_out_format=json > "$out/bench-lm-$arm-$round.txt" 2>&1
    timeout 40 $bin/bench-ar --benchmark_filter=ar/cuda --benchmark_out="$out/bench-ar-$arm-$round.json" \
      --benchmark_out_format=json > "$out/bench-ar-$arm-$round.txt" 2>&1
    echo "== $arm $round"; grep -hE "^(lm|ar)/" "$out/bench-lm-$arm-$round.txt" "$out/bench-ar-$arm-$round.txt"
    grep -iE "graph|total|replay" "$out/lm-step-breakdown-$arm-$round.txt" | head -4
    stamp "$arm $round"
  done
done
if [ "$(left)" -gt 30 ]; then
  (cd build && timeout $(( $(left) - 5 )) ctest -R "op_matmul_bt_cuda|op_gqa_attention_cuda|gate_lm_device_cuda|gate_depth_parity_cuda" -FA ".*" -j4 --output-on-failure) > "$out/ctest-patched.log" 2>&1
  echo "patched gates exit $?"; grep -E "tests passed|Failed|Passed" "$out/ctest-patched.log" | tail -6
fi
stamp done
