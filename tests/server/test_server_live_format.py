"""The live WebSocket takes audio as the client has it: at its own rate and channel count (the session
resamples and mixes, as LiveSession does for the library), and numbered, so that audio lost on the way
is reported as a gap where it was instead of being joined across the hole."""

import json

import numpy as np
import pytest
from server_helpers import MAX_NEW_TOKENS, RATE, ROOT, server_process
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.io import resample
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = ROOT / "tests" / "fixtures" / "audio"
MIC_RATE = 44100


@pytest.fixture(scope="module")
def server(listening_checkpoint):
    with server_process(listening_checkpoint) as base:
        yield base


@pytest.fixture(scope="module")
def stereo() -> np.ndarray:
    """Two clips between pauses over room tone at 44.1 kHz, as int16 [n, 2] (the right channel quieter)."""
    clips = [mq.load_audio(AUDIO / name) for name in ("short.wav", "exact.wav")]
    audio = np.concatenate([silence(1.0), clips[0], silence(1.2), clips[1], silence(1.5)])
    audio = resample(audio + noise(len(audio) / RATE, -55.0), RATE, MIC_RATE)
    return np.round(np.stack([audio, 0.5 * audio], axis=1) * 32767).astype(np.int16)


def session(server: str, query: str, frames: list[bytes]) -> list[dict]:
    with connect(f"{server.replace('http', 'ws')}/v1/audio/live?{query}", open_timeout=30) as ws:
        events = [json.loads(ws.recv(timeout=30))]
        for frame in frames:
            ws.send(frame)
        ws.send(json.dumps({"type": "finish"}))
        while events[-1]["type"] != "session.done":  # a bad frame's error does not end the session
            events.append(json.loads(ws.recv(timeout=120)))
    return events


def numbered(index: int, samples: np.ndarray) -> bytes:
    return index.to_bytes(8, "little") + samples.tobytes()


def commits(events: list[dict]) -> list[tuple]:
    return [(e["text"], e["start"], e["end"]) for e in events if e["type"] == "commit"]


def library(model, blocks: list, rate: int = MIC_RATE) -> list[dict]:
    """LiveSession's events for the blocks; a float in the list is a gap of that many seconds."""
    live = mq.LiveSession(model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), sample_rate=rate, channels_last=True)
    events = []
    for block in blocks:
        events += live.gap(block) if isinstance(block, float) else live.feed(block)
    return [e.to_dict() for e in events + live.finish()]


def test_frames_at_the_microphones_rate_and_channels_commit_what_the_library_commits(server, listening_model, stereo):
    step = MIC_RATE // 10
    events = session(
        server,
        f"sample_rate={MIC_RATE}&channels=2",
        [stereo[i : i + step].tobytes() for i in range(0, len(stereo), step)],
    )
    created, done = events[0], events[-1]
    assert (created["sample_rate"], created["channels"]) == (MIC_RATE, 2), created
    expected = commits(library(listening_model, [stereo[i : i + 4096] for i in range(0, len(stereo), 4096)]))
    assert len(expected) == 2, f"two utterances: {expected}"
    assert commits(events) == expected, f"socket:\n{commits(events)}\nlibrary:\n{expected}"
    assert done["audio_seconds"] == pytest.approx(len(stereo) / MIC_RATE, abs=1e-3), done


def test_a_hole_in_the_frame_numbers_is_a_gap_event_where_the_audio_was_lost(server, listening_model, stereo):
    step, lost = MIC_RATE // 10, range(20, 25)  # frames 2.0-2.5 s (inside the first clip) never arrive
    frames = [(i, stereo[i * step : (i + 1) * step]) for i in range(-(-len(stereo) // step))]
    sent = [numbered(i * step, samples) for i, samples in frames if i not in lost]
    events = session(server, f"sample_rate={MIC_RATE}&channels=2&numbered=true", sent)
    (gap,) = [e for e in events if e["type"] == "gap"]
    assert (gap["start"], gap["end"]) == pytest.approx((2.0, 2.5), abs=0.01), f"where and how long: {gap}"
    blocks = [samples if i not in lost else None for i, samples in frames]
    expected = library(listening_model, blocks[:20] + [len(lost) * step / MIC_RATE] + blocks[25:])
    assert commits(events) == commits(expected), "the library told of the same gap commits the same"
    assert [e["type"] for e in events if e["type"] in ("gap", "commit")] == ["commit", "gap", "commit", "commit"], (
        "the utterance the hole cut is committed before the gap, never joined across it"
    )


def test_a_frame_that_repeats_audio_is_refused_and_dropped(server, stereo):
    first, again = numbered(0, stereo[:4410]), numbered(2205, stereo[2205:6615])
    events = session(server, f"sample_rate={MIC_RATE}&channels=2&numbered=true", [first, again])
    (error,) = [e["error"] for e in events if e["type"] == "error"]
    assert error["param"] == "audio" and "repeats audio" in error["message"], error
    assert events[-1]["audio_seconds"] == pytest.approx(0.1, abs=1e-3), "only the first frame was heard"


@pytest.mark.parametrize(
    "query, param",
    [("sample_rate=0", "sample_rate"), ("sample_rate=44100.5", "sample_rate"), ("channels=65", "channels"),
     ("numbered=yes", "numbered"), ("engine=window&channels=2", "engine")],
)  # fmt: skip
def test_a_bad_audio_format_is_refused_with_its_name(server, query, param):
    with connect(f"{server.replace('http', 'ws')}/v1/audio/live?{query}", open_timeout=30) as ws:
        event = json.loads(ws.recv(timeout=30))
        assert (event["type"], event["error"]["param"]) == ("error", param), event
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd.code == 1008, "closed as a policy violation"
