"""The server end to end: `python -m mlx_qwen3asr.server` on a free port with the audio-sensitive tiny model,
driven by the real `openai` client; answers must equal the library's. (The WebSocket: test_server_live.py.)"""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from openai import OpenAI
from server_helpers import MAX_NEW_TOKENS, error_of, float_wav_bytes, post_form, request, server_process, wav_bytes

import mlx_qwen3asr as mq
from mlx_qwen3asr.decode.prefix_cache import PrefixCache
from mlx_qwen3asr.outputs.formats import FORMATS

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "audio"
UPLOAD_LIMIT_MB = 2


@pytest.fixture(scope="module")
def server(listening_checkpoint):
    with server_process(listening_checkpoint, "--max-upload-mb", str(UPLOAD_LIMIT_MB)) as base:
        yield base


@pytest.fixture(scope="module")
def client(server) -> OpenAI:
    return OpenAI(base_url=f"{server}/v1", api_key="local", max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def long_pcm() -> np.ndarray:
    """15.7 s of espeak-ng speech as int16, the samples the WAV file holds."""
    return np.round(mq.load_audio(AUDIO / "long.wav") * 32768).astype(np.int16)


def expected(model, pcm: np.ndarray, **options) -> mq.Transcription:
    """The library's transcription, every prompt prefilled whole (the server reuses prompt heads)."""
    return mq.transcribe(
        pcm.astype(np.float32) / 32768,
        model,
        max_new_tokens=MAX_NEW_TOKENS,
        prefix_cache=PrefixCache.off(model),
        **options,
    )


def transcribe(client: OpenAI, pcm: np.ndarray, **fields):
    return client.audio.transcriptions.create(file=("speech.wav", wav_bytes(pcm)), model="qwen3-asr", **fields)


@pytest.mark.parametrize("response_format", ["json", "text", "srt", "vtt", "verbose_json"])
def test_every_response_format_equals_the_library_transcription(client, listening_model, long_pcm, response_format):
    pcm = long_pcm[: 6 * 16000]
    reference = expected(listening_model, pcm)
    answer = transcribe(client, pcm, response_format=response_format)
    if response_format == "json":
        assert answer.text == reference.text, "json text differs from mq.transcribe"
    elif response_format == "verbose_json":
        assert (answer.text, answer.language, answer.duration) == (reference.text, reference.language, 6.0)
        segments = [(s.start, s.end, s.text, s.tokens) for s in answer.segments]
        assert segments == [(0.0, 6.0, s.text, s.token_ids) for s in reference.segments], "segments differ"
    else:
        writer = {"text": "txt"}.get(response_format, response_format)
        assert answer == FORMATS[writer](reference), f"{response_format} differs from the library's writer"
    assert reference.text, "the reference must not be empty, or equality proves nothing"


def test_language_takes_iso_codes_and_names_in_any_case(client, listening_model, long_pcm):
    pcm = long_pcm[: 4 * 16000]
    forced = expected(listening_model, pcm, language="German").text
    assert forced != expected(listening_model, pcm).text, "forcing a language must change this model's text"
    for language in ("de", "DE", "german", "German"):
        assert transcribe(client, pcm, language=language).text == forced, f"language={language!r}"


def test_prompt_is_passed_as_context(client, listening_model, long_pcm):
    pcm = long_pcm[: 4 * 16000]
    reference = expected(listening_model, pcm, context="Qwen, MLX, Zurich").text
    assert transcribe(client, pcm, prompt="Qwen, MLX, Zurich").text == reference


def test_a_hotwords_field_is_the_librarys_hotwords_option(client, listening_model, long_pcm):
    pcm = long_pcm[: 4 * 16000]
    reference = expected(listening_model, pcm, context="Topic: MLX", hotwords=["Qwen", "Zurich"])
    answer = transcribe(client, pcm, prompt="Topic: MLX", extra_body={"hotwords": "Qwen, Zurich"})
    assert answer.text == reference.text
    assert reference.text != expected(listening_model, pcm, context="Topic: MLX").text, "the hotwords changed it"


def test_requests_sharing_a_prompt_share_its_prompt_head_and_get_the_tokens_of_whole_prefills(
    server, client, listening_model, long_pcm
):
    prompt = "Names: Qwen, MLX, Zurich, Tongyi. Topic: speech recognition. " * 20  # ~300 tokens
    clips = [long_pcm[i * 16000 : i * 16000 + 3 * 16000] for i in range(4)]
    references = [expected(listening_model, clip, context=prompt).token_ids for clip in clips]
    before = json.loads(request(f"{server}/health")[2])["prefix_cache"]
    with ThreadPoolExecutor(4) as pool:  # decoded together (--batch-size 4) or one after another
        answers = list(pool.map(lambda c: transcribe(client, c, prompt=prompt, response_format="verbose_json"), clips))
    assert [[s.tokens for s in a.segments] for a in answers] == references, "tokens differ from whole prefills"
    after = json.loads(request(f"{server}/health")[2])["prefix_cache"]
    assert (after["misses"] - before["misses"], after["hits"] - before["hits"]) == (1, 3), (before, after)


def test_streaming_sends_one_delta_per_decoded_chunk_then_the_whole_text(client, listening_model, long_pcm):
    pcm = np.concatenate([long_pcm, long_pcm, long_pcm])  # 47 s: two chunks of at most 30 s
    reference = expected(listening_model, pcm)
    events = list(transcribe(client, pcm, stream=True))
    kinds = [e.type for e in events]
    assert kinds == ["transcript.text.delta"] * 2 + ["transcript.text.done"], f"events: {kinds}"
    assert "".join(e.delta for e in events[:2]) == events[2].text == reference.text
    assert events[0].delta == reference.segments[0].text, "the first delta is the first chunk's text"


def test_sixteen_concurrent_requests_each_get_their_own_transcript(client, listening_model, long_pcm):
    clips = [long_pcm[i * 8000 : i * 8000 + 16000 + i * 4000] for i in range(16)]  # 1-4.75 s, all different
    references = [expected(listening_model, clip).text for clip in clips]
    assert len(set(references)) > 8, "the clips must give different texts, or a mix-up would not show"
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda clip: transcribe(client, clip).text, clips))
    assert answers == references


def bad_requests(long_pcm):
    """(what is wrong, form fields, files, status, the param the error names)."""
    nan = np.full(16000, 0.1, np.float32)
    nan[100] = np.nan
    speech = wav_bytes(long_pcm[:16000])
    big = wav_bytes(np.zeros(int(UPLOAD_LIMIT_MB * 1e6 / 2) + 1000, np.int16))
    return [
        ("empty file", {}, {"file": ("a.wav", b"")}, 400, "file"),
        ("not audio", {}, {"file": ("a.mp3", b"this is not audio at all" * 40)}, 400, "file"),
        ("NaN samples", {}, {"file": ("a.wav", float_wav_bytes(nan))}, 400, "file"),
        ("a WAV without samples", {}, {"file": ("a.wav", wav_bytes(np.zeros(0, np.int16)))}, 400, "file"),
        ("unknown language", {"language": "xx"}, {"file": ("a.wav", speech)}, 400, "language"),
        ("unknown response_format", {"response_format": "xml"}, {"file": ("a.wav", speech)}, 400, "response_format"),
        ("stream is not a boolean", {"stream": "maybe"}, {"file": ("a.wav", speech)}, 400, "stream"),
        ("temperature out of range", {"temperature": "7"}, {"file": ("a.wav", speech)}, 400, "temperature"),
        ("word times without an aligner", {"timestamp_granularities[]": "word"}, {"file": ("a.wav", speech)},
         400, "timestamp_granularities"),
        ("a path instead of a file", {"file": "/etc/passwd"}, {}, 400, "file"),
        ("a prompt over the token limit", {"prompt": "word " * 10_001}, {"file": ("a.wav", speech)}, 400, "prompt"),
        ("no file", {"model": "x"}, {}, 400, "file"),
        ("an upload over the limit", {}, {"file": ("a.wav", big)}, 413, "file"),
    ]  # fmt: skip


def test_each_bad_input_gets_its_status_and_the_server_keeps_serving(server, client, listening_model, long_pcm):
    good = long_pcm[:16000]
    reference = expected(listening_model, good).text
    for problem, fields, files, status, param in bad_requests(long_pcm):
        code, _, body = post_form(f"{server}/v1/audio/transcriptions", {"model": "x", **fields}, files)
        assert code == status, f"{problem}: status {code}, body {body[:300]!r}"
        error = error_of(body)
        assert error["param"] == param and error["message"], f"{problem}: {error}"
        assert transcribe(client, good).text == reference, f"the request after {problem!r} failed"


def test_models_lists_the_served_model_and_health_answers(server, client, listening_checkpoint):
    assert [m.id for m in client.models.list()] == [listening_checkpoint.name]
    status, _, body = request(f"{server}/health")
    health = json.loads(body)
    assert (status, health["status"], health["model"]) == (200, "ok", listening_checkpoint.name), health
    assert (health["open_requests"], health["queued_jobs"]) == (0, 0), f"nothing is waiting: {health}"


def test_serve_refuses_an_aligner_folder_as_the_model_in_one_line(tiny_aligner_dir):
    from mlx_qwen3asr.server.serve import load_and_warm

    with pytest.raises(ValueError, match=r"^--model \S+ is a forced aligner, not a speech recogniser") as error:
        load_and_warm(str(tiny_aligner_dir), "float32")
    assert "\n" not in str(error.value)
