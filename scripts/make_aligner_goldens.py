"""Goldens from the official Qwen3-ForcedAligner (qwen-asr 0.0.6). DEV ONLY: needs torch + qwen-asr.

    /tmp/refenv/bin/python -m scripts.make_aligner_goldens     (set-up: tests/fixtures/aligner/README.md)

    seeded generator -> texts in many scripts and languages
      -> official Qwen3ForceAlignProcessor.encode_timestamp(text, language)[0]  -> units_cases.json
    seeded generator -> class sequences (monotonic, noisy, ties, plateaus, spikes, all equal, single)
      -> official fix_timestamp(classes x 80 as float32)                        -> repair_cases.json
    random_aligner.write_random_aligner(tiny, seed 0, listening gains) -> official Qwen3ForcedAligner,
    float32 CPU, as shipped (full encoder attention) and with the encoder windowed to its cu_seqlens
    (as make_goldens.py does for the ASR model); MODEL_CASES (clip, text, language) on the committed clips
      -> .align() words + the thinker's prompt ids and logits        -> tiny_model_cases.json (ids, classes,
         words) + tiny_model_logits.npz (top-k logits at each <timestamp>, the encoder output of the long clip)

The text and repair files are deterministic (seeded generators); the model files depend on torch's float32
arithmetic only.
"""

import json
import random
import tempfile
from pathlib import Path

import numpy as np
import soundfile
import torch
from qwen_asr.inference.qwen3_forced_aligner import Qwen3ForceAlignProcessor, Qwen3ForcedAligner

from mlx_qwen3asr.testing.random_aligner import tiny_aligner_config, write_random_aligner
from scripts.aligner_texts import (
    CANTONESE,
    CHINESE,
    CHINESE_PUNCT,
    JAPANESE,
    MIXED,
    SPECIAL,
    WORDS,
    korean_text,
    sentence,
    spellings,
)
from scripts.make_goldens import window_attention

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tests/fixtures/aligner"
SAMPLE_RATE = 16000
SEGMENT_TIME_MS = 80.0  # timestamp_segment_time in the aligner's config.json
N_CLASSES = 5000  # classify_num
AUDIO_DIR = ROOT / "tests/fixtures/audio"
TOP_K = 8  # logits kept at each <timestamp> position
# name -> (clip, text, language, encoder attention). "long" is 15.7 s: windows of 104 + 100 tokens.
MODEL_CASES = {
    "english": ("short", "Hello world, this is a short speech test.", "English", "full"),
    "chinese": ("short", "今天天气很好，我们去公园散步吧。", "Chinese", "full"),
    "mixed": ("short", "我用iPhone打电话, GPT-4模型 and COVID-19疫情 GitHub", "Chinese", "full"),
    "punctuation": (
        "exact",
        "don't e-mail the U.S.A. rock'n'roll at o'clock, well-known state-of-the-art!",
        "English",
        "full",
    ),
    "numbers": ("exact", "3.14 1,000 42 2nd 10% $5 9:30 24/7 2024年5月1日", "English", "full"),
    "korean": ("short", "안녕하세요 저는 학생입니다. 서울에서 iPhone을 샀어요", "Korean", "full"),
    "japanese": ("short", "東京都に住んでいます。iPhoneで写真を撮る", "Japanese", "full"),
    "no_language_rule": ("short", "Größe Straße, naïve café", "German", "full"),
    "punctuation_only": ("short", "... !!! ,,,", "English", "full"),
    "long_full": (
        "long",
        "Speech recognition turns spoken words into written text. This passage is long enough "
        "to cover more than one attention window of the audio encoder, so the model must process "
        "several windows of eight seconds each.",
        "English",
        "full",
    ),
}
MODEL_CASES["long_windowed"] = (*MODEL_CASES["long_full"][:3], "windowed")


def unit_cases(processor: Qwen3ForceAlignProcessor, rng: random.Random) -> list[dict]:
    dictionary = sorted(processor.ko_score)
    space_words = [w for words in WORDS.values() for w in words.split()]
    cases: list[tuple[str, str]] = []
    for name, words in WORDS.items():
        for _ in range(12):
            cases.append((rng.choice(spellings(name)), sentence(rng, words.split() + SPECIAL[:4])))
    for _ in range(30):
        cases.append(("Chinese", sentence(rng, list(CHINESE) + list(CHINESE_PUNCT) + MIXED, 20, ["", "", " "])))
    for _ in range(15):
        cases.append(("Cantonese", sentence(rng, list(CANTONESE) + list(CHINESE_PUNCT), 16, ["", " "])))
    for _ in range(40):
        pool = space_words + list(CHINESE) + MIXED + SPECIAL
        cases.append((rng.choice(["English", "Chinese", "", "German", "unknown"]), sentence(rng, pool, 10)))
    for _ in range(25):
        cases.append((rng.choice(["English", "Chinese"]), sentence(rng, SPECIAL, 6)))
    for _ in range(45):
        cases.append((rng.choice(spellings("Korean")), korean_text(rng, dictionary)))
    for _ in range(35):
        text = sentence(rng, JAPANESE + MIXED + SPECIAL[:8], 4, ["", " ", "\n"])
        cases.append((rng.choice(spellings("Japanese")), text))
    cases += [
        ("English", ""),
        ("English", "   "),
        ("English", "... !!! ,,,"),
        ("Korean", ""),
        ("Japanese", ""),
        ("Chinese", "。"),
        ("Japanese", "。、！"),
        ("Korean", "?! ..."),
        ("English", "'"),
    ]
    return [
        {"language": language, "text": text, "units": processor.encode_timestamp(text, language)[0]}
        for language, text in cases
    ]


def class_sequence(rng: random.Random, kind: str) -> list[int]:
    n = rng.choice([1, 2, 3, 4, 6, 8, 12, 20, 40, 80])
    top = rng.choice([10, 50, 400, N_CLASSES - 1])
    if kind == "random":
        return [rng.randint(0, top) for _ in range(n)]
    if kind == "equal":
        return [rng.randint(0, top)] * n
    if kind == "decreasing":
        return sorted((rng.randint(0, top) for _ in range(n)), reverse=True)
    values = sorted(rng.randint(0, top) for _ in range(n))
    if kind == "ties":  # few distinct values: many equally long subsequences
        values = [rng.choice([3, 5, 7]) for _ in range(n)]
    for _ in range(rng.randint(1, 4) if kind == "noisy" else 0):
        start, length = rng.randrange(n), rng.choice([1, 1, 2, 3, 5])
        for k in range(start, min(n, start + length)):
            values[k] = rng.randint(0, top)
    return values


def repair_cases(processor: Qwen3ForceAlignProcessor, rng: random.Random) -> list[dict]:
    kinds = ["sorted", "noisy", "noisy", "noisy", "random", "ties", "equal", "decreasing"]
    sequences = [class_sequence(rng, kind) for kind in kinds for _ in range(40)]
    sequences += [
        [7],
        [0, 0],
        [5, 1],
        [1, 5, 1],
        [9, 1, 2, 3],
        [1, 2, 3, 0],
        [4, 0, 0, 0, 4],
        [2, 1],
        [3, 2, 1],
        [0, 100, 2, 3, 4, 200, 0, 1],
        [10, 20, 5, 5, 5, 30],
        [1, 3, 2, 4],
        [50, 10, 20, 30, 40, 60],
    ]
    cases = []
    for classes in sequences:
        times = (np.asarray(classes, dtype=np.int64) * np.float32(SEGMENT_TIME_MS)).astype(np.float32)
        cases.append({"classes": classes, "repaired_ms": processor.fix_timestamp(times)})
    return cases


def write_cases(path: Path, cases: list[dict], header: str = "") -> None:
    """One case per line, so that a regeneration shows up as a readable diff."""
    lines = ",\n".join(json.dumps(case, ensure_ascii=False) for case in cases)
    path.write_text(f'{{{header}"cases": [\n{lines}\n]}}\n', encoding="utf-8")


def official_aligner(folder: Path, attention: str) -> Qwen3ForcedAligner:
    aligner = Qwen3ForcedAligner.from_pretrained(str(folder), dtype=torch.float32)
    aligner.model.eval()
    if attention == "windowed":
        window_attention(aligner.model.thinker.audio_tower)
    return aligner


def model_case(aligner: Qwen3ForcedAligner, wave: np.ndarray, text: str, language: str) -> tuple[dict, dict]:
    """The official .align() result, with the thinker's prompt ids, logits and encoder output captured."""
    thinker, seen = aligner.model.thinker, {}
    hooks = [
        thinker.register_forward_hook(
            lambda m, args, kwargs, out: seen.update(ids=kwargs["input_ids"][0], logits=out.logits[0]),
            with_kwargs=True,
        ),
        thinker.audio_tower.register_forward_hook(lambda m, args, out: seen.update(audio=out.last_hidden_state)),
    ]
    with torch.inference_mode():
        items = aligner.align(audio=(wave, SAMPLE_RATE), text=text, language=language)[0]
    for hook in hooks:
        hook.remove()
    at_timestamps = seen["logits"][seen["ids"] == aligner.timestamp_token_id].float()
    top = torch.topk(at_timestamps, TOP_K, dim=-1)
    case = {
        "prompt_ids": seen["ids"].tolist(),
        "classes": at_timestamps.argmax(-1).tolist(),
        "words": [[item.text, item.start_time, item.end_time] for item in items],
    }
    arrays = {
        "top_ids": top.indices.numpy().astype(np.int32),
        "top_logits": top.values.numpy(),
        "encoder_out": seen["audio"].float().numpy(),
    }
    return case, arrays


def model_goldens(folder: Path) -> tuple[list[dict], dict[str, np.ndarray]]:
    aligners = {attention: official_aligner(folder, attention) for attention in ("full", "windowed")}
    cases, arrays = [], {}
    for name, (clip, text, language, attention) in MODEL_CASES.items():
        pcm, rate = soundfile.read(AUDIO_DIR / f"{clip}.wav", dtype="int16")
        assert rate == SAMPLE_RATE, rate
        case, tensors = model_case(aligners[attention], pcm.astype(np.float32) / 32768.0, text, language)
        cases.append({"name": name, "clip": clip, "text": text, "language": language, "attention": attention, **case})
        keep = tensors if clip == "long" else {k: v for k, v in tensors.items() if k != "encoder_out"}
        arrays.update({f"{name}/{key}": value for key, value in keep.items()})
        margins = tensors["top_logits"][:, 0] - tensors["top_logits"][:, 1] if len(case["classes"]) else []
        print(f"{name}: {len(case['words'])} words, min top-2 margin {min(margins, default=0):.4f}")
    return cases, arrays


def main() -> None:
    processor = Qwen3ForceAlignProcessor()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    units = unit_cases(processor, random.Random(15))
    repairs = repair_cases(processor, random.Random(16))
    write_cases(OUT_DIR / "units_cases.json", units)
    write_cases(OUT_DIR / "repair_cases.json", repairs, f'"segment_time_ms": {SEGMENT_TIME_MS}, ')
    print(f"{len(units)} unit cases, {len(repairs)} repair cases -> {OUT_DIR}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_random_aligner(Path(tmp) / "tiny", tiny_aligner_config(), seed=0, listening=True)
        cases, arrays = model_goldens(folder)
    write_cases(OUT_DIR / "tiny_model_cases.json", cases, '"checkpoint": "tiny, seed 0, listening gains", ')
    np.savez_compressed(OUT_DIR / "tiny_model_logits.npz", **arrays)
    print(f"{len(cases)} model cases -> {OUT_DIR}")


if __name__ == "__main__":
    main()
