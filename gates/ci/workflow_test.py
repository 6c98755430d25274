#!/usr/bin/env python3
"""ci_workflow_test: parses .github/workflows/merge-gate.yml so that the CI merge gate cannot rot.

Checks the jobs (cpu-gates, battery, battery-merge, gpu) and what ties them together: the battery matrix is
exactly the shards 0..BATTERY_SHARDS-1, each shard's report folder is what its artifact uploads, the merge job
downloads every battery-shard-* artifact and the cpu-gates artifact into the folders it merges and judges, the
GPU job runs on the self-hosted H200 runner and runs scripts/gpu-gates and scripts/gpu-bench; every script a step
runs exists and is executable, and scripts/merge-gate runs the same scripts/ci/ steps.
PyYAML: the oracle venv's (pinned in oracle_bridge/requirements.txt); ctest runs this with that python.
usage: workflow_test.py REPO_ROOT
"""
import os
import re
import sys
import unittest
from pathlib import Path

import yaml

ROOT = Path(sys.argv.pop(1) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
WORKFLOW = ROOT / ".github/workflows/merge-gate.yml"


def runs(job):
    return "\n".join(s.get("run", "") for s in job["steps"])


def uses(job, action):
    return [s for s in job["steps"] if s.get("uses", "").startswith(action)]


class MergeGateWorkflow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.wf = yaml.safe_load(WORKFLOW.read_text())
        cls.jobs = cls.wf["jobs"]

    def test_triggers_and_jobs(self):
        on = self.wf.get("on", self.wf.get(True))  # YAML 1.1 reads a bare `on` key as true
        self.assertIn("pull_request", on)
        self.assertIn("push", on)
        self.assertEqual(set(self.jobs), {"cpu-gates", "battery", "battery-merge", "gpu"})

    def test_cpu_gates_job_uploads_its_folder(self):
        job = self.jobs["cpu-gates"]
        self.assertIn("scripts/ci/cpu-gates out/cpu-gates", runs(job))
        [up] = uses(job, "actions/upload-artifact@")
        self.assertEqual(up["with"], {"name": "cpu-gates", "path": "out/cpu-gates"})

    def test_battery_matrix_is_every_shard_once(self):
        job = self.jobs["battery"]
        n = int(self.wf["env"]["BATTERY_SHARDS"])
        self.assertEqual(job["strategy"]["matrix"]["shard"], list(range(n)))
        self.assertFalse(job["strategy"]["fail-fast"], "one failed shard must not cancel the others")
        self.assertIn("scripts/ci/battery-shard ${{ matrix.shard }}/$BATTERY_SHARDS "
                      "out/battery-shard-${{ matrix.shard }} $IN_DIFF_BASE", runs(job))
        [up] = uses(job, "actions/upload-artifact@")
        self.assertEqual(up["with"], {"name": "battery-shard-${{ matrix.shard }}",
                                      "path": "out/battery-shard-${{ matrix.shard }}"})
        self.assertEqual(up.get("if"), "always()", "a failed shard's report is what tells why")

    def test_merge_job_merges_every_shard_and_judges(self):
        job = self.jobs["battery-merge"]
        self.assertEqual(set(job["needs"]), {"cpu-gates", "battery"})
        self.assertEqual(job.get("if"), "always()")
        downloads = {d["with"].get("pattern") or d["with"].get("name"): d["with"]["path"]
                     for d in uses(job, "actions/download-artifact@")}
        self.assertEqual(downloads, {"battery-shard-*": "shards", "cpu-gates": "out/cpu-gates"})
        text = runs(job)
        self.assertIn("scripts/ci/battery-merge out/battery-report shards/battery-shard-*", text)
        self.assertRegex(text, r"scripts/ci/verdict\.py --gates out/cpu-gates --battery out/battery-report")
        [up] = uses(job, "actions/upload-artifact@")
        self.assertEqual(up["with"], {"name": "battery-report", "path": "out/battery-report"})

    def test_gpu_job_runs_on_the_h200_runner(self):
        job = self.jobs["gpu"]
        self.assertIn("self-hosted", job["runs-on"])
        self.assertIn("h200", job["runs-on"])
        text = runs(job)
        self.assertIn("scripts/gpu-gates", text)
        self.assertIn("scripts/gpu-bench", text)
        names = {u["with"]["name"] for u in uses(job, "actions/upload-artifact@")}
        self.assertEqual(names, {"gpu-gates", "gpu-bench"})

    def test_every_script_a_step_runs_exists(self):
        for name, job in self.jobs.items():
            for script in re.findall(r"(?<![\w/])(scripts/[\w./-]+)", runs(job)):
                path = ROOT / script
                self.assertTrue(path.is_file(), f"job {name} runs {script}, which does not exist")
                if path.suffix != ".py":
                    self.assertTrue(os.access(path, os.X_OK), f"{script} is not executable")

    def test_merge_gate_runs_the_same_steps(self):
        local = (ROOT / "scripts/merge-gate").read_text()
        for step in ("scripts/ci/cpu-gates", "scripts/ci/battery-shard", "scripts/ci/battery-merge",
                     "scripts/ci/verdict.py"):
            self.assertIn(step, local, f"scripts/merge-gate does not run {step}, as CI does")


if __name__ == "__main__":
    unittest.main(verbosity=2)
