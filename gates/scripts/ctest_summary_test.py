"""Gate for scripts/ctest-summary: a failed test makes it exit 2 and print FAILED with the name; every skipped
test is named with its labels; a skipped gpu test prints the NOT VERIFIED HERE line; a clean run says so."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SUMMARY = Path(__file__).resolve().parents[2] / "scripts" / "ctest-summary"


def run(cases, labels):
    with tempfile.TemporaryDirectory() as tmp:
        junit, tests = Path(tmp) / "j.xml", Path(tmp) / "t.json"
        body = "".join(f'<testcase name="{n}" status="{s}">{child}</testcase>' for n, s, child in cases)
        junit.write_text(f'<?xml version="1.0"?><testsuite tests="{len(cases)}">{body}</testsuite>')
        tests.write_text(json.dumps({"tests": [{"name": n, "properties": [{"name": "LABELS", "value": v}]}
                                               for n, v in labels.items()]}))
        p = subprocess.run([sys.executable, str(SUMMARY), str(junit), str(tests)], capture_output=True, text=True)
        return p.returncode, p.stdout


def main():
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    rc, out = run([("a", "run", ""), ("b", "fail", "<failure/>"), ("c", "notrun", '<skipped message="77"/>')],
                  {"a": ["cpu"], "b": ["cpu"], "c": ["gpu", "op"]})
    check(rc == 2, f"a failed test must exit 2, got {rc}")
    check("1 passed, 1 FAILED, 1 SKIPPED of 3" in out, "counts")
    check("FAILED   b" in out, "the failed test is named")
    check("SKIPPED  c  [gpu, op]" in out, "the skipped test is named with its labels")
    check("NOT VERIFIED HERE: 1 gpu gates were skipped" in out, "the gpu skip is said loudly")
    rc, out = run([("a", "run", ""), ("d", "notrun", "<skipped/>")], {"a": ["cpu"], "d": ["cpu", "oracle"]})
    check(rc == 0, "skips alone do not fail the summary")
    check("1 skipped tests are not gpu tests" in out, "a non-gpu skip is said")
    check("gpu gates were skipped" not in out, "no gpu line without a gpu skip")
    rc, out = run([("a", "run", "")], {"a": ["cpu"]})
    check(rc == 0 and "every selected test ran and passed" in out, "a clean run says so")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
