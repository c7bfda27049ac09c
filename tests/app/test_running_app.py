"""The test helper that runs the app: a test that fails never leaves a process behind."""

import os
import sys
import time

from dictation_helpers import RunningApp, patient


def test_kill_all_ends_every_started_process_and_its_children():
    code = (
        "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
        " print('ready', flush=True); time.sleep(60)"
    )
    app = RunningApp([sys.executable, "-c", code])
    assert app.next_line(timeout=30) == "ready"
    group = os.getpgid(app.process.pid)
    RunningApp.kill_all()
    assert app.process.poll() is not None and RunningApp.running == []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _group_alive(group):
        time.sleep(0.05)
    assert not _group_alive(group), "the app's child processes are killed too"


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_waits_grow_with_the_load_but_stay_bounded():
    assert 10.0 <= patient(10.0) <= 40.0
