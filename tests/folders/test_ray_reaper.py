"""A local Ray cluster started by a folder run dies with the driver, even when the driver is killed -9."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from mlx_qwen3asr.folders.ray_reaper import descendants, process_table, reap
from mlx_qwen3asr.testing.signals import burst, write_wav

pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'mlx-qwen3asr[ray]'")

# The driver holds the run open after its first file (the cluster and its workers up), until killed.
DRIVER = """
import sys, time
import mlx_qwen3asr as mq
def hold(outcome):
    print("running", flush=True)
    time.sleep(600)
mq.transcribe_files([sys.argv[1]], mq.FolderSpec(sys.argv[2], mq.DecodeOptions(max_new_tokens=2)), sys.argv[3],
                    runner=mq.RayRunner(), on_file=hold)
"""


def test_a_local_cluster_does_not_outlive_a_driver_killed_minus_9(tmp_path, tiny_checkpoint):
    (tmp_path / "in").mkdir()
    for i in range(3):
        write_wav(tmp_path / "in" / f"{i}.wav", burst(1.0, seed=i))
    ray_root = tempfile.mkdtemp(prefix="r", dir="/tmp")  # its own clusters only; socket paths stay short
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RAY_TMPDIR": ray_root}
    command = [sys.executable, "-c", DRIVER, str(tmp_path / "in"), str(tiny_checkpoint), str(tmp_path / "out")]
    driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    started = {}
    try:
        assert driver.stdout.readline().strip() == "running", "the driver did not start its run"
        started = {pid: cmd for pid, cmd in descendants(driver.pid).items() if "ray_reaper" not in cmd}
        assert any("raylet" in cmd for cmd in started.values()), f"no local cluster was started: {started}"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        end = time.monotonic() + 20
        while (left := alive(started)) and time.monotonic() < end:
            time.sleep(0.5)
        assert not left, f"still running 20 s after the driver was killed: {sorted(set(left.values()))}"
    finally:
        driver.kill()
        reap(alive(started))  # what a failed run left
        shutil.rmtree(ray_root, ignore_errors=True)


def alive(processes: dict[int, str]) -> dict[int, str]:
    table = process_table()
    return {pid: cmd for pid, cmd in processes.items() if table.get(pid, (0, None))[1] == cmd}
