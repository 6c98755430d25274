#!/usr/bin/env bash
# Session 18, GPU battery call: the copied tree (reports/ left out) committed into a box-local git repository (the
# battery works in a worktree of HEAD), mutation-battery built, then `--label gpu --only $IDS`. Optional: SYNTH=1
# writes the synthetic full pipeline in the background (gate_ar_repeat_cuda_full reads
# /tmp/music3-synthetic-pipeline-full). Everything under $OUT/battery.tar.gz.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
source scripts/gpu-env
export MUSIC3_ORACLE_PYTHON
if [ "${SYNTH:-0}" = 1 ]; then
  pipe=/tmp/synthetic-pipeline-full
  (python3 bench/pipeline/synthetic_pipeline.py "$pipe.partial" --geometry full --device cuda > "$out/synth.log" 2>&1 \
    && mv "$pipe.partial" "$pipe" && ln -sfn "$pipe" /tmp/music3-synthetic-pipeline-full; echo "synth exit $?" >> "$out/synth.log") &
fi
git init -q . && git add -A && git -c user.email=box@h200 -c user.name=box commit -qm "${REV:-unknown} without reports/" || exit 8
stamp "box commit $(git rev-parse --short HEAD) (tree of ${REV:-unknown} without reports/)"
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUSIC3_ORACLE_PYTHON="$MUSIC3_ORACLE_PYTHON" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
ninja -C build mutation-battery > "$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head; exit 1; }
stamp "battery built"
[ "${SYNTH:-0}" = 1 ] && { wait; tail -1 "$out/synth.log"; stamp synthesized; }
end=585; [ "${AB:-0}" = 1 ] && end=${BATTERY_END:-470}  # AB leaves the rest of the call for its builds and runs
timeout $(( end - ($(date +%s) - t0) )) build/bin/mutation-battery --repo . --label gpu --only "$IDS" --out "$out/battery" ${KEEP:+--keep-worktree} \
  > "$out/battery.log" 2>&1
echo "battery exit $?"
tail -25 "$out/battery.log"
for f in $(find "$out/battery" -name summary.md); do sed -n 1,10p "$f"; grep -E "^\| [0-9]+ \|" "$f" | cut -c1-200; done
tar czf "$out/battery.tar.gz" -C "$out" battery battery.log 2>/dev/null
rm -rf "$out/battery" "$out/battery.log"
stamp "battery done"
# AB=1 (with KEEP=1): in the battery's restored worktree build, lm-step-breakdown and bench-ar at HEAD and with
# .carry/gqa_attention.42c7553.cu swapped in (the decode attention before the staging), alternated.
if [ "${AB:-0}" = 1 ]; then
  bd=$(dirname "$(find /tmp/music3-battery-* -maxdepth 3 -name build.ninja | head -1)")
  src=$(dirname "$bd")/wt
  git -C "$src" checkout -- . 2>/dev/null  # a battery cut short may leave a mutant applied
  left() { echo $(( 590 - ($(date +%s) - t0) )); }
  echo "worktree build $bd; $(left) s left"
  ninja -C "$bd" lm-step-breakdown bench-ar > "$out/ab-build-new.log" 2>&1 || tail -5 "$out/ab-build-new.log"
  mkdir -p /tmp/new /tmp/old && cp "$bd"/bin/lm-step-breakdown "$bd"/bin/bench-ar /tmp/new/
  cp "$src/engine/ops/cuda/gqa_attention.cu" /tmp/gqa_attention.head.cu
  cp .carry/gqa_attention.42c7553.cu "$src/engine/ops/cuda/gqa_attention.cu"
  ninja -C "$bd" lm-step-breakdown bench-ar > "$out/ab-build-old.log" 2>&1 || tail -5 "$out/ab-build-old.log"
  cp "$bd"/bin/lm-step-breakdown "$bd"/bin/bench-ar /tmp/old/
  cp /tmp/gqa_attention.head.cu "$src/engine/ops/cuda/gqa_attention.cu"
  sha256sum /tmp/new/* /tmp/old/* | tee "$out/ab-binaries.sha256"
  stamp "ab built"
  for round in 1 2; do
    for arm in old new; do
      [ "$(left)" -lt 25 ] && break 2
      timeout $(( $(left) - 5 )) /tmp/$arm/lm-step-breakdown --kv 300 --steps 20 > "$out/lsb-$arm-$round.txt" 2>&1
      echo "== $arm $round: $(grep -E '^gqa_attention|graph replays' "$out/lsb-$arm-$round.txt" | tr -s ' ' | tr '\n' ';')"
    done
  done
  for arm in old new; do
    [ "$(left)" -lt 40 ] && break
    timeout $(( $(left) - 5 )) /tmp/$arm/bench-ar --benchmark_filter=ar/cuda > "$out/bench-ar-$arm.txt" 2>&1
    echo "== bench-ar $arm: $(grep -E '^ar/' "$out/bench-ar-$arm.txt")"
  done
  stamp "ab done"
fi
