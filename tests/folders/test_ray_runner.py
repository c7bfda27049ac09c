"""transcribe_files on a local two-node Ray cluster (ray.cluster_utils.Cluster, one CPU a node) with the
listening model: every input once, speakers included, each text the one `transcribe` gives the file alone, a corrupt
file recorded, an actor killed mid-run, a rerun that skips everything. One ray.init for the module."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.options import OptionError
from mlx_qwen3asr.testing.signals import burst, write_wav

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'mlx-qwen3asr[ray]'")
from ray.cluster_utils import Cluster  # noqa: E402

AUDIO = Path(__file__).parents[1] / "fixtures" / "audio"
TOKENS = 6
FILES = 8
WORKERS = mq.RayRunner(workers=2, cpus=1)  # one actor a node


@pytest.fixture(scope="module")
def cluster():
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    nodes.add_node(num_cpus=1)
    ray.init(address=nodes.address, log_to_driver=False, logging_level="ERROR")
    yield nodes
    ray.shutdown()
    nodes.shutdown()


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster") / "archive"
    folder.mkdir()
    for i in range(FILES):
        write_wav(folder / f"clip{i}.wav", burst(1.0 + 0.25 * i, seed=10 + i))
    (folder / "corrupt.wav").write_bytes(b"RIFF\x24\x00\x00\x00WAVEjunk-without-a-fmt-chunk")
    return folder


@pytest.fixture(scope="module")
def expected(archive, listening_model):
    return {
        f"clip{i}": mq.transcribe(archive / f"clip{i}.wav", listening_model, max_new_tokens=TOKENS).text
        for i in range(FILES)
    }


def _run(archive, checkpoint, out, then=lambda outcome: None):
    """The summary, and the inputs in the order they were reported; `then(outcome)` after each."""
    seen = []

    def report(outcome):
        seen.append(outcome.source.stem)
        then(outcome)

    summary = mq.transcribe_files(
        [archive],
        mq.FolderSpec(checkpoint, mq.DecodeOptions(max_new_tokens=TOKENS), dtype="float32"),
        out,
        formats=["json"],
        runner=WORKERS,
        on_file=report,
    )
    return summary, seen


def _texts(out):
    return {p.stem: json.loads(p.read_text())["text"] for p in out.glob("*.json")}


def test_every_file_is_done_once_with_the_text_one_machine_gives(
    cluster, archive, expected, listening_checkpoint, tmp_path
):
    summary, seen = _run(archive, listening_checkpoint, tmp_path)
    assert sorted(seen) == sorted([*expected, "corrupt"]), "each input reported exactly once"
    assert _texts(tmp_path) == expected
    failures = [json.loads(line) for line in (tmp_path / "failures.jsonl").read_text().splitlines()]
    assert [f["file"] for f in failures] == [str(archive / "corrupt.wav")]
    assert failures[0]["error"].startswith(f"Cannot read {archive / 'corrupt.wav'}: "), "named as the driver knows it"
    assert (summary.done, summary.skipped, summary.failed, summary.interrupted) == (FILES, 0, 1, False)
    rerun, seen = _run(archive, listening_checkpoint, tmp_path)
    assert (rerun.done, rerun.skipped, rerun.failed) == (0, FILES, 1), "only the corrupt file is tried again"
    assert seen == ["corrupt"]


def test_a_worker_killed_mid_run_loses_nothing(cluster, archive, expected, listening_checkpoint, tmp_path):
    killed = []

    def kill_one_worker(outcome):
        if not killed:  # the first file is written, the other groups are queued on both workers
            name = sorted(ray.util.list_named_actors())[0]
            ray.kill(ray.get_actor(name), no_restart=False)  # Ray restarts it, as after a crash
            killed.append(name)

    summary, seen = _run(archive, listening_checkpoint, tmp_path, then=kill_one_worker)
    assert killed, "a worker was killed"
    assert sorted(seen) == sorted([*expected, "corrupt"]), "each input reported exactly once"
    assert _texts(tmp_path) == expected
    assert (summary.done, summary.failed) == (FILES, 1)


def test_a_model_a_node_cannot_read_is_one_line_naming_the_node(cluster, archive, tmp_path):
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    with pytest.raises(ValueError) as error:
        mq.transcribe_files([archive], mq.FolderSpec(empty), tmp_path / "out", runner=WORKERS)
    message = str(error.value)
    assert message.startswith("on node ") and f"No config.json in {empty}" in message, message
    assert "same path on every node" in message and "\n" not in message
    assert not list((tmp_path / "out").glob("*.txt")), "nothing written"
    assert ray.util.list_named_actors() == [], "the workers are gone"


def test_options_the_model_cannot_take_are_refused_by_the_workers_before_any_file(
    cluster, archive, listening_checkpoint, tmp_path
):
    options = mq.DecodeOptions(context="<|audio_pad|>")
    with pytest.raises(OptionError) as error:
        mq.transcribe_files([archive], mq.FolderSpec(listening_checkpoint, options), tmp_path / "out", runner=WORKERS)
    message = str(error.value)
    assert message == "context and hotwords must not contain '<|audio_pad|>': remove it", "the options, not a node"
    assert error.value.option == "context" and not list((tmp_path / "out").glob("*.txt")), "nothing written"
    assert ray.util.list_named_actors() == [], "the workers are gone"


@pytest.mark.parametrize(
    "asked, expected",
    [
        (mq.RayRunner(workers=3, cpus=1), "3 Ray worker(s) with {'CPU': 1.0} each do not fit"),
        (
            mq.RayRunner(resources={"apple_gpu": 1}),
            "a Ray worker(s) with {'CPU': 1.0, 'apple_gpu': 1.0} each do not fit",
        ),
    ],
)
def test_workers_the_cluster_cannot_hold_are_refused_in_one_line(
    cluster, archive, tiny_checkpoint, tmp_path, asked, expected
):
    with pytest.raises(RuntimeError) as error:
        mq.transcribe_files([archive], mq.FolderSpec(tiny_checkpoint), tmp_path, runner=asked)
    message = str(error.value)
    assert message.startswith(expected) and "CPU=1; CPU=1" in message and "\n" not in message, message


def test_the_command_line_joins_the_cluster_of_this_machine(cluster, archive, expected, listening_checkpoint, tmp_path):
    """`--ray` without an address: the cluster RAY_ADDRESS names (as `ray start` leaves for this machine)."""
    command = [sys.executable, "-m", "mlx_qwen3asr", archive, "-o", tmp_path, "-f", "json", "--ray", "--workers", "2"]
    command += ["--model", listening_checkpoint, "--max-new-tokens", TOKENS, "--dtype", "float32"]
    run = subprocess.run(
        list(map(str, command)),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "RAY_ADDRESS": cluster.address},
    )
    assert run.returncode == 1, run.stderr  # the corrupt file
    assert run.stderr.splitlines()[-1].startswith(f"{FILES} done, 0 skipped, 1 failed"), run.stderr
    assert _texts(tmp_path) == expected


def test_speakers_come_back_from_the_workers_as_one_process_writes_them(
    cluster, listening_checkpoint, diarizer_dir, tmp_path
):
    """The diarizer travels in the spec by name; each worker loads it and labels its files."""
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(AUDIO / "short.wav", clips / "short.wav")
    spec = mq.FolderSpec(
        listening_checkpoint, mq.DecodeOptions(max_new_tokens=TOKENS), dtype="float32", diarizer=diarizer_dir
    )
    here = mq.transcribe_files([clips], spec, tmp_path / "here", formats=["json"])
    there = mq.transcribe_files([clips], spec, tmp_path / "ray", formats=["json"], runner=WORKERS)
    assert (here.done, there.done, there.failed) == (1, 1, 0), there
    written = {p.name: p.read_text() for p in (tmp_path / "ray").glob("*.json")}
    assert written == {p.name: p.read_text() for p in (tmp_path / "here").glob("*.json")}
    speakers = [s.get("speaker") for text in written.values() for s in json.loads(text)["segments"]]
    assert speakers and all(speakers), "every segment labelled"
