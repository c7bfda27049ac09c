"""The live WebSocket of a server started with `--partials-model`: partials from the first model (SenseVoiceSmall),
commits as the library's session commits them with the final model (Qwen3-ASR) alone."""

import json
import time

import numpy as np
from server_helpers import MAX_NEW_TOKENS, RATE, server_process
from websockets.sync.client import connect

import mlx_qwen3asr as mq
from mlx_qwen3asr.testing.signals import noise, silence


def test_a_two_pass_server_shows_the_first_models_partials_and_commits_the_final_models_text(
    tiny_checkpoint, tiny_model, sensevoice_dir, speech
):
    audio = np.concatenate([silence(0.5), speech, silence(1.2), speech[: 2 * RATE], silence(1.2)])
    audio = audio + noise(len(audio) / RATE, -55.0)
    pcm = np.round(np.clip(audio, -1, 1) * 32767).astype(np.int16)
    with server_process(tiny_checkpoint, "--partials-model", str(sensevoice_dir)) as base:
        with connect(f"{base.replace('http', 'ws')}/v1/audio/live", open_timeout=30) as ws:
            events = [json.loads(ws.recv(timeout=30))]
            for i in range(0, len(pcm), 1600):  # 100 ms frames at twice real time: partials are due between them
                ws.send(pcm[i : i + 1600].tobytes())
                time.sleep(0.05)
            ws.send(json.dumps({"type": "finish"}))
            while events[-1]["type"] != "session.done":
                events.append(json.loads(ws.recv(timeout=120)))
    live = mq.LiveSession(tiny_model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), partials="off")
    library = [e for e in live.feed(pcm.astype(np.float32) / 32768) + live.finish() if e.type == "commit"]
    commits = [e for e in events if e["type"] == "commit"]
    assert len(commits) == 2, commits
    assert [(c["text"], c["start"], c["end"]) for c in commits] == [
        (e.text, round(e.start, 3), round(e.end, 3)) for e in library
    ], "the commits are the library's, from the final model"
    sensevoice = mq.load(sensevoice_dir, dtype="float32")
    firsts = [mq.transcribe(audio[: int(e["time"] * RATE)][int(e["start"] * RATE) :], sensevoice).text for e in events
              if e["type"] == "partial"]  # fmt: skip
    shown = [e["text"] for e in events if e["type"] == "partial"]
    assert any(text and text in firsts for text in shown), f"partials from the first model: {shown}"
