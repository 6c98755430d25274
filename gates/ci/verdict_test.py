"""ci_verdict_test: scripts/ci/verdict.py, the merge gate's last step, on made-up step outputs. Its exit status
follows the shared table (a failed build 4, a failed test 2, a battery that missed an expectation 2, a void
battery 9, a clean run 0), skipped GPU tests are counted as skipped and not run, and GPU mutations the change
chose bring the GPU battery's command into the table, as do the GPU mutations `mutation-battery owed` lists (without
changing the exit status)."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

VERDICT = Path(__file__).resolve().parents[2] / "scripts" / "ci" / "verdict.py"


def run(tmp, build_exit=0, cases=(("a", "run", ""), ("g", "notrun", "<skipped/>")), outcomes=(("m1", True),),
        chosen=("m1",), complete=True, void=False, battery_exit=0, owed=None):
    gates, battery = Path(tmp) / "gates", Path(tmp) / "battery"
    gates.mkdir(exist_ok=True)
    battery.mkdir(exist_ok=True)
    (gates / "status.json").write_text(json.dumps({"build_exit": build_exit, "ctest_exit": 0, "seconds": 1}))
    body = "".join(f'<testcase name="{n}" status="{s}">{c}</testcase>' for n, s, c in cases)
    (gates / "ctest-junit.xml").write_text(f'<?xml version="1.0"?><testsuite>{body}</testsuite>')
    labels = {"a": ["cpu"], "b": ["cpu"], "g": ["gpu"]}
    (gates / "tests.json").write_text(json.dumps({"tests": [
        {"name": n, "properties": [{"name": "LABELS", "value": labels[n]}]} for n, _, _ in cases]}))
    (battery / "mutants.json").write_text(json.dumps([{"id": m} for m, _ in outcomes]))
    (battery / "outcomes.jsonl").write_text("".join(
        json.dumps({"phase": "mutation", "id": m, "as_expected": ok, "outcome": "killed" if ok else "survived"}) + "\n"
        for m, ok in outcomes))
    (battery / "run.json").write_text(json.dumps({
        "complete": complete, "void_run": void, "stopped": "" if complete else "stopped",
        "in_diff": {"merge_base": "abc" * 13, "changed": ["x"], "skipped": [],
                    "chosen": [{"id": c, "why": "its file changed"} for c in chosen]}}))
    extra = []
    if owed is not None:
        (Path(tmp) / "owed.json").write_text(json.dumps(
            {"owed": [{"id": i} for i in owed], "ids": ",".join(owed)}))
        extra = ["--owed-gpu", str(Path(tmp) / "owed.json")]
    p = subprocess.run([sys.executable, str(VERDICT), "--gates", str(gates), "--battery", str(battery),
                        "--battery-exit", str(battery_exit), "--base", "abc", *extra], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    failures = []

    def check(cond, what, out=""):
        if not cond:
            failures.append(f"{what}\n{out}")

    with tempfile.TemporaryDirectory() as tmp:
        rc, out = run(tmp)
        check(rc == 0 and "verdict: PASS (exit 0)" in out, "a clean run passes", out)
        check("1 passed, 0 failed, 1 skipped" in out and "1 GPU gates" in out, "a GPU skip is skipped, not passed", out)
        check("--label gpu" not in out, "no GPU battery without a GPU mutation chosen", out)
        rc, out = run(tmp, cases=(("a", "run", ""), ("b", "fail", "<failure/>")))
        check(rc == 2 and "failed: b" in out, "a failed test exits 2 and is named", out)
        rc, out = run(tmp, build_exit=1)
        check(rc == 4, "a failed build exits 4", out)
        rc, out = run(tmp, outcomes=(("m1", False),), battery_exit=2)
        check(rc == 2 and "NOT as expected" in out and "m1 (survived)" in out, "an unexpected outcome exits 2", out)
        rc, out = run(tmp, complete=False, void=True, battery_exit=9)
        check(rc == 9, "a void battery exits 9", out)
        rc, out = run(tmp, chosen=("m1", "gpu-m"))
        check(rc == 0 and "1 GPU mutations the change chose: gpu-m" in out and
              "build/bin/mutation-battery --label gpu --in-diff abc" in out, "chosen GPU mutations: the box's command", out)
        rc, out = run(tmp, owed=("g1", "g2"))
        check(rc == 0 and "2 GPU mutations without a current H200 verdict" in out and
              "MUSIC3_BATTERY_IDS=g1,g2 scripts/gpu-battery" in out, "owed GPU mutations: named, not failing", out)
        rc, out = run(tmp, owed=())
        check(rc == 0 and "current H200 verdict" not in out, "nothing owed: no line", out)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
