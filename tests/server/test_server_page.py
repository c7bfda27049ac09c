"""The page at / in a real browser: Debian's chromium, headless, driven by selenium, its microphone a WAV
file (`--use-file-for-fake-audio-capture`). What the page commits equals what LiveSession commits for
that recording; the page asks for the API key, and says so when the microphone is denied."""

import base64
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from server_helpers import MAX_NEW_TOKENS, RATE, ROOT, free_port, server_process, wav_bytes

import mlx_qwen3asr as mq
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


# Kept by the test: every audio frame the page sends (the browser's capture path resamples the file,
# so the samples differ from the WAV's by round-off, and the listening model's text follows them).
RECORD_SENT = """
window.sentFrames = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (data instanceof ArrayBuffer) window.sentFrames.push(new Uint8Array(data.slice(0)));
  return send.call(this, data);
};"""
SENT_BASE64 = """
let text = "";
for (const frame of window.sentFrames) for (let i = 0; i < frame.length; i += 8192)
  text += String.fromCharCode(...frame.subarray(i, i + 8192));
return btoa(text);"""


def best_match(sent: np.ndarray, clip: np.ndarray) -> float:
    """The highest normalised correlation of `clip` anywhere in `sent`."""
    sent, clip = sent.astype(np.float64), clip.astype(np.float64)
    if len(sent) < len(clip):
        return 0.0
    products = np.correlate(sent, clip, "valid")
    energy = np.sqrt(np.convolve(sent**2, np.ones(len(clip)), "valid")) * np.linalg.norm(clip)
    return float(np.max(products / np.maximum(energy, 1e-9)))


def session_commits(model, audio: np.ndarray) -> list[str]:
    live = mq.LiveSession(model, mq.DecodeOptions(max_new_tokens=MAX_NEW_TOKENS), vad=mq.load_vad())
    return [e.text for e in live.feed(audio) + live.finish() if e.type == "commit"]


def test_the_page_commits_what_the_library_commits_for_the_microphones_audio(checkpoint_for_page, recording):
    model, checkpoint = checkpoint_for_page
    wav, pcm = recording
    expected_count = len(session_commits(model, pcm))
    assert expected_count == 2, "the recording holds two utterances"
    with server_process(checkpoint, "--api-key", KEY) as base:
        page = open_page(f"{base}/", microphone=wav)
        try:
            page.execute_script(RECORD_SENT)
            assert page.find_element("id", "keybox").is_displayed(), "the page asks for the key"
            page.find_element("id", "key").send_keys(KEY)
            page.find_element("id", "key-save").click()
            page.find_element("id", "mic").click()
            lines = lambda: [p.text for p in page.find_elements("css selector", "#lines p.committed")]  # noqa: E731
            wait_for(page, lambda: len(lines()) >= expected_count, 60 + len(pcm) / RATE, "every utterance committed")
            assert page.find_element("id", "latency").text.endswith(" s"), "the commit's latency is shown"
            if SCREENSHOT:
                page.save_screenshot(SCREENSHOT)
            page.find_element("id", "mic").click()  # stop: the rest is committed, then session.done
            wait_for(page, lambda: "Stopped" in page.find_element("id", "status").text, 60, "the session finished")
            sent = np.frombuffer(base64.b64decode(page.execute_script(SENT_BASE64)), "<i2")
            shown = lines()
            copied = page.execute_script("return transcript()")  # what Copy and Download hand over
        finally:
            page.quit()
    assert shown == session_commits(model, sent.astype(np.float32) / 32768), "page lines = LiveSession's commits"
    assert len(shown) == expected_count, f"the WAV's {expected_count} utterances, got {shown}"
    assert copied == "\n".join(shown), "the transcript to copy or download is the committed lines"
    clip = pcm[RATE : RATE + RATE // 2]  # the first half second of speech
    assert best_match(sent, clip) > 0.8, "the page sends the microphone's audio at 16 kHz (resampled right)"


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
