"""The live WebSocket end to end: `python -m mlx_qwen3asr.server` with the audio-sensitive tiny model and a
real WebSocket client. One live engine: the same recording gives the same commits from the app
(`--input --fast --events jsonl`), the library (LiveSession) and the WebSocket."""

import base64
import json
import subprocess
import sys
import time
from urllib.parse import urlencode

import numpy as np
import pytest
from server_helpers import MAX_NEW_TOKENS, RATE, ROOT, request, server_process, wav_bytes
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.streaming.events import FIELDS
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = ROOT / "tests" / "fixtures" / "audio"
MAX_UTTERANCE = 6.0  # the long passage is cut at least once


@pytest.fixture(scope="module")
def server(listening_checkpoint):
    with server_process(listening_checkpoint) as base:
        yield base


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """(16-bit WAV path, its int16 samples): three fixture clips between pauses over -55 dBFS room tone,
    the last 8 s long without a pause."""
    clips = [mq.load_audio(AUDIO / name) for name in ("short.wav", "exact.wav", "long.wav")]
    parts = [silence(1.0), clips[0], silence(1.2), clips[1], silence(1.5), clips[2][: 8 * RATE], silence(1.5)]
    audio = np.concatenate(parts)
    pcm = np.round(np.clip(audio + noise(len(audio) / RATE, -55.0), -1, 1) * 32767).astype(np.int16)
    path = tmp_path_factory.mktemp("live") / "session.wav"
    path.write_bytes(wav_bytes(pcm))
    return path, pcm


def live_events(server: str, frames: list[bytes], query: str = "", **connect_options) -> list[dict]:
    """Send frames, then finish; every message up to session.done."""
    with connect(f"{server.replace('http', 'ws')}/v1/audio/live{query}", open_timeout=30, **connect_options) as ws:
        events = [json.loads(ws.recv(timeout=30))]
        for frame in frames:
            ws.send(frame)
        ws.send(json.dumps({"type": "finish"}))
        while events[-1]["type"] != "session.done":
            events.append(json.loads(ws.recv(timeout=120)))
    return events


def frames_of(pcm: np.ndarray, size: int = 1600) -> list[bytes]:
    return [pcm[i : i + size].tobytes() for i in range(0, len(pcm), size)]


def commits(events: list[dict]) -> list[tuple]:
    return [(e["text"], e["start"], e["end"], e["reason"]) for e in events if e["type"] == "commit"]


def library_commits(model, wav) -> list[tuple]:
    live = mq.LiveSession(  # the app's and the server's default end-pointer: Silero VAD
        model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), max_utterance=MAX_UTTERANCE, vad=mq.load_vad()
    )
    audio, events = mq.load_audio(wav), []
    for start in range(0, len(audio), 4000):  # blocked unlike the app (30 ms) and the socket (100 ms)
        events += live.feed(audio[start : start + 4000])
    return commits([e.to_dict() for e in events + live.finish()])


def app_commits(checkpoint, wav) -> list[tuple]:
    command = [sys.executable, "-m", "mlx_qwen3asr_app", "--model", str(checkpoint), "--dtype", "float32", "--max-new-tokens",
               str(MAX_NEW_TOKENS), "--input", str(wav), "--fast", "--events", "jsonl", "--max-utterance",
               str(MAX_UTTERANCE)]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, f"exit {run.returncode}; stderr:\n{run.stderr}"
    return commits([json.loads(line) for line in run.stdout.splitlines()])


def test_the_app_the_library_and_the_websocket_commit_the_same(
    server, listening_checkpoint, listening_model, recording
):
    wav, pcm = recording
    events = live_events(server, frames_of(pcm), f"?max_utterance={MAX_UTTERANCE}")
    created, *stream, done = events
    assert (created["type"], created["engine"], created["sample_rate"]) == ("session.created", "live", 16000), created
    for event in stream:
        assert set(event) == {"type", "time", *FIELDS[event["type"]]}, f"not the app's JSON: {event}"
    from_socket, from_library = commits(stream), library_commits(listening_model, wav)
    from_app = app_commits(listening_checkpoint, wav)
    assert from_socket == from_library, f"socket:\n{from_socket}\nlibrary:\n{from_library}"
    assert from_app == from_library, f"app:\n{from_app}\nlibrary:\n{from_library}"
    reasons = [reason for *_, reason in from_socket]
    assert reasons.count("pause") >= 3 and reasons.count("cut") >= 1, f"three pauses and a cut: {from_socket}"
    assert done["text"] == "\n".join(text for text, *_ in from_socket), "session.done holds every commit"
    assert done["audio_seconds"] == pytest.approx(len(pcm) / RATE, abs=1e-3), done
    kinds = [e["type"] for e in stream]
    assert kinds.count("silence") == len(from_socket), f"each utterance closes: {kinds}"
    assert kinds.count("speech") == len(from_socket) - reasons.count("cut"), f"a cut's rest stays open: {kinds}"


def test_each_commit_is_the_offline_transcription_of_its_utterance(server, listening_model, recording):
    _, pcm = recording
    sent = pcm[: 9 * RATE]  # two utterances
    events = live_events(server, frames_of(sent, 480), "?pause=0.8&max_new_tokens=6")
    committed = [e for e in events if e["type"] == "commit"]
    assert len(committed) == 2, committed
    audio = sent.astype(np.float32) / 32768
    for commit in committed:
        utterance = audio[round(commit["start"] * RATE) : round(commit["end"] * RATE)]
        expected = mq.transcribe(utterance, listening_model, max_new_tokens=6).text
        assert commit["text"] == expected, f"{commit} != transcribe of its audio {expected!r}"


def test_a_prompt_costs_once_and_commits_what_the_library_commits_with_every_prompt_prefilled(
    server, listening_model, recording
):
    """The server's sessions start from its stored prompt heads (PrefixCache); the library here
    prefills every prompt whole: the same commits."""
    _, pcm = recording
    prompt = "Names: Qwen, MLX, Zurich. " * 20
    sent = pcm[: 9 * RATE]
    events = live_events(server, frames_of(sent), "?" + urlencode({"prompt": prompt, "max_new_tokens": 6}))
    options = mq.DecodeOptions(context=prompt, max_new_tokens=6)
    live = mq.LiveSession(listening_model, options, prefix_cache=PrefixCache.off(listening_model), vad=mq.load_vad())
    audio, expected = sent.astype(np.float32) / 32768, []
    for start in range(0, len(audio), 1600):
        expected += live.feed(audio[start : start + 1600])
    expected = commits([e.to_dict() for e in expected + live.finish()])
    assert commits(events) == expected and expected, f"socket:\n{commits(events)}\nlibrary:\n{expected}"
    health = json.loads(request(f"{server}/health")[2])
    assert health["prefix_cache"]["contexts"] >= 1, health


def test_hotwords_are_a_live_query_parameter(server, listening_model, recording):
    _, pcm = recording
    sent = pcm[: 5 * RATE]
    query = "?" + urlencode({"hotwords": "Qwen, Zurich", "max_new_tokens": 6})
    events = live_events(server, frames_of(sent), query)
    live = mq.LiveSession(listening_model, mq.DecodeOptions(max_new_tokens=6, hotwords=["Qwen", "Zurich"]))
    audio, expected = sent.astype(np.float32) / 32768, []
    for start in range(0, len(audio), 1600):
        expected += live.feed(audio[start : start + 1600])
    expected = commits([e.to_dict() for e in expected + live.finish()])
    assert commits(events) == expected and expected, f"socket:\n{commits(events)}\nlibrary:\n{expected}"


def test_float32_frames_work_and_a_bad_frame_is_reported_and_dropped(server, listening_model, recording):
    _, pcm = recording
    samples = pcm[: 5 * RATE].astype(np.float32) / 32768
    frames = [b"\x00\x00\x80", samples.tobytes()]  # 3 bytes: not whole float32 samples, dropped
    events = live_events(server, frames, "?encoding=float32")
    errors = [e["error"] for e in events if e["type"] == "error"]
    assert [e["param"] for e in errors] == ["audio"], f"the bad frame is reported once: {errors}"
    live = mq.LiveSession(listening_model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), vad=mq.load_vad())
    expected = commits([e.to_dict() for e in live.feed(samples) + live.finish()])
    assert commits(events) == expected and expected, "the session went on after the bad frame"


def test_the_window_engine_is_an_option_with_the_same_events(server, listening_model, recording):
    _, pcm = recording
    stream = mq.StreamingTranscriber(listening_model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS))
    stream.feed(pcm)
    reference = stream.finish()
    events = live_events(server, frames_of(pcm), "?engine=window")
    assert events[0]["engine"] == "window", events[0]
    committed = [e for e in events if e["type"] == "commit"]
    assert "".join(e["text"] for e in committed) == reference.committed and reference.committed, "pieces add up"
    assert events[-1]["text"] == reference.committed, events[-1]
    assert {e["reason"] for e in committed} == {"window"}, committed
    times = [t for e in committed for t in (e["start"], e["end"])]
    assert times == sorted(times) and times[-1] == pytest.approx(len(pcm) / RATE, abs=1e-3), f"times {times}"
    assert any(e["type"] == "partial" for e in events), "tentative text while audio came in"


@pytest.mark.parametrize(
    "query, param",
    [("language=klingon", "language"), ("pause=0.01", "pause"), ("max_utterance=2", "max_utterance"),
     ("max_new_tokens=x", "max_new_tokens"), ("engine=fast", "engine"), ("encoding=mp3", "encoding")],
)  # fmt: skip
def test_a_bad_query_parameter_is_refused_with_its_name(server, query, param):
    with connect(f"{server.replace('http', 'ws')}/v1/audio/live?{query}", open_timeout=30) as ws:
        event = json.loads(ws.recv(timeout=30))
        assert (event["type"], event["error"]["param"]) == ("error", param), event
        assert query.split("=")[1] in event["error"]["message"], event
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
    assert closed.value.rcvd.code == 1008, "closed as a policy violation"


def test_a_live_client_that_disconnects_mid_session_is_dropped(server, recording):
    _, pcm = recording
    with connect(f"{server.replace('http', 'ws')}/v1/audio/live", open_timeout=30) as ws:
        ws.recv(timeout=30)
        ws.send(pcm[: 5 * RATE].tobytes())  # steps queued; the client leaves without finishing
        health = json.loads(request(f"{server}/health")[2])
        assert health["live_sessions"] == 1, health
    end = time.monotonic() + 10
    while json.loads(request(f"{server}/health")[2])["live_sessions"] != 0:
        assert time.monotonic() < end, "the session outlived its client"
        time.sleep(0.05)


def test_the_page_is_served_at_the_root(server):
    status, headers, body = request(f"{server}/")
    assert status == 200 and headers["Content-Type"].startswith("text/html"), (status, headers)
    html = body.decode()
    assert 'content="false"' in html and "/v1/audio/live" in html and "audioWorklet" in html, "the page, no key"


def test_a_browser_offers_the_key_as_a_subprotocol(listening_checkpoint):
    with server_process(listening_checkpoint, "--api-key", "s3cret/+") as base:
        assert 'content="true"' in request(f"{base}/")[2].decode(), "the page asks for the key"
        key = base64.urlsafe_b64encode(b"s3cret/+").decode().rstrip("=")
        with connect(
            base.replace("http", "ws") + "/v1/audio/live",
            open_timeout=30,
            subprotocols=["mlx-qwen3asr", f"bearer.{key}"],
        ) as ws:
            assert ws.subprotocol == "mlx-qwen3asr", "the server names the protocol the browser offered"
            assert json.loads(ws.recv(timeout=30))["type"] == "session.created"
