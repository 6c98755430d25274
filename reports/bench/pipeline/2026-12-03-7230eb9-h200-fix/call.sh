#!/usr/bin/env bash
# Session 16, GPU call: the candidate fix (.carry/fix1.patch on the exp tree) built; two processes of `music3 ar`;
# if they agree: the gpu gates and two 10 s songs of one seed; if not: the exp switches (MUSIC3_EXP 2, 4, 8).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
source scripts/gpu-env
pipe=$PWD/build/synthetic-pipeline-full
mkdir -p build
(python3 bench/pipeline/synthetic_pipeline.py "$pipe.partial" --geometry full --device cuda > "$out/synth.log" 2>&1 \
  && mv "$pipe.partial" "$pipe"; echo "synth exit $?" >> "$out/synth.log") &
synth=$!
git apply .carry/fix1.patch 2>/dev/null || patch -p1 < .carry/fix1.patch > /dev/null || { echo "patch failed"; exit 4; }
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DMUSIC3_ORACLE_PYTHON="$MUSIC3_ORACLE_PYTHON" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
ninja -C build -k 0 > "$out/build.log" 2>&1 || grep -E "error|FAILED" "$out/build.log" | head -20
[ -x build/bin/music3 ] || exit 1
stamp built
wait $synth; tail -1 "$out/synth.log"; stamp synthesized
scripts/repro-check "$pipe" cuda 1 2 2>&1 | tee "$out/repro-fix.txt"
stamp repro
if grep -q "identical dumps" "$out/repro-fix.txt"; then
  sha256sum build/bin/music3 build/bin/gate_* > "$out/binaries.sha256"
  rec=$PWD/build/gate-records; rm -rf "$rec"; mkdir -p "$rec"
  (cd build && MUSIC3_GATE_RECORD_DIR="$rec" timeout 150 ctest -L gpu -E gate_ar_repeat_cuda_full -j4 --output-on-failure --timeout 140) > "$out/ctest-gpu.log" 2>&1
  echo "ctest exit $?"
  grep -E "tests passed|tests failed|\(Failed\)|\*\*\*|Not Run|Timeout" "$out/ctest-gpu.log" | tail -20
  stamp gates
  python3 reports/render_gate_report.py "$rec" "$out/gate-report" --bin-dir build/bin --tag h200 > "$out/gate-summary.txt" 2>&1
  tar czf "$out/gate-records.tar.gz" -C "$rec" . 2>/dev/null
  for r in a b; do
    [ $(( $(date +%s) - t0 )) -gt 330 ] && break
    build/bin/music3 generate --checkpoint "$pipe" --prompt 'a bright synth pop song with warm female vocals' \
      --lyrics '[verse] hello world [chorus] sing with me' --duration 10 --seed 0 --ignore-eos --quiet \
      --out /tmp/song-$r.wav --json > "$out/generate-10s-$r.json" 2> "$out/generate-10s-$r.err"
    echo "generate $r exit $?: $(sha256sum /tmp/song-$r.wav | cut -c1-64)"
  done
else
  git apply -R .carry/fix1.patch 2>/dev/null || patch -R -p1 < .carry/fix1.patch > /dev/null
  ninja -C build music3 > "$out/build-exp.log" 2>&1 || exit 1
  for v in 2 4 8; do
    echo "== exp $v"; MUSIC3_EXP=$v scripts/repro-check "$pipe" cuda 1 2 2>&1 | grep -v "^run [12]: exit"; stamp
    [ $(( $(date +%s) - t0 )) -gt 300 ] && break
  done | tee "$out/exp.txt"
fi
stamp done
