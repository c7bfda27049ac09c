"""Audio input stage: WAV bytes built here with struct, arrays, resampling, ffmpeg formats."""

import shutil
import struct
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from mlx_qwen3asr.audio import SAMPLE_RATE, load_audio, prepare_audio, resample
from mlx_qwen3asr.audio.samples import MAX_CHANNELS

PCM, IEEE_FLOAT = 1, 3
GUID_SUFFIX = bytes.fromhex("000000001000800000aa00389b71")
needs_ffmpeg = pytest.mark.skipif(
    shutil.which("ffmpeg") is None, reason="ffmpeg is not on PATH; install it to test non-WAV formats"
)


@pytest.fixture
def without_ffmpeg(tmp_path, monkeypatch):
    """PATH holds only an empty folder, so a WAV that decodes was parsed by the module itself."""
    empty_bin = tmp_path / "empty_bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))


def chunk(chunk_id: bytes, body: bytes, declared_size=None) -> bytes:
    size = len(body) if declared_size is None else declared_size
    return chunk_id + struct.pack("<I", size) + body + b"\0" * (len(body) % 2)


def wav_bytes(
    payload,
    *,
    bits,
    channels=1,
    format_tag=PCM,
    sample_rate=16000,
    extensible=False,
    chunks_before_data=b"",
    data_size=None,
    riff_id=b"RIFF",
    chunks_first=b"",
) -> bytes:
    """A RIFF/WAVE file: payload is the interleaved sample bytes, stored as they are."""
    block_align = channels * (bits // 8)
    shape = (channels, sample_rate, sample_rate * block_align, block_align, bits)
    if extensible:  # 0xFFFE, cbSize 22, valid bits, channel mask, subformat GUID
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, *shape, 22, bits, (1 << channels) - 1)
        fmt += struct.pack("<H", format_tag) + GUID_SUFFIX
    else:
        fmt = struct.pack("<HHIIHH", format_tag, *shape)
    body = b"WAVE" + chunks_first + chunk(b"fmt ", fmt) + chunks_before_data
    body += chunk(b"data", payload, declared_size=data_size)
    return riff_id + struct.pack("<I", len(body)) + body


def int24_bytes(values) -> bytes:
    return b"".join(int(v).to_bytes(3, "little", signed=True) for v in values)


def write(tmp_path, data: bytes, name="clip.wav"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def sine(frequency, sample_rate, seconds=1.0, amplitude=0.5):
    t = np.arange(int(sample_rate * seconds)) / sample_rate
    return (amplitude * np.sin(2 * np.pi * frequency * t)).astype(np.float32)


def peak_frequency(wave, sample_rate):
    spectrum = np.abs(np.fft.rfft(wave * np.hanning(len(wave))))
    return np.fft.rfftfreq(len(wave), 1 / sample_rate)[np.argmax(spectrum)]


# --- WAV decoding ------------------------------------------------------------------------------


def test_16_bit_pcm_is_divided_by_32768(tmp_path):
    ints = np.array([0, 1, -1, 16384, -32768, 32767], "<i2")
    got = load_audio(write(tmp_path, wav_bytes(ints.tobytes(), bits=16)))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ints / 32768.0)


def test_8_bit_pcm_is_unsigned_and_centred_at_128(tmp_path):
    got = load_audio(write(tmp_path, wav_bytes(bytes([0, 128, 255, 64]), bits=8)))
    np.testing.assert_array_equal(got, [-1.0, 0.0, 127 / 128, -0.5])


def test_24_bit_pcm_is_sign_extended_and_divided_by_2_pow_23(tmp_path, without_ffmpeg):
    values = [-1, 8388607, -8388608, 0, 4194304, 1]
    got = load_audio(write(tmp_path, wav_bytes(int24_bytes(values), bits=24)))
    np.testing.assert_array_equal(got, np.array(values) / 2.0**23)


def test_32_bit_pcm_is_divided_by_2_pow_31(tmp_path):
    ints = np.array([2**30, -(2**31), -(2**16), 0], "<i4")
    got = load_audio(write(tmp_path, wav_bytes(ints.tobytes(), bits=32)))
    np.testing.assert_array_equal(got, [0.5, -1.0, -(2.0**-15), 0.0])


@pytest.mark.parametrize("dtype, bits", [("<f4", 32), ("<f8", 64)])
def test_float_wavs_keep_their_values(tmp_path, without_ffmpeg, dtype, bits):
    values = np.array([0.5, -0.25, 0.1, -1.0, 0.0], dtype)
    got = load_audio(write(tmp_path, wav_bytes(values.tobytes(), bits=bits, format_tag=IEEE_FLOAT)))
    np.testing.assert_array_equal(got, values.astype(np.float32))


def test_float_wav_louder_than_full_scale_is_kept_by_load_audio_and_scaled_by_prepare_audio(tmp_path):
    values = np.array([2.0, -1.0, 0.5], "<f4")
    path = write(tmp_path, wav_bytes(values.tobytes(), bits=32, format_tag=IEEE_FLOAT))
    np.testing.assert_array_equal(load_audio(path), values)
    with pytest.warns(UserWarning, match="divided by its peak"):
        np.testing.assert_array_equal(prepare_audio(path), [1.0, -0.5, 0.25])


def test_stereo_is_averaged_to_mono(tmp_path):
    frames = np.array([[16384, -16384], [32767, 0], [-8192, -8192]], "<i2")
    got = load_audio(write(tmp_path, wav_bytes(frames.tobytes(), bits=16, channels=2)))
    np.testing.assert_array_equal(got, [0.0, 32767 / 65536, -0.25])


def test_six_channel_float_wav_is_averaged_to_mono(tmp_path, without_ffmpeg):
    frames = np.tile(np.array([0.5, 0.5, 0.5, -0.5, 0.0, 0.0], "<f4"), (3, 1))
    data = wav_bytes(frames.tobytes(), bits=32, channels=6, format_tag=IEEE_FLOAT, extensible=True)
    np.testing.assert_allclose(load_audio(write(tmp_path, data)), [1 / 6] * 3, rtol=1e-6)


@pytest.mark.parametrize(
    "format_tag, bits, payload, expected",
    [
        (PCM, 24, int24_bytes([-1, 8388607]), [-(2.0**-23), 8388607 / 2**23]),
        (PCM, 16, np.array([-32768, 8192], "<i2").tobytes(), [-1.0, 0.25]),
        (IEEE_FLOAT, 32, np.array([0.75, -0.125], "<f4").tobytes(), [0.75, -0.125]),
    ],
)
def test_extensible_format_uses_the_subformat_guid(tmp_path, without_ffmpeg, format_tag, bits, payload, expected):
    data = wav_bytes(payload, bits=bits, format_tag=format_tag, extensible=True)
    np.testing.assert_array_equal(load_audio(write(tmp_path, data)), expected)


def test_list_and_odd_sized_chunks_before_data_are_skipped(tmp_path):
    ints = np.array([100, -200, 300], "<i2")
    extra = chunk(b"LIST", b"INFOISFT" + struct.pack("<I", 5) + b"Lavf\0") + chunk(b"junk", b"abc")
    data = wav_bytes(ints.tobytes(), bits=16, chunks_before_data=extra, chunks_first=chunk(b"odd ", b"x"))
    np.testing.assert_array_equal(load_audio(write(tmp_path, data)), ints / 32768.0)


def test_odd_sized_data_chunk_ignores_its_pad_byte_and_trailing_chunks(tmp_path):
    data = wav_bytes(bytes([128, 192, 64]), bits=8) + chunk(b"LIST", b"INFOtail")
    data = data[:4] + struct.pack("<I", len(data) - 8) + data[8:]
    np.testing.assert_array_equal(load_audio(write(tmp_path, data)), [0.0, 0.5, -0.5])


def test_truncated_wav_warns_and_decodes_the_complete_frames(tmp_path):
    ints = (np.arange(1600) - 800).astype("<i2")
    full = wav_bytes(ints.tobytes(), bits=16)
    path = write(tmp_path, full[: len(full) - 1600 + 1])  # 800 samples and one byte of the 801st
    with pytest.warns(
        UserWarning,
        match=r"clip\.wav is truncated: its data chunk declares 3200 bytes "
        r"but only 1601 are there; decoded the first 0\.050 s",
    ):
        got = load_audio(path)
    np.testing.assert_array_equal(got, ints[:800] / 32768.0)


def test_streamed_wav_ending_in_a_partial_frame_warns_and_drops_it(tmp_path):
    frames = np.array([[8192, -8192], [16384, 0]], "<i2")
    data = wav_bytes(frames.tobytes() + b"\x01\x02", bits=16, channels=2, data_size=0xFFFFFFFF)
    with pytest.warns(UserWarning, match=r"partial frame \(2 of 4 bytes\); decoded the first 0\.000 s"):
        got = load_audio(write(tmp_path, data))
    np.testing.assert_array_equal(got, [0.0, 0.25])


@pytest.mark.parametrize("streaming_size", [0xFFFFFFFF, 0])
def test_streaming_data_size_reads_to_end_of_file_without_warning(tmp_path, streaming_size):
    ints = np.array([1000, -1000, 2000, 4], "<i2")
    path = write(tmp_path, wav_bytes(ints.tobytes(), bits=16, data_size=streaming_size))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = load_audio(path)
    np.testing.assert_array_equal(got, ints / 32768.0)


def test_rf64_takes_the_data_size_from_the_ds64_chunk(tmp_path, without_ffmpeg):
    ints = np.array([8192, -8192, 0], "<i2")
    ds64 = chunk(b"ds64", struct.pack("<QQQI", 0, ints.nbytes, len(ints), 0))
    data = wav_bytes(ints.tobytes() + b"trailing", bits=16, data_size=0xFFFFFFFF, riff_id=b"RF64", chunks_first=ds64)
    np.testing.assert_array_equal(load_audio(write(tmp_path, data)), [0.25, -0.25, 0.0])


def test_wav_is_resampled_to_the_requested_rate(tmp_path):
    ints = (sine(440, 48000) * 32767).astype("<i2")
    got = load_audio(write(tmp_path, wav_bytes(ints.tobytes(), bits=16, sample_rate=48000)))
    assert len(got) == 16000, f"1 s at 48 kHz should give 16000 samples at 16 kHz, got {len(got)}"
    assert peak_frequency(got, 16000) == pytest.approx(440, abs=1)
    assert (
        len(load_audio(write(tmp_path, wav_bytes(ints.tobytes(), bits=16, sample_rate=48000)), sample_rate=8000))
        == 8000
    )


# --- file errors -------------------------------------------------------------------------------


def test_empty_file_says_it_is_empty(tmp_path):
    path = write(tmp_path, b"")
    with pytest.raises(ValueError, match=r"clip\.wav: the file is empty \(0 bytes\)"):
        load_audio(path)


def test_missing_file_names_the_path(tmp_path):
    path = tmp_path / "nowhere.wav"
    with pytest.raises(FileNotFoundError, match="nowhere.wav"):
        load_audio(path)


def test_text_file_without_ffmpeg_says_only_wav_is_native_and_to_install_ffmpeg(tmp_path, without_ffmpeg):
    path = write(tmp_path, b"just some notes\n", name="notes.txt")
    with pytest.raises(ValueError, match=r"notes\.txt: only WAV is read natively; install ffmpeg"):
        prepare_audio(str(path))


@needs_ffmpeg
def test_text_file_with_ffmpeg_reports_ffmpegs_reason_in_one_line(tmp_path):
    path = write(tmp_path, b"just some notes\n", name="notes.txt")
    with pytest.raises(ValueError, match=r"notes\.txt: it is not a WAV file .* ffmpeg could not decode it .*: \S") as e:
        load_audio(path)
    assert "\n" not in str(e.value) and "@ 0x" not in str(e.value), f"not one clean line: {e.value}"


def test_wav_without_data_chunk_is_reported_as_corrupt(tmp_path):
    data = wav_bytes(b"", bits=16)[:-8]
    data = data[:4] + struct.pack("<I", len(data) - 8) + data[8:]
    with pytest.raises(ValueError, match="has no data chunk"):
        load_audio(write(tmp_path, data))


# --- ffmpeg formats ----------------------------------------------------------------------------


@needs_ffmpeg
def test_flac_encoded_by_ffmpeg_is_decoded_exactly_and_resampled(tmp_path):
    ints = (sine(440, 44100) * 32767).astype("<i2")
    wav = write(tmp_path, wav_bytes(ints.tobytes(), bits=16, sample_rate=44100))
    flac = tmp_path / "sine.flac"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(wav), str(flac)], check=True)
    assert flac.read_bytes()[:4] == b"fLaC"
    np.testing.assert_array_equal(load_audio(flac, sample_rate=44100), ints / 32768.0)
    at_16k = load_audio(flac)
    assert abs(len(at_16k) - 16000) <= 1, f"1 s of FLAC gave {len(at_16k)} samples at 16 kHz"
    assert peak_frequency(at_16k, 16000) == pytest.approx(440, abs=1)
    assert np.max(np.abs(at_16k[1000:-1000])) == pytest.approx(0.5, abs=0.01)


@needs_ffmpeg
def test_mu_law_wav_is_handed_to_ffmpeg(tmp_path):
    ints = (sine(440, 16000) * 32767).astype("<i2")
    wav = write(tmp_path, wav_bytes(ints.tobytes(), bits=16))
    mulaw = tmp_path / "mulaw.wav"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(wav), "-c:a", "pcm_mulaw", str(mulaw)], check=True)
    np.testing.assert_allclose(load_audio(mulaw), ints / 32768.0, atol=0.02)


# --- resampling --------------------------------------------------------------------------------


@pytest.mark.parametrize("source_rate", [44100, 48000, 8000])
def test_resampling_to_16k_preserves_a_440_hz_sine(source_rate):
    got = resample(sine(440, source_rate), source_rate, 16000)
    assert got.dtype == np.float32
    assert len(got) == 16000, f"1 s at {source_rate} Hz gave {len(got)} samples"
    assert peak_frequency(got, 16000) == pytest.approx(440, abs=1)
    np.testing.assert_allclose(got[200:-200], sine(440, 16000)[200:-200], atol=2e-3)


def test_resampling_to_the_same_rate_returns_the_same_values():
    wave = sine(440, 16000)
    np.testing.assert_array_equal(resample(wave, 16000, 16000), wave)


@pytest.mark.parametrize("bad_rate", [0, -16000, 16000.0, True, None])
def test_bad_sample_rates_are_rejected(bad_rate):
    with pytest.raises(ValueError, match="positive integer"):
        resample(np.zeros(10, np.float32), bad_rate, 16000)
    with pytest.raises(ValueError, match="positive integer"):
        prepare_audio(np.zeros(10, np.float32), sample_rate=bad_rate)
    with pytest.raises(ValueError, match="positive integer"):
        prepare_audio((np.zeros(10, np.float32), bad_rate))


# --- prepare_audio -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "samples, expected",
    [
        (np.array([-32768, 0, 16384], np.int16), [-1.0, 0.0, 0.5]),
        (np.array([-(2**31), 2**29, 0], np.int32), [-1.0, 0.25, 0.0]),
        (np.array([0, 128, 192], np.uint8), [-1.0, 0.0, 0.5]),
        (np.array([-128, 64, 0], np.int8), [-1.0, 0.5, 0.0]),
        (np.array([0.5, -0.25], np.float64), [0.5, -0.25]),
    ],
)
def test_integer_arrays_are_divided_by_their_full_scale(samples, expected):
    got = prepare_audio(samples)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, expected)


def test_array_and_rate_tuple_is_resampled_to_16k():
    got = prepare_audio((sine(440, 48000), 48000))
    assert len(got) == 16000
    assert peak_frequency(got, 16000) == pytest.approx(440, abs=1)
    np.testing.assert_allclose(got[200:-200], sine(440, 16000)[200:-200], atol=2e-3)


def test_int16_tuple_at_16k_is_only_scaled():
    got = prepare_audio((np.array([16384, -8192], np.int16), SAMPLE_RATE))
    np.testing.assert_array_equal(got, [0.5, -0.25])


def test_channels_first_and_channels_last_give_the_same_mono():
    left, right = sine(440, 16000, 0.1), sine(880, 16000, 0.1, amplitude=0.25)
    expected = (left + right) / 2
    np.testing.assert_allclose(prepare_audio(np.stack([left, right])), expected, atol=1e-7)
    np.testing.assert_allclose(prepare_audio(np.stack([left, right], axis=1)), expected, atol=1e-7)


def test_a_microphone_array_channels_first_is_averaged_over_its_sixteen_channels():
    array = np.arange(16 * 200, dtype=np.float32).reshape(16, 200) / 10000
    np.testing.assert_allclose(prepare_audio(array), array.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(prepare_audio(array.T.copy()), array.mean(axis=0), rtol=1e-6)


def test_nine_channels_first_are_nine_channels_not_nine_samples():
    array = np.random.default_rng(0).standard_normal((9, 16000)).astype(np.float32) * 0.1
    got = prepare_audio(array)
    assert got.shape == (16000,), "the official code would give 9 samples (the mean over 16000 'channels')"
    np.testing.assert_allclose(got, array.mean(axis=0), atol=1e-7)
    np.testing.assert_allclose(prepare_audio(array.T.copy()), got, atol=1e-7)


def test_the_layout_rule_is_stated_where_users_read_it_with_the_limit_the_code_uses():
    guide = (Path(__file__).parents[2] / "docs" / "transcribing.md").read_text(encoding="utf-8")
    handling = guide[guide.index("Input handling:") :].split("\n\n")[0]
    for where, text in (("prepare_audio's docstring", prepare_audio.__doc__), ("docs/transcribing.md", handling)):
        assert f"at most {MAX_CHANNELS}" in " ".join(text.split()), f"{where} must state the channel limit"
        assert "(3, 3), (5, 4)" in handling and "(9, 16000)" in " ".join(text.split()), f"{where}: the examples"
    assert "at most 8" not in prepare_audio.__doc__, "the docstring's old limit"


@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (3, 3), (5, 4), (40, 40), (100, 200), (300, 300)])
def test_a_shape_that_could_be_read_either_way_or_neither_is_an_error(shape):
    with pytest.raises(ValueError, match=r"cannot tell channels from samples .* pass 1-D mono"):
        prepare_audio(np.zeros(shape, np.float32))


@pytest.mark.parametrize("shape", [(0,), (0, 2), (2, 0)])
def test_empty_arrays_of_any_layout_are_empty_audio(shape):
    got = prepare_audio(np.zeros(shape, np.float32))
    assert got.shape == (0,) and got.dtype == np.float32


def test_clipped_audio_warns_that_the_gain_is_too_high():
    clipped = np.clip(sine(440, 16000, 0.5, amplitude=3.0), -1.0, 1.0)
    with pytest.warns(UserWarning, match="clipped"):
        prepare_audio(clipped)


def test_float_audio_above_full_scale_is_divided_by_its_peak_with_a_warning():
    loud = np.array([0.5, -2.0, 1.0], np.float32)
    with pytest.warns(UserWarning, match="divided by its peak"):
        np.testing.assert_array_equal(prepare_audio(loud), [0.25, -1.0, 0.5])
    quiet = np.array([0.5, -1.0, 0.25], np.float32)
    np.testing.assert_array_equal(prepare_audio(quiet), quiet)


def test_nan_is_reported_with_its_index_and_time():
    wave = np.zeros(16000, np.float32)
    wave[8000] = np.nan
    with pytest.raises(ValueError, match=r"at index 8000 \(0\.500 s\)"):
        prepare_audio(wave)


def test_inf_in_a_tuple_is_reported_at_the_tuples_rate():
    wave = np.zeros(8000, np.float32)
    wave[2000] = np.inf
    with pytest.raises(ValueError, match=r"non-finite sample \(inf\) at index 2000 \(0\.250 s\)"):
        prepare_audio((wave, 8000))


@pytest.mark.parametrize("dtype", [bool, np.complex64, object])
def test_non_real_dtypes_are_rejected(dtype):
    with pytest.raises(TypeError, match="real numbers"):
        prepare_audio(np.zeros(100, dtype))


def test_three_dimensional_arrays_are_rejected():
    with pytest.raises(ValueError, match=r"shape \(2, 2, 100\)"):
        prepare_audio(np.zeros((2, 2, 100), np.float32))


def test_unsupported_input_types_are_rejected():
    with pytest.raises(TypeError, match="list"):
        prepare_audio([0.0, 0.1])


def test_path_input_reads_the_file(tmp_path):
    ints = np.array([16384, -16384, 0], "<i2")
    path = write(tmp_path, wav_bytes(ints.tobytes(), bits=16))
    np.testing.assert_array_equal(prepare_audio(path), [0.5, -0.5, 0.0])
    np.testing.assert_array_equal(prepare_audio(str(path)), [0.5, -0.5, 0.0])


def test_output_is_a_fresh_contiguous_array():
    source = np.arange(10, dtype=np.float32)[::2] / 10
    got = prepare_audio(source)
    assert got.flags.c_contiguous and got.flags.writeable
    got[0] = 1.0
    assert source[0] == 0.0, "prepare_audio must not hand back a view of the caller's array"


@pytest.mark.parametrize("n, rate", [(1001, 44100), (44101, 44100), (3, 44100), (4801, 48000), (999, 22050)])
def test_resampling_gives_librosas_length_ceil_of_n_times_the_ratio(n, rate):
    wave = np.random.default_rng(n).uniform(-0.5, 0.5, n).astype(np.float32)
    assert len(resample(wave, rate, 16000)) == -(-n * 16000 // rate)
