"""Unit-splitting and timestamp-repair goldens from the official aligner. DEV ONLY: needs qwen-asr.

    /tmp/refenv/bin/python scripts/make_aligner_goldens.py     (set-up: tests/fixtures/aligner/README.md)

    seeded generator -> texts in many scripts and languages
      -> official Qwen3ForceAlignProcessor.encode_timestamp(text, language)[0]  -> units_cases.json
    seeded generator -> class sequences (monotonic, noisy, ties, plateaus, spikes, all equal, single)
      -> official fix_timestamp(classes x 80 as float32)                        -> repair_cases.json

Both files are deterministic: a rerun rewrites them byte for byte.
"""

import json
import random
from pathlib import Path

import numpy as np
from qwen_asr.inference.qwen3_forced_aligner import Qwen3ForceAlignProcessor

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "tests/fixtures/aligner"
SEGMENT_TIME_MS = 80.0  # timestamp_segment_time in the aligner's config.json
N_CLASSES = 5000  # classify_num

WORDS = {
    "English": "hello world the quick brown fox jumps over lazy dog speech recognition is fun today "
    "don't it's rock'n'roll o'clock e-mail well-known state-of-the-art U.S.A. Mr. Dr. iPhone GitHub "
    "3.14 1,000 42 2nd 10% $5 9:30 24/7 C++ #hashtag @user foo_bar a/b x.y.z",
    "German": "Größe Straße „Hallo“ über schön Mädchen heißt Ärger Öl 3,5 Bücher",
    "French": "l'homme aujourd'hui « bonjour » élève garçon où naïve c'est-à-dire Noël",
    "Spanish": "¿Qué tal? ¡Hola! niño año pingüino está canción corazón",
    "Portuguese": "ação não coração pão você está órgão avô",
    "Italian": "perché dell'anno città più caffè l'amico è così",
    "Russian": "Привет, мир! ёлка съешь ещё этих мягких французских булок 2024 года",
    "Arabic": "مرحبا بالعالم اللغة العربية ١٢٣",
    "Hindi": "नमस्ते दुनिया हिंदी भाषा १२३",
    "Thai": "สวัสดี ภาษาไทย ครับ",
    "Vietnamese": "Tiếng Việt xin chào cảm ơn người",
    "Greek": "Γειά σου κόσμε ελληνικά",
}
CHINESE = "今天天气很好我们去公园散步吧语音识别是一项很有用的技术北京上海深圳"
CANTONESE = "佢哋喺度食緊飯你食咗未呢度嘅嘢好好食"
CHINESE_PUNCT = "，。！？、“”《》：；（）…—"
MIXED = ["我用iPhone打电话", "今天是2024年5月1日", "Python3很好用", "AI人工智能", "GPT-4模型", "第3名",
         "COVID-19疫情"]
SPECIAL = [
    "😀", "👍🏽", "❤️", "👨\u200d👩\u200d👧", "ＡＢＣ", "１２３", "ｈｅｌｌｏ", "，", "。", "！", "「引用」", "\u3000",
    "𠀀", "𠀁字", "豈", "\U0002ceb0", "ㄅㄆㄇ", "Ⅻ", "½", "²", "e\u0301", "n\u0303o", "\u200b", "\ufeff", "---", "...",
    "''", "'quoted'", "‘curly’", "“double”", "a'", "'b", "x\u00a0y", "tab\there", "new\nline", "ß", "ﬁ", "İ",
]
JAPANESE = [
    "東京都に住んでいます。", "今日はいい天気ですね！", "私の名前は田中です", "ラーメンを食べたい", "カタカナとひらがな",
    "2024年の夏、京都へ行きました。", "iPhoneで写真を撮る", "すみません、駅はどこですか？", "お疲れ様でした",
    "日本語の音声認識はとても難しいです。", "ＡＢＣとａｂｃ", "「こんにちは」と言った", "コーヒー１杯ください",
]
KOREAN_WORDS = ["안녕하세요", "저는", "학생입니다", "감사합니다", "iPhone을", "2024년에", "K-pop", "서울에서", "ㅋㅋㅋ"]
KOREAN_SUFFIXES = ["", "은", "는", "이", "가", "을", "를", "에서", "입니다", "하세요", "했어요", "의", ".", ",", "!", "?"]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", "\u3000", ""]


def spellings(language: str) -> list[str]:
    return [language, language.lower(), language.upper()]


def sentence(rng: random.Random, pool: list[str], n_max: int = 12, separators=SEPARATORS) -> str:
    parts = [rng.choice(pool) for _ in range(rng.randint(1, n_max))]
    text = ""
    for part in parts:
        text += part + rng.choice(separators)
    return text.strip() if rng.random() < 0.7 else text


def korean_text(rng: random.Random, dictionary: list[str]) -> str:
    words = []
    for _ in range(rng.randint(1, 8)):
        kind = rng.random()
        if kind < 0.5:
            word = rng.choice(dictionary) + rng.choice(KOREAN_SUFFIXES)
        elif kind < 0.8:  # random Hangul syllables, mostly not in the dictionary
            word = "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(1, 6)))
        else:
            word = rng.choice(KOREAN_WORDS)
        words.append(word)
    return " ".join(words)


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
    cases += [("English", ""), ("English", "   "), ("English", "... !!! ,,,"), ("Korean", ""), ("Japanese", ""),
              ("Chinese", "。"), ("Japanese", "。、！"), ("Korean", "?! ..."), ("English", "'")]
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
    sequences += [[7], [0, 0], [5, 1], [1, 5, 1], [9, 1, 2, 3], [1, 2, 3, 0], [4, 0, 0, 0, 4], [2, 1], [3, 2, 1],
                  [0, 100, 2, 3, 4, 200, 0, 1], [10, 20, 5, 5, 5, 30], [1, 3, 2, 4], [50, 10, 20, 30, 40, 60]]
    cases = []
    for classes in sequences:
        times = (np.asarray(classes, dtype=np.int64) * np.float32(SEGMENT_TIME_MS)).astype(np.float32)
        cases.append({"classes": classes, "repaired_ms": processor.fix_timestamp(times)})
    return cases


def write_cases(path: Path, cases: list[dict], header: str = "") -> None:
    """One case per line, so that a regeneration shows up as a readable diff."""
    lines = ",\n".join(json.dumps(case, ensure_ascii=False) for case in cases)
    path.write_text(f'{{{header}"cases": [\n{lines}\n]}}\n', encoding="utf-8")


def main() -> None:
    processor = Qwen3ForceAlignProcessor()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    units = unit_cases(processor, random.Random(15))
    repairs = repair_cases(processor, random.Random(16))
    write_cases(OUT_DIR / "units_cases.json", units)
    write_cases(OUT_DIR / "repair_cases.json", repairs, f'"segment_time_ms": {SEGMENT_TIME_MS}, ')
    print(f"{len(units)} unit cases, {len(repairs)} repair cases -> {OUT_DIR}")


if __name__ == "__main__":
    main()
