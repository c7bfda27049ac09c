"""The seeded text generator's pools for scripts/make_aligner_goldens.py's unit cases: words in many scripts and
languages, separators, and the Korean dictionary words and suffixes (moved out of it verbatim, so the generated
units_cases.json stays byte-identical)."""

import random

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
MIXED = ["我用iPhone打电话", "今天是2024年5月1日", "Python3很好用", "AI人工智能", "GPT-4模型", "第3名", "COVID-19疫情"]
SPECIAL = [
    "😀",
    "👍🏽",
    "❤️",
    "👨\u200d👩\u200d👧",
    "ＡＢＣ",
    "１２３",
    "ｈｅｌｌｏ",
    "，",
    "。",
    "！",
    "「引用」",
    "\u3000",
    "𠀀",
    "𠀁字",
    "豈",
    "\U0002ceb0",
    "ㄅㄆㄇ",
    "Ⅻ",
    "½",
    "²",
    "e\u0301",
    "n\u0303o",
    "\u200b",
    "\ufeff",
    "---",
    "...",
    "''",
    "'quoted'",
    "‘curly’",
    "“double”",
    "a'",
    "'b",
    "x\u00a0y",
    "tab\there",
    "new\nline",
    "ß",
    "ﬁ",
    "İ",
]
JAPANESE = [
    "東京都に住んでいます。",
    "今日はいい天気ですね！",
    "私の名前は田中です",
    "ラーメンを食べたい",
    "カタカナとひらがな",
    "2024年の夏、京都へ行きました。",
    "iPhoneで写真を撮る",
    "すみません、駅はどこですか？",
    "お疲れ様でした",
    "日本語の音声認識はとても難しいです。",
    "ＡＢＣとａｂｃ",
    "「こんにちは」と言った",
    "コーヒー１杯ください",
]
KOREAN_WORDS = ["안녕하세요", "저는", "학생입니다", "감사합니다", "iPhone을", "2024년에", "K-pop", "서울에서", "ㅋㅋㅋ"]
KOREAN_SUFFIXES = [
    "",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "에서",
    "입니다",
    "하세요",
    "했어요",
    "의",
    ".",
    ",",
    "!",
    "?",
]
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
