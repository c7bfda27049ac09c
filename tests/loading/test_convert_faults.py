"""Converter faults a user meets: a full disk, a conversion killed earlier, permissions, slow recipes."""

import os
import resource
import signal
import stat
import subprocess
import sys
import time

import mlx.core as mx

from mlx_qwen3asr.cli.convert import main
from mlx_qwen3asr.loading.convert import Recipe, convert
from mlx_qwen3asr.loading.convert.fidelity import check_fidelity


def _limit_file_size_to_one_megabyte() -> None:
    """A disk that fills after 1 MB, for this process only: writes past it fail with EFBIG."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))


def test_a_full_disk_during_conversion_is_one_line_naming_the_file_and_nothing_is_left(tiny_checkpoint, tmp_path):
    argv = [
        sys.executable,
        "-m",
        "mlx_qwen3asr.cli.convert",
        "--model",
        str(tiny_checkpoint),
        "-o",
        str(tmp_path / "out"),
        "--fidelity-tokens",
        "0",
    ]
    run = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size_to_one_megabyte,
        env={**os.environ, "COLUMNS": "400"},
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr and "Unable to write" in run.stderr, run.stderr
    error = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "disk full?" in error[0] and "Errno" not in error[0], error
    assert str(tmp_path) in error[0] and ".safetensors" in error[0], f"the file is named: {error}"
    assert list(tmp_path.iterdir()) == [], "the staging folder is removed"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_staging_folders_of_killed_conversions_are_removed_but_not_those_of_running_ones(tiny_checkpoint, tmp_path):
    killed = tmp_path / f".out.partial-{_dead_pid()}-0a1b2c3d"
    running = tmp_path / f".out.partial-{os.getpid()}-0a1b2c3d"
    old_style = tmp_path / ".out.partial-k2x9_q1z"  # tempfile.mkdtemp's name, before process ids
    ancient = tmp_path / f".out.partial-{os.getpid()}-99999999"
    other = tmp_path / ".other.partial-1-0a1b2c3d"  # another output's: not ours to judge
    for folder in (killed, running, old_style, ancient, other):
        folder.mkdir()
        (folder / "shard-00000.safetensors").write_bytes(b"half")
    long_ago = time.time() - 2 * 24 * 3600  # no conversion runs for two days
    os.utime(ancient, (long_ago, long_ago))
    young_old_style = tmp_path / ".out.partial-youngone"
    young_old_style.mkdir()
    os.utime(old_style, (long_ago, long_ago))
    convert(tiny_checkpoint, tmp_path / "out", Recipe(8, 8))
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["out", running.name, young_old_style.name, other.name]), left


def test_a_converted_folder_is_readable_like_any_other_output(tiny_checkpoint, tmp_path):
    umask = os.umask(0o022)
    try:
        result = convert(tiny_checkpoint, tmp_path / "out", Recipe(8, 8))
    finally:
        os.umask(umask)
    assert stat.S_IMODE(result.folder.stat().st_mode) == 0o755, oct(result.folder.stat().st_mode)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in result.folder.iterdir()}
    assert set(modes.values()) == {0o644}, modes


def test_the_converter_says_quantized_models_are_slow_on_the_cpu_backend(tiny_checkpoint, tmp_path, capsys):
    on_cpu = mx.default_device() == mx.cpu
    assert main(["--model", str(tiny_checkpoint), "-o", str(tmp_path / "q"), "--fidelity-tokens", "0"]) == 0
    said = capsys.readouterr().err
    assert ("about 10x slower than float32 on MLX's CPU backend" in said) == on_cpu, said
    assert (
        main(
            [
                "--model",
                str(tiny_checkpoint),
                "-o",
                str(tmp_path / "f"),
                "--bits",
                "16",
                "--encoder-bits",
                "16",
                "--fidelity-tokens",
                "0",
            ]
        )
        == 0
    )
    assert "slower" not in capsys.readouterr().err, "a float conversion runs at full speed"


def test_the_fidelity_check_reports_its_progress_in_tokens(tiny_checkpoint, tmp_path):
    folder = convert(tiny_checkpoint, tmp_path / "out", Recipe(8, 8)).folder
    calls: list[tuple[str, int, int]] = []
    fidelity = check_fidelity(tiny_checkpoint, folder, n_tokens=6, progress=lambda *call: calls.append(call))
    n = len(fidelity.reference_tokens)
    source = [c for c in calls if c[0] == "source"]
    assert source == [("source", i, 6) for i in range(1, len(source) + 1)] and len(source) >= n, calls
    assert calls[-1] == ("converted", n, n), calls
