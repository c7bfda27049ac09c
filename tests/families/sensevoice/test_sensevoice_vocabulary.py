"""The SentencePiece vocabulary read without sentencepiece: pieces, decoding, tags found by their text."""

import pytest

from mlx_qwen3asr.families.sensevoice.vocabulary import Vocabulary, read_pieces
from mlx_qwen3asr.testing.random_sensevoice import REAL_VOCAB, vocabulary, write_sentencepiece


@pytest.fixture(scope="module", params=[600, REAL_VOCAB], ids=["tiny", "real"])
def vocab(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("bpe") / "x.bpe.model"
    write_sentencepiece(path, vocabulary(request.param))
    return Vocabulary.from_file(path)


def ids(vocab: Vocabulary, *pieces: str) -> list[int]:
    return [vocab.pieces.index(p) for p in pieces]


def test_the_pieces_are_read_in_id_order_with_their_types(vocab):
    assert vocab.pieces[:3] == ["<unk>", "<s>", "</s>"]
    assert vocab.types[:3] == [2, 3, 3], "unknown, control, control"
    assert vocab.types[vocab.pieces.index("<|en|>")] == 4, "tags are user-defined symbols"


def test_tags_are_found_by_their_text_wherever_their_ids_are(vocab):
    tagged = vocab.parse(ids(vocab, "<|en|>", "<|HAPPY|>", "<|Laughter|>", "<|withitn|>", "\u2581a", "b", "\u2581c"))
    assert (tagged.language, tagged.emotion, tagged.event, tagged.itn) == ("en", "HAPPY", "Laughter", "withitn")
    assert tagged.text == "ab c"


def test_the_real_layout_keeps_the_ids_funasr_fixes():
    pieces = [text for text, _ in vocabulary(REAL_VOCAB)]
    fixed = {24884: "zh", 24885: "en", 24888: "yue", 24892: "ja", 24896: "ko", 24992: "nospeech"}
    fixed |= {25001: "HAPPY", 25002: "SAD", 25003: "ANGRY", 25004: "NEUTRAL", 25009: "EMO_UNKNOWN"}
    fixed |= {25016: "withitn", 25017: "woitn"}
    assert {i: pieces[i] for i in fixed} == {i: f"<|{tag}|>" for i, tag in fixed.items()}
    tiny = [text for text, _ in vocabulary(600)]
    assert tiny.index("<|en|>") != pieces.index("<|en|>"), "the tiny layout moves the tags on purpose"


def test_decoding_follows_sentencepiece(vocab):
    # the first piece that gives text loses its leading "▁"; later ones keep it as a space; control pieces vanish
    assert vocab.decode(ids(vocab, "\u2581a", "b", "\u2581c")) == "ab c"
    assert vocab.decode(ids(vocab, "<s>", "\u2581a")) == "a"
    assert vocab.decode(ids(vocab, "<|en|>", "\u2581a")) == "<|en|> a", "a tag is text: the space stays"
    assert vocab.decode(ids(vocab, "<unk>", "\u2581a")) == " \u2047  a"


def test_several_tags_of_one_kind_keep_the_first_and_none_leave_it_empty(vocab):
    tagged = vocab.parse(ids(vocab, "<|zh|>", "<|en|>", "\u2581a"))
    assert tagged.language == "zh" and tagged.emotion == "" and tagged.event == ""


def test_a_file_that_is_not_a_sentencepiece_model_is_named(tmp_path):
    path = tmp_path / "x.bpe.model"
    path.write_bytes(b"\xff\xff\xff")
    with pytest.raises(ValueError, match="x.bpe.model"):
        read_pieces(path)


def test_byte_fallback_pieces_join_into_utf8_text():
    pieces = [("<unk>", 2), ("<s>", 3), ("</s>", 3), ("\u2581a", 1), *((f"<0x{b:02X}>", 6) for b in "你".encode())]
    vocab = Vocabulary(pieces)
    assert vocab.decode([3, 4, 5, 6, 3]) == "a\u4f60 a"
    # a cut-off character: one U+FFFD per byte, as sentencepiece 0.2.3 decodes it (checked there)
    assert vocab.decode([4, 5, 3]) == "\ufffd\ufffd a"
