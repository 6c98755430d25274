"""Gate for scripts/box-tree-clone: the clone it prints holds the working tree as it is (a modified, a deleted and an
untracked file; not an ignored one), while the checkout's HEAD, index and files stay as they were; in a folder
without .git it still gives a clone of the files. Needs git only."""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "box-tree-clone"


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


CLONES = []  # removed at the end: the script makes them under /tmp


def clone_of(repo):
    p = subprocess.run([str(SCRIPT), "tree of test"], cwd=repo, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"box-tree-clone exited {p.returncode}: {p.stderr}")
    CLONES.append(Path(p.stdout.strip()))
    return CLONES[-1]


def main():
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        for name, text in {"kept.txt": "old\n", "gone.txt": "x\n", ".gitignore": "/ignored.txt\n"}.items():
            (repo / name).write_text(text)
        git(repo, "add", "-A")
        git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "first")
        head = git(repo, "rev-parse", "HEAD").strip()
        (repo / "kept.txt").write_text("new\n")
        (repo / "gone.txt").unlink()
        (repo / "untracked.txt").write_text("u\n")
        (repo / "ignored.txt").write_text("i\n")
        status_before = git(repo, "status", "--porcelain")
        clone = clone_of(repo)
        check((clone / "kept.txt").read_text() == "new\n", "the clone has the modified file as modified")
        check(not (clone / "gone.txt").exists(), "the clone lacks the deleted file")
        check((clone / "untracked.txt").exists(), "the clone has the untracked file")
        check(not (clone / "ignored.txt").exists(), "the clone lacks the ignored file")
        check(git(clone, "log", "-1", "--format=%s").strip() == "tree of test", "the commit carries the message")
        check(git(clone, "rev-parse", "HEAD~1").strip() == head, "the commit's parent is the checkout's HEAD")
        check(git(repo, "rev-parse", "HEAD").strip() == head, "the checkout's HEAD is unchanged")
        check(git(repo, "status", "--porcelain") == status_before, "the checkout's index and files are unchanged")
        plain = Path(tmp) / "plain"
        plain.mkdir()
        (plain / "a.txt").write_text("a\n")
        check((clone_of(plain) / "a.txt").read_text() == "a\n", "a folder without .git gives a clone of its files")
    for d in CLONES:
        shutil.rmtree(d, ignore_errors=True)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("box-tree-clone: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
