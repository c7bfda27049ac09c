"""SenseVoice's SentencePiece vocabulary (`chn_jpn_yue_eng_ko_spectok.bpe.model`), read without sentencepiece.

    .bpe.model (protobuf ModelProto) -> pieces [(text, type)] in id order
    collapsed CTC ids -> decode (as SentencePiece's DecodeIds) -> "<|en|><|NEUTRAL|><|Speech|><|woitn|>text"
    -> Tagged(language, emotion, event, itn, text without tags)

Why no `sentencepiece` dependency: a CTC model only turns ids into text, and that needs the piece list
and three decoding rules; the package would otherwise take a native wheel for a table lookup. The rules,
as SentencePiece's `DecodeIds` applies them (tests/families/sensevoice check them against it):
- control pieces (<s>, </s>) give nothing; the unknown piece gives " ⁇ " (blank 0 is <unk> and is dropped
  before decoding, so it never shows);
- "▁" (U+2581) is a space; the first piece that gives text loses one leading "▁" (add_dummy_prefix);
- user-defined pieces (the tags <|en|>, <|HAPPY|>, <|Speech|>, <|withitn|>, ...) are their own text.

Tags are told apart by their piece text, never by id: only a few ids are fixed in funasr's code.
"""

import re
from dataclasses import dataclass
from pathlib import Path

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6  # SentencePiece.Type
SPACE = "\u2581"
UNKNOWN_SURFACE = " \u2047 "
TAG = re.compile(r"<\|([^|<>]+)\|>")
EMOTIONS = ("HAPPY", "SAD", "ANGRY", "NEUTRAL", "FEARFUL", "DISGUSTED", "SURPRISED", "EMO_UNKNOWN")
TEXT_NORMS = ("withitn", "woitn")  # lower case like the language codes (<|en|>, <|yue|>, <|nospeech|>)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at


def _fields(data: bytes):
    """(field number, wire type, value) of one protobuf message: ints for varints, bytes for lengths."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def read_pieces(path: Path) -> list[tuple[str, int]]:
    """(piece text, type) in id order from a SentencePiece model file (ModelProto field 1)."""
    data = Path(path).read_bytes()
    pieces = []
    try:
        for number, wire, value in _fields(data):
            if number == 1 and wire == 2:
                fields = {n: v for n, _, v in _fields(value)}
                pieces.append((fields.get(1, b"").decode("utf-8"), fields.get(3, NORMAL)))
    except (IndexError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path} is not a SentencePiece model: re-download the release's .bpe.model") from e
    if not pieces:
        raise ValueError(f"{path} holds no pieces: re-download the release's .bpe.model")
    return pieces


def utf8_text(data: bytes) -> str:
    """UTF-8 bytes as text, as SentencePiece decodes byte pieces: each byte of no valid character gives one U+FFFD
    (Python's "replace" gives one for a cut-off sequence: E4 BD -> one, SentencePiece two)."""
    out, at = [], 0
    while at < len(data):
        for size in (1, 2, 3, 4):
            try:
                out.append(data[at : at + size].decode("utf-8"))
                at += size
                break
            except UnicodeDecodeError:
                continue
        else:
            out.append("\ufffd")
            at += 1
    return "".join(out)


@dataclass(frozen=True)
class Tagged:
    """What one pass said: the tags by kind ("" when absent: the first of each kind counts) and the text."""

    language: str  # the tag's code: "en", "zh", "yue", "nospeech", ...
    emotion: str  # "HAPPY", "NEUTRAL", ..., "EMO_UNKNOWN"
    event: str  # "Speech", "BGM", "Laughter", ...
    itn: str  # "withitn" / "woitn"
    text: str  # without tags, surrounding spaces removed


class Vocabulary:
    """The pieces of a SentencePiece model, decoded as SentencePiece decodes them."""

    def __init__(self, pieces: list[tuple[str, int]]):
        self.pieces = [text for text, _ in pieces]
        self.types = [kind for _, kind in pieces]

    @classmethod
    def from_file(cls, path: Path) -> "Vocabulary":
        return cls(read_pieces(path))

    def __len__(self) -> int:
        return len(self.pieces)

    def decode(self, ids: list[int]) -> str:
        """The text SentencePiece's DecodeIds gives for `ids` (tags kept; byte pieces <0xE4> joined as UTF-8)."""
        out, at_start = [], True
        for kind, piece in self._merged_bytes(ids):
            if kind == CONTROL:
                continue
            text = UNKNOWN_SURFACE if kind == UNKNOWN else piece
            if at_start and kind != UNKNOWN and text.startswith(SPACE):
                text = text[1:]
            text = text.replace(SPACE, " ")
            at_start = at_start and not text
            out.append(text)
        return "".join(out)

    def _merged_bytes(self, ids: list[int]):
        """(type, text) per id, each run of byte-fallback pieces (<0x..>) made one piece of UTF-8 text."""
        run: list[int] = []
        for i in ids:
            if self.types[i] == BYTE:
                run.append(int(self.pieces[i][3:-1], 16))
                continue
            if run:
                yield NORMAL, utf8_text(bytes(run))
                run = []
            yield self.types[i], self.pieces[i]
        if run:
            yield NORMAL, utf8_text(bytes(run))

    @staticmethod
    def kind(tag: str) -> str:
        """ "itn", "language", "emotion" or "event" for a tag's inner text, by its spelling: the text-norm
        and language tags are lower case (<|woitn|>, <|en|>, <|nospeech|>), emotions upper case
        (<|HAPPY|>, <|EMO_UNKNOWN|>), events capitalised (<|Speech|>, <|BGM|>, <|Event_UNK|>)."""
        if tag in TEXT_NORMS:
            return "itn"
        if tag.islower():
            return "language"
        return "emotion" if tag in EMOTIONS else "event"

    def parse(self, ids: list[int]) -> Tagged:
        """Decode `ids` and take the tags out: the first tag of each kind, and the text without any tag."""
        raw = self.decode(ids)
        found: dict[str, str] = {}
        for match in TAG.finditer(raw):
            found.setdefault(self.kind(match.group(1)), match.group(1))
        text = TAG.sub("", raw).strip()
        return Tagged(
            found.get("language", ""), found.get("emotion", ""), found.get("event", ""), found.get("itn", ""), text
        )

    def is_tag(self, i: int) -> bool:
        return self.types[i] == USER_DEFINED and TAG.fullmatch(self.pieces[i]) is not None
