"""The app is a face over the library's LiveSession: the same recorded session (speech, pauses, a long
unbroken stretch, room noise, a click, silence) gives identical commits from both, and the app's
`--events jsonl` is one documented JSON object per event."""

import json
import subprocess

import numpy as np
import pytest
from dictation_helpers import MAX_NEW_TOKENS, RATE, ROOT, app_command, app_env, espeak, noise, silence, write_wav

import mlx_qwen3asr as mq
from mlx_qwen3asr.streaming.events import FIELDS

MAX_UTTERANCE = 6.0
LONG_STRETCH = (
    "Please add milk, eggs and bread to the shopping list.",
    "The meeting moved to Thursday at three in the afternoon.",
)


@pytest.fixture(scope="module")
def recorded_session(tmp_path_factory):
    """(wav path, where each spoken part lies in seconds) over -55 dBFS room tone throughout."""
    folder = tmp_path_factory.mktemp("session")
    say = lambda text, name: espeak(text, folder, name).astype(np.float32) / 32768  # noqa: E731
    click = silence(0.4)
    click[3200:3360] = 0.5
    parts = [
        silence(1.0),
        say("Hello there, this is the first sentence.", "a"),
        silence(1.2),
        np.concatenate([say(t, f"long{i}") for i, t in enumerate(LONG_STRETCH)]),
        silence(1.0),
        silence(4.0),
        click,
        silence(2.0),
        say("And that is all.", "b"),
        silence(1.5),
    ]
    audio = np.concatenate(parts)
    audio = audio + noise(len(audio) / RATE, -55.0)
    bounds = np.cumsum([0] + [len(p) for p in parts]) / RATE
    spoken = [(bounds[i], bounds[i + 1]) for i in (1, 3, 8)]
    path = write_wav(folder / "session.wav", np.round(np.clip(audio, -1, 1) * 32767))
    return path, spoken


def app_events(checkpoint, wav, *flags) -> list[dict]:
    run = subprocess.run(
        app_command(
            checkpoint,
            "--input",
            str(wav),
            "--fast",
            "--events",
            "jsonl",
            "--max-utterance",
            str(MAX_UTTERANCE),
            *flags,
        ),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=180,
    )
    assert run.returncode == 0, f"exit {run.returncode}; stderr:\n{run.stderr}"
    return [json.loads(line) for line in run.stdout.splitlines()]


def library_events(model, wav) -> list[dict]:
    live = mq.LiveSession(
        model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), max_utterance=MAX_UTTERANCE, partials="off",
        vad=mq.load_vad(),  # the app's default end-pointer
    )  # fmt: skip
    audio, events = mq.load_audio(wav), []
    for start in range(0, len(audio), 4000):  # blocked differently from the app's 30 ms on purpose
        events += live.feed(audio[start : start + 4000])
    return [e.to_dict() for e in events + live.finish()]


def commits(events: list[dict]) -> list[tuple]:
    return [(e["text"], e["start"], e["end"], e["reason"]) for e in events if e["type"] == "commit"]


def test_the_app_commits_exactly_what_the_library_session_commits(
    listening_checkpoint, listening_model, recorded_session
):
    wav, spoken = recorded_session
    from_app = commits(app_events(listening_checkpoint, wav))
    from_library = commits(library_events(listening_model, wav))
    assert from_app == from_library, f"app:\n{from_app}\nlibrary:\n{from_library}"
    reasons = [reason for *_, reason in from_app]
    assert reasons.count("cut") >= 1 and reasons.count("pause") >= 3, (
        f"the long stretch is cut at most {MAX_UTTERANCE} s in, the rest end at pauses: {from_app}"
    )
    for text, start, end, _ in from_app:
        assert any(a - 0.6 <= start and end <= b + 0.4 for a, b in spoken), (
            f"{text!r} ({start}-{end} s) must lie in speech, never in the room tone or the click: {spoken}"
        )


def test_jsonl_events_follow_the_documented_schema_in_order(listening_checkpoint, tmp_path):
    sentence = espeak("Hello there, this is the first sentence.", tmp_path, "s").astype(np.float32) / 32768
    audio = np.concatenate([silence(0.5), sentence, silence(1.0)])
    wav = write_wav(tmp_path / "short.wav", np.round((audio + noise(len(audio) / RATE, -55.0)) * 32767))
    run = subprocess.run(
        app_command(
            listening_checkpoint,
            "--input",
            str(wav),
            "--events",
            "jsonl",
            "--partials",
            "offline",
            "--language",
            "English",
        ),
        capture_output=True,
        text=True,
        env=app_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, f"exit {run.returncode}; stderr:\n{run.stderr}"
    events = [json.loads(line) for line in run.stdout.splitlines()]  # real-time pace: partials come
    for event in events:
        assert set(event) == {"type", "time", *FIELDS[event["type"]]}, f"fields of {event}"
    kinds = [e["type"] for e in events]
    assert {"speech", "partial", "commit", "silence", "language"} <= set(kinds), kinds
    assert kinds.index("speech") < kinds.index("partial") < kinds.index("commit"), kinds
    times = [e["time"] for e in events]
    assert times == sorted(times), "events come in the order of the audio"
    commit = next(e for e in events if e["type"] == "commit")
    assert commit["language"] == "English" and commit["reason"] == "pause" and commit["latency"] > 0, commit
    assert [e["language"] for e in events if e["type"] == "language"] == ["English"], "said once"
