"""transcribe_files in one process, and the CLI's -o runs on it: inputs mirrored to outputs, each text
the one `transcribe` gives the file alone, failures recorded, reruns resumed, Ctrl-C clean."""

import base64
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from terminal import stderr_on_a_terminal

import mlx_qwen3asr as mq
from mlx_qwen3asr.folders.plan import InputError, plan_files
from mlx_qwen3asr.testing.signals import burst, write_wav

TOKENS = 6
CORRUPT = b"RIFF\x24\x00\x00\x00WAVEjunk-without-a-fmt-chunk"


def _touch(root, *names):
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"")


def _cli(*args, **kwargs) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "mlx_qwen3asr", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture
def archive(tmp_path):
    """Five speech-like clips of different lengths (two in a subfolder) and a corrupt WAV."""
    folder = tmp_path / "archive"
    names = ["a.wav", "b.wav", "talks/c.wav", "talks/d.wav", "e.wav"]
    for i, name in enumerate(names):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        write_wav(folder / name, burst(1.0 + 0.5 * i, seed=i))
    (folder / "broken.wav").write_bytes(CORRUPT)
    return folder, names


def test_outputs_mirror_the_folder_the_manifest_and_the_loose_files(tmp_path):
    _touch(tmp_path, "A/x.wav", "A/sub/y.MP3", "A/.hidden.wav", "A/._x.wav", "A/notes.txt", "A/.git/z.wav")
    _touch(tmp_path, "lists/B/one.wav", "lists/C/two.flac", "D/p.wav", "E/q.wav")
    (tmp_path / "lists/all.txt").write_text("# two files\nB/one.wav\n\nC/two.flac\n")
    inputs = [tmp_path / "A", f"@{tmp_path / 'lists/all.txt'}", tmp_path / "D/p.wav", tmp_path / "E/q.wav"]
    jobs = plan_files(inputs, tmp_path / "out", ["json", "srt"])
    got = {str(j.source.relative_to(tmp_path)): [str(o.relative_to(tmp_path / "out")) for o in j.outputs] for j in jobs}
    assert got == {
        "A/x.wav": ["x.json", "x.srt"],  # relative to the folder given
        "A/sub/y.MP3": ["sub/y.json", "sub/y.srt"],
        "lists/B/one.wav": ["B/one.json", "B/one.srt"],  # to the common parent of the manifest's entries
        "lists/C/two.flac": ["C/two.json", "C/two.srt"],
        "D/p.wav": ["D/p.json", "D/p.srt"],  # to the common parent of the loose files
        "E/q.wav": ["E/q.json", "E/q.srt"],
    }, "hidden files and folders and non-audio files are left out of a folder search"
    again = plan_files([tmp_path / "A", tmp_path / "A/x.wav"], tmp_path / "out", ["txt"])
    assert [j.source.name for j in again] == ["x.wav", "y.MP3"], "a file named twice is transcribed once"


def test_two_inputs_that_would_share_an_output_are_refused_up_front_in_one_line(tmp_path):
    _touch(tmp_path, "A/talk.wav", "A/talk.mp3", "B/x.wav", "C/x.wav")
    with pytest.raises(InputError) as error:
        plan_files([tmp_path / "A"], tmp_path / "out", ["txt"])
    message = str(error.value)
    assert (
        f"{tmp_path}/A/talk.mp3 and {tmp_path}/A/talk.wav would both be written to {tmp_path}/out/talk.txt" in message
    )
    assert "\n" not in message
    with pytest.raises(InputError, match="would both be written to .*/out/x.txt"):
        plan_files([tmp_path / "B", tmp_path / "C"], tmp_path / "out", ["txt"])
    with pytest.raises(InputError, match="no such file or folder: .*nope.wav"):
        plan_files([tmp_path / "nope.wav"], tmp_path / "out", ["txt"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no audio files in"):
        plan_files([tmp_path / "empty"], tmp_path / "out", ["txt"])


def test_each_file_gets_the_text_transcribe_gives_it_alone_and_a_corrupt_one_is_recorded(
    tmp_path, archive, listening_model
):
    folder, names = archive
    out = tmp_path / "out"
    seen = []
    summary = mq.transcribe_files(
        [folder],
        mq.FolderSpec(listening_model, mq.DecodeOptions(max_new_tokens=TOKENS), batch_size=3),
        out,
        formats=["json", "txt"],
        on_file=seen.append,
    )
    for name in names:
        expected = mq.transcribe(folder / name, listening_model, max_new_tokens=TOKENS)
        stem = out / name.removesuffix(".wav")
        assert json.loads(stem.with_suffix(".json").read_text())["text"] == expected.text, name
        assert stem.with_suffix(".txt").read_text() == expected.text.strip() + "\n", name
    assert len({json.loads((out / n.replace(".wav", ".json")).read_text())["text"] for n in names}) > 1, (
        "the listening model must give different clips different texts, or the check above proves little"
    )
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert failures == [{"file": str(folder / "broken.wav"), "error": failures[0]["error"]}]
    assert "no fmt chunk" in failures[0]["error"] and "\n" not in failures[0]["error"]
    assert (summary.done, summary.skipped, summary.failed, summary.interrupted) == (5, 0, 1, False)
    assert summary.audio_seconds == pytest.approx(sum(1.0 + 0.5 * i for i in range(5)), abs=0.01)
    assert sorted(o.source.name for o in seen) == sorted([*(n.split("/")[-1] for n in names), "broken.wav"])
    assert not [p for p in out.rglob("*") if p.name.startswith(".")], "no temporary file is left behind"
    assert "5 done, 0 skipped, 1 failed" in str(summary) and "audio-seconds per second" in str(summary)


def test_a_rerun_skips_what_is_done_and_redoes_inputs_missing_an_output(tmp_path, archive, listening_model):
    folder, names = archive
    out = tmp_path / "out"
    spec = mq.FolderSpec(listening_model, mq.DecodeOptions(max_new_tokens=TOKENS))
    mq.transcribe_files([folder], spec, out, formats=["txt", "srt"])
    kept = (out / "a.txt").stat().st_mtime_ns
    (out / "talks/c.srt").unlink()  # as if stopped between c's two outputs
    again = mq.transcribe_files([folder], spec, out, formats=["txt", "srt"])
    assert (again.done, again.skipped, again.failed) == (1, 4, 1), "c redone, the corrupt file tried again"
    assert (out / "talks/c.srt").exists() and (out / "a.txt").stat().st_mtime_ns == kept, "done outputs untouched"


def test_cli_transcribes_a_folder_and_a_manifest_into_o_with_a_summary(tmp_path, archive, listening_checkpoint):
    folder, names = archive
    (tmp_path / "list.txt").write_text("archive/a.wav\narchive/talks/c.wav\narchive/missing.wav\n")
    run = _cli(
        f"@{tmp_path / 'list.txt'}",
        "-o",
        tmp_path / "out",
        "-f",
        "json,txt",
        "--model",
        listening_checkpoint,
        "--max-new-tokens",
        TOKENS,
    )
    assert run.returncode == 1, "a failed input makes the exit status 1"
    assert sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.*")) == [
        "a.json",
        "a.txt",
        "failures.jsonl",
        "talks/c.json",
        "talks/c.txt",
    ]
    assert run.stderr.splitlines()[-1].startswith("2 done, 0 skipped, 1 failed ("), run.stderr
    assert f"error: {folder / 'missing.wav'}: Audio file not found" in run.stderr
    whole = _cli(folder, "-o", tmp_path / "whole", "--model", listening_checkpoint, "--max-new-tokens", TOKENS)
    assert "5 done, 0 skipped, 1 failed" in whole.stderr.splitlines()[-1], whole.stderr
    assert (tmp_path / "whole/talks/d.txt").exists()


def test_cli_refuses_bad_folder_runs_in_one_line(tmp_path, archive, tiny_checkpoint):
    folder, _ = archive
    for args, expected in [
        ((folder,), "is a folder, not an audio file (give -o DIR"),
        ((folder / "a.wav", "--ray"), "--ray needs -o DIR"),
        ((f"@{folder / 'a.wav'}",), "a manifest needs -o DIR"),
        ((folder / "a.wav", "-f", "json,srt"), "several formats need -o DIR"),
        ((folder / "a.wav", "-o", tmp_path, "--workers", "2"), "go with --ray"),
        ((folder, folder / "nope", "-o", tmp_path / "o"), "no such file or folder"),
    ]:
        run = _cli(*args, "--model", tiny_checkpoint)
        assert run.returncode == 2 and expected in run.stderr, (args, run.stderr)
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    bad = _cli(folder / "a.wav", "-f", "docx", "--model", tiny_checkpoint)
    assert bad.returncode == 2 and "choose from txt, json, srt, vtt" in bad.stderr, bad.stderr


def test_ctrl_c_stops_cleanly_and_the_same_command_continues(tmp_path, listening_checkpoint):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(24):
        write_wav(folder / f"{i:02d}.wav", burst(2.0, seed=i))
    command = ["--model", listening_checkpoint, "--max-new-tokens", 24, "--batch-size", 1, "-o", tmp_path / "out"]
    process = subprocess.Popen(
        [sys.executable, "-m", "mlx_qwen3asr", folder, *map(str, command)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not list((tmp_path / "out").glob("*.txt")) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stderr = process.communicate(timeout=60)[1]
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted: run the same command again to continue" in stderr, stderr
    first = len(list((tmp_path / "out").glob("*.txt")))
    assert 1 <= first < 24, "stopped part-way"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")], "no half-written file"
    rerun = _cli(folder, *command)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{24 - first} done, {first} skipped, 0 failed" in rerun.stderr.splitlines()[-1], rerun.stderr


def test_without_ray_installed_ray_runs_fail_in_one_line_naming_the_extra(tmp_path, archive, tiny_checkpoint):
    folder, _ = archive
    code = (
        "import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
        "from mlx_qwen3asr.cli.main import main\n"
        f"sys.exit(main([{str(folder / 'a.wav')!r}, '-o', {str(tmp_path / 'o')!r}, '--model', {str(tiny_checkpoint)!r}, '--ray']))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert run.stderr == "error: a Ray runner needs Ray, which is not installed: pip install 'mlx-qwen3asr[ray]'\n"
    assert os.listdir(tmp_path / "o") == [], "nothing written"


def test_a_ray_runner_refuses_a_loaded_model_before_any_work(tmp_path, archive, tiny_model):
    """Workers load the models themselves: a model loaded here cannot travel to them (nor Ray start)."""
    folder, _ = archive
    with pytest.raises(ValueError, match="name the models") as error:
        mq.transcribe_files([folder], mq.FolderSpec(tiny_model), tmp_path / "out", runner=mq.RayRunner())
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists(), "nothing planned or written"


def test_json_outputs_carry_the_aligners_words(tmp_path, archive, tiny_model, tiny_aligner):
    folder, _ = archive
    options = mq.DecodeOptions(max_new_tokens=8)
    mq.transcribe_files(
        [folder / "a.wav"], mq.FolderSpec(tiny_model, options, aligner=tiny_aligner), tmp_path, formats=["json"]
    )
    expected = mq.transcribe(folder / "a.wav", tiny_model, options=options, aligner=tiny_aligner)
    words = [[w.text, round(w.start, 3), round(w.end, 3)] for w in expected.segments[0].words]
    assert words, "the tiny model's 8 tokens give some words"
    written = json.loads((tmp_path / "a.json").read_text())["segments"][0]["words"]
    assert [[w["text"], w["start"], w["end"]] for w in written] == words


def test_a_terminal_shows_a_progress_bar_over_files(tmp_path, archive, tiny_checkpoint):
    folder, _ = archive
    command = [sys.executable, "-m", "mlx_qwen3asr", folder, "-o", tmp_path, "--model", tiny_checkpoint]
    run, screen = stderr_on_a_terminal([*command, "--max-new-tokens", 2])
    assert run.returncode == 1, "the corrupt file"
    assert b"6/6 files" in screen and b"5 done, 0 skipped, 1 failed" in screen, screen[-500:]


def test_a_non_utf8_name_and_a_fifo_fail_alone_recorded_exactly_and_the_run_finishes(
    tmp_path, archive, tiny_checkpoint
):
    folder, names = archive
    odd = os.fsencode(folder) + b"/caf\xe9.wav"  # a Latin-1 name, from another system
    with open(odd, "wb") as f:
        f.write(CORRUPT)
    os.mkfifo(folder / "pipe.wav")  # nobody ever writes to it: opening it would wait forever
    command = [sys.executable, "-m", "mlx_qwen3asr", str(folder), "-o", str(tmp_path / "out"), "--model",
               str(tiny_checkpoint), "--max-new-tokens", str(TOKENS)]  # fmt: skip
    run = subprocess.run(command, capture_output=True, timeout=120)
    assert run.returncode == 1, run.stderr.decode(errors="replace")
    failures = [json.loads(line) for line in (tmp_path / "out" / "failures.jsonl").read_text().splitlines()]
    by_name = {os.path.basename(f["file"]): f for f in failures}
    assert set(by_name) == {"broken.wav", "caf\\xe9.wav", "pipe.wav"}, failures
    assert base64.b64decode(by_name["caf\\xe9.wav"]["file_base64"]) == odd, "the name is recorded exactly"
    assert "FIFO" in by_name["pipe.wav"]["error"], by_name["pipe.wav"]
    assert all((tmp_path / "out" / name.replace(".wav", ".txt")).exists() for name in names), "the rest is done"
