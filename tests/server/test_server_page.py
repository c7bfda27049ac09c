"""The page at / in a real browser: Debian's chromium, headless, driven by selenium, its microphone a WAV
file (`--use-file-for-fake-audio-capture`). The page sends what the microphone gives (its rate, its
channels, float32), all of it, numbered, even with both cores busy; what it commits equals what
LiveSession commits for that audio; it asks for the API key, and says so when the microphone is denied."""

import base64
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from server_helpers import MAX_NEW_TOKENS, RATE, ROOT, free_port, server_process, wav_bytes

import mlx_qwen3asr as mq
from mlx_qwen3asr.audio.io import resample
from mlx_qwen3asr.testing.signals import noise, silence

AUDIO = ROOT / "tests" / "fixtures" / "audio"
KEY = "page-test-key"
SCREENSHOT = os.environ.get("MLX_QWEN3ASR_PAGE_SCREENSHOT")  # set it to keep a PNG of the page


def chromium() -> tuple[str, str]:
    """(browser, driver) paths, or a skip naming what is missing."""
    pytest.importorskip("selenium", reason="needs selenium: pip install 'mlx-qwen3asr[test]'")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    return browser, driver


def open_page(url: str, microphone: Path = None, deny: bool = False):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,700",
                 "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"):  # fmt: skip
        options.add_argument(flag)
    if microphone is not None:
        options.add_argument(f"--use-file-for-fake-audio-capture={microphone}%noloop")
    if deny:
        options.add_experimental_option("prefs", {"profile.default_content_setting_values.media_stream_mic": 2})
    else:
        options.add_argument("--use-fake-ui-for-media-stream")
    page = webdriver.Chrome(options=options, service=Service(driver))
    page.get(url)
    return page


def wait_for(page, condition, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} within {timeout:.0f} s; status: {page.find_element('id', 'status').text!r}")


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> tuple[Path, np.ndarray]:
    """Two fixture clips between pauses over -55 dBFS room tone, as a 16 kHz 16-bit WAV."""
    clips = [mq.load_audio(AUDIO / name) for name in ("short.wav", "exact.wav")]
    audio = np.concatenate([silence(1.0), clips[0], silence(1.5), clips[1], silence(2.5)])
    pcm = np.round(np.clip(audio + noise(len(audio) / RATE, -55.0), -1, 1) * 32767).astype(np.int16)
    path = tmp_path_factory.mktemp("page") / "microphone.wav"
    path.write_bytes(wav_bytes(pcm))
    return path, pcm


# Kept by the test: the socket's address and every audio frame the page sends.
RECORD_SENT = """
window.sentFrames = []; window.socketUrls = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (data instanceof ArrayBuffer) window.sentFrames.push(new Uint8Array(data.slice(0)));
  return send.call(this, data);
};
window.WebSocket = class extends WebSocket {
  constructor(url, protocols) { super(url, protocols); window.socketUrls.push(url); }
};"""
SENT_BASE64 = """
return window.sentFrames.map((frame) => {
  let text = "";
  for (let i = 0; i < frame.length; i += 8192) text += String.fromCharCode(...frame.subarray(i, i + 8192));
  return btoa(text);
});"""
MICROPHONE = """
const done = arguments[arguments.length - 1];
const constraints = {channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false};
navigator.mediaDevices.getUserMedia({audio: constraints}).then((stream) => {  // as the page asks
  const settings = stream.getAudioTracks()[0].getSettings();
  stream.getTracks().forEach((track) => track.stop());
  done(settings);
});"""


@pytest.fixture
def both_cores_busy():
    """Two processes spinning for the whole test: the browser's audio thread, the server and the model
    all compete for the CPU."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


def sent_audio(frames: list[bytes], channels: int) -> np.ndarray:
    """The numbered frames' samples [n, channels], checked to follow each other with no hole or overlap."""
    samples, received = [], 0
    for frame in frames:
        index = int.from_bytes(frame[:8], "little")
        assert index == received, f"frame {len(samples)} starts at {index}, after {received}: audio lost or repeated"
        samples.append(np.frombuffer(frame[8:], "<f4").reshape(-1, channels))
        received += len(samples[-1])
    return np.concatenate(samples)


def assert_holds_the_recording(sent: np.ndarray, rate: int, wav: np.ndarray, speech_end: float) -> None:
    """Every half second of the WAV from its first word to the end of its speech is in the sent audio,
    each where the first word puts it: nothing lost, nothing inserted (the browser's capture resamples the
    file to its rate, soxr brings it back to 16 kHz). The room tone before the first word is not checked:
    while the page sets its audio graph up, chromium's fake capture device can drop or repeat a few ms of
    it when both cores are busy (a CI run saw 0.5-1.0 s of it shifted), before any sample reaches the page."""
    heard = resample(sent.mean(axis=1), rate, RATE).astype(np.float64)
    wav, piece = wav.astype(np.float64) / 32768, RATE // 2
    word = wav[RATE : RATE + piece]  # the first half second of speech
    energy = np.sqrt(np.convolve(heard[: 3 * RATE] ** 2, np.ones(piece), "valid"))
    offset = int(np.argmax(np.correlate(heard[: 3 * RATE], word, "valid") / np.maximum(energy, 1e-12))) - RATE
    # the capture starts while the page sets its audio graph up: the room tone's first ms may be missed
    assert -piece <= offset, f"the page's audio starts {-offset / RATE:.2f} s into the WAV"
    assert len(heard) - offset >= speech_end * RATE, f"the page sent {(len(heard) - offset) / RATE:.2f} s of the WAV"
    for start in range(RATE, int(speech_end * RATE) - piece, piece):  # the first word is at 1.0 s
        clip, there = wav[start : start + piece], heard[offset + start : offset + start + piece]
        match = float(clip @ there / max(np.linalg.norm(clip) * np.linalg.norm(there), 1e-12))
        assert match > 0.9, f"{start / RATE:.1f} s into the WAV the page sent other audio (correlation {match:.2f})"


def library_commits(model, sent: np.ndarray, rate: int) -> list[str]:
    live = mq.LiveSession(
        model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), sample_rate=rate, channels_last=True, vad=mq.load_vad()
    )
    events = [e for start in range(0, len(sent), rate // 10) for e in live.feed(sent[start : start + rate // 10])]
    return [e.text for e in events + live.finish() if e.type == "commit"]


def test_the_page_sends_the_whole_microphone_signal_and_commits_what_the_library_commits_under_load(
    checkpoint_for_page, recording, both_cores_busy
):
    model, checkpoint = checkpoint_for_page
    wav, pcm = recording
    expected_count = len(library_commits(model, pcm[:, None], RATE))
    assert expected_count == 2, "the recording holds two utterances"
    with server_process(checkpoint, "--api-key", KEY) as base:
        page = open_page(f"{base}/", microphone=wav)
        try:
            microphone = page.execute_async_script(MICROPHONE)
            page.execute_script(RECORD_SENT)
            assert page.find_element("id", "keybox").is_displayed(), "the page asks for the key"
            page.find_element("id", "key").send_keys(KEY)
            page.find_element("id", "key-save").click()
            page.find_element("id", "mic").click()
            lines = lambda: [p.text for p in page.find_elements("css selector", "#lines p.committed")]  # noqa: E731
            wait_for(page, lambda: len(lines()) >= expected_count, 90 + len(pcm) / RATE, "every utterance committed")
            assert page.find_element("id", "latency").text.endswith(" s"), "the commit's latency is shown"
            if SCREENSHOT:
                page.save_screenshot(SCREENSHOT)
            page.find_element("id", "mic").click()  # stop: the rest is sent and committed, then session.done
            wait_for(page, lambda: "Stopped" in page.find_element("id", "status").text, 60, "the session finished")
            frames = [base64.b64decode(frame) for frame in page.execute_script(SENT_BASE64)]
            (url,) = page.execute_script("return window.socketUrls")
            shown, gaps = lines(), page.find_elements("css selector", "#lines p.gap")
            copied = page.execute_script("return transcript()")  # what Copy and Download hand over
        finally:
            page.quit()
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    rate, channels = microphone["sampleRate"], microphone["channelCount"]
    assert (query["sample_rate"], query["channels"]) == (str(rate), str(channels)), f"the microphone's format: {url}"
    assert (query["encoding"], query["numbered"]) == ("float32", "true"), f"its float samples, numbered: {url}"
    sent = sent_audio(frames, channels)
    assert_holds_the_recording(sent, rate, pcm, speech_end=len(pcm) / RATE - 2.5)  # the WAV ends in 2.5 s of room tone
    assert not gaps, "no gap reported"
    assert shown == library_commits(model, sent, rate), "page lines = LiveSession's commits for the audio sent"
    assert len(shown) == expected_count, f"the WAV's {expected_count} utterances, got {shown}"
    assert copied == "\n".join(shown), "the transcript to copy or download is the committed lines"


def test_a_denied_microphone_is_said_in_words(checkpoint_for_page):
    _, checkpoint = checkpoint_for_page
    with server_process(checkpoint) as base:
        page = open_page(f"{base}/", deny=True)
        try:
            assert not page.find_element("id", "keybox").is_displayed(), "no key asked where none is needed"
            page.find_element("id", "mic").click()
            status = page.find_element("id", "status")
            wait_for(page, lambda: "denied" in status.text, 20, "the denial said")
            assert "allow it" in status.text, status.text
        finally:
            page.quit()


def test_a_dropped_connection_is_said_and_retried_and_the_lines_are_kept(checkpoint_for_page, recording):
    _, checkpoint = checkpoint_for_page
    wav, _ = recording
    port = free_port()
    status = lambda: page.find_element("id", "status").text  # noqa: E731
    lines = lambda: [p.text for p in page.find_elements("css selector", "#lines p.committed")]  # noqa: E731
    with server_process(checkpoint, port=port) as base:
        page = open_page(f"{base}/", microphone=wav)
        try:
            page.find_element("id", "mic").click()
            wait_for(page, lambda: len(lines()) >= 1, 60, "the first utterance committed")
            before = lines()
        except BaseException:
            page.quit()
            raise
    try:  # the server is gone
        wait_for(page, lambda: "Connection to the server lost" in status(), 30, "the drop said")
        assert "committed text is kept" in status() and lines() == before, "the lines stay"
        with server_process(checkpoint, port=port):
            wait_for(page, lambda: status().startswith("Listening"), 60, "reconnected by itself")
            assert lines()[: len(before)] == before, "the lines from before the drop are kept"
    finally:
        page.quit()


@pytest.fixture(scope="module")
def checkpoint_for_page(listening_checkpoint, listening_model):
    return listening_model, listening_checkpoint
