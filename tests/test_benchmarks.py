"""Every benchmark script runs to the end at toy size (`--quick`), so that a refactor which breaks one fails
`make test` instead of waiting for the next `make bench`. The numbers a toy run prints mean nothing; `make bench`
measures at full size."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("[!_]*.py"))


def test_every_script_is_found():
    assert len(SCRIPTS) >= 8, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_runs_at_toy_size(script):
    res = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, f"{script.name} --quick exited {res.returncode}:\n{res.stdout[-2000:]}\n{res.stderr[-4000:]}"
    assert res.stdout.strip(), f"{script.name} --quick printed nothing"
