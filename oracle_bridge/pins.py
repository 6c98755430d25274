"""Refuses to run the oracle bridge against anything but the pinned upstream packages.

Contract: `require_pinned()` reads oracle_bridge/requirements.txt (lines `name==version`; blank lines and
`#` comments ignored) and compares each pin with the installed distribution's version (importlib.metadata).
A local version label is ignored on the installed side, as PEP 440's `==` does (`2.11.0+cu130` satisfies
`torch==2.11.0`). On any missing package or differing version it prints one line per offender, naming the
package, the pinned and the installed version, and exits with status 2. Call it before importing torch or
diffusers, so a wrong install never produces goldens.
"""
import importlib.metadata
import pathlib
import sys

REQUIREMENTS = pathlib.Path(__file__).resolve().parent / "requirements.txt"


def read_pins(path=REQUIREMENTS):
    """Returns {package: version} from a requirements file of exact `name==version` pins."""
    pins = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip():
            raise ValueError(f"{path}:{number}: expected an exact pin 'name==version', got {raw!r}")
        pins[name.strip()] = version.strip()
    return pins


def installed_version(package):
    """The installed version without its local label, or None when the package is not installed."""
    try:
        return importlib.metadata.version(package).split("+", 1)[0]
    except importlib.metadata.PackageNotFoundError:
        return None


def pin_violations(pins):
    """One message per package whose installed version differs from its pin."""
    problems = []
    for package, pinned in pins.items():
        installed = installed_version(package)
        if installed != pinned:
            shown = installed if installed is not None else "not installed"
            problems.append(f"{package}: pinned {pinned}, installed {shown}")
    return problems


def require_pinned():
    problems = pin_violations(read_pins())
    if problems:
        for problem in problems:
            print(f"oracle_bridge: version pin violated: {problem}", file=sys.stderr)
        print(f"oracle_bridge: refusing to run; install the pins of {REQUIREMENTS} "
              "(scripts/install-deps creates .venv from them)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    require_pinned()
    print("oracle_bridge: every pin of requirements.txt is installed")
