"""Token ids <-> text with a checkpoint's own tokenizer (every family's: the Qwen3 vocabulary).

    checkpoint folder (vocab.json, merges.txt, tokenizer_config.json, or tokenizer.json) -> Tokenizer
    text -> encode -> ids;  ids -> decode -> text;  the audio placeholder and end-of-text ids

Each family's prompt and answer parsing are in its folder (families/qwen3_asr/prompt.py, families/fun_asr_nano/prompt.py, ...).

The tokenizer is byte-level BPE built exactly like transformers' Qwen2 fast tokenizer; the
checkpoint ships no tokenizer.json. A leaf module: it imports only the stdlib, `tokenizers` and
the JSON file reader.
"""

from pathlib import Path
from typing import Optional, Union

from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import Tokenizer as _BackendTokenizer

from .jsonfile import corrupt, read_json

# <|endoftext|> and <|im_end|>: generation_config.json's eos_token_id in the released checkpoints.
EOS_TOKEN_IDS = (151643, 151645)
_EOS_TOKENS = ("<|endoftext|>", "<|im_end|>")

# Qwen2Converter's pre-tokenizer split (transformers/convert_slow_tokenizer.py).
_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


TOKENIZER_FILES = ("vocab.json", "merges.txt", "tokenizer_config.json")  # what Tokenizer.from_dir needs


def _split_then_bytes(split_pattern: str) -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(split_pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])  # fmt: skip


def _build_backend(folder: Path, config: dict, split_pattern: Optional[str] = None) -> _BackendTokenizer:
    """The same tokenizer transformers' Qwen2Converter builds from vocab.json + merges.txt
    (`split_pattern` replaces its split regex)."""
    if (folder / "tokenizer.json").is_file():
        backend = _BackendTokenizer.from_file(str(folder / "tokenizer.json"))
        if split_pattern:
            backend.pre_tokenizer = _split_then_bytes(split_pattern)
        return backend
    bpe = _read_bpe(folder)
    backend = _BackendTokenizer(bpe)
    backend.normalizer = normalizers.NFC()
    backend.pre_tokenizer = _split_then_bytes(split_pattern or _SPLIT_PATTERN)
    backend.decoder = decoders.ByteLevel()
    backend.post_processor = processors.ByteLevel(trim_offsets=False)  # offsets only; ids unchanged
    added = sorted(config.get("added_tokens_decoder", {}).items(), key=lambda item: int(item[0]))
    for token_id, spec in added:
        token = AddedToken(
            spec["content"],
            single_word=spec.get("single_word", False),
            lstrip=spec.get("lstrip", False),
            rstrip=spec.get("rstrip", False),
            normalized=spec.get("normalized", not spec.get("special", False)),
            special=spec.get("special", False),
        )
        backend.add_tokens([token])
        got = backend.token_to_id(spec["content"])
        assert got == int(token_id), f"added token {spec['content']!r} got id {got}, not {token_id}"
    return backend


def _read_bpe(folder: Path) -> models.BPE:
    """vocab.json + merges.txt; a cut-off or corrupt one is named with the fix."""
    try:
        return models.BPE.from_file(
            str(folder / "vocab.json"),
            str(folder / "merges.txt"),
            dropout=None,
            unk_token=None,
            continuing_subword_prefix="",
            end_of_word_suffix="",
            fuse_unk=False,
            byte_fallback=False,
        )
    except Exception as e:  # tokenizers raises a bare Exception, naming neither file
        read_json(folder / "vocab.json")  # raises, naming vocab.json, when that is the broken one
        raise corrupt(folder / "merges.txt", e) from e


class Tokenizer:
    """Encode/decode text with the checkpoint's tokenizer; knows the audio and end-of-text ids."""

    def __init__(self, backend: _BackendTokenizer, config: dict, eos_token_ids: Optional[tuple[int, ...]] = None):
        self._backend = backend
        self._eos_token_ids = eos_token_ids  # generation_config.json's, when the folder has one
        extra = config.get("extra_special_tokens", {})
        extra = extra if isinstance(extra, dict) else {}  # transformers 5 may write a plain list of tokens
        self.audio_token = config.get("audio_token", extra.get("audio_token", "<|audio_pad|>"))
        self.audio_bos_token = config.get("audio_bos_token", extra.get("audio_bos_token", "<|audio_start|>"))
        self.audio_eos_token = config.get("audio_eos_token", extra.get("audio_eos_token", "<|audio_end|>"))

    @classmethod
    def from_dir(cls, path: Union[str, Path], split_pattern: Optional[str] = None) -> "Tokenizer":
        """Load from a Qwen3-ASR checkpoint folder (vocab.json, merges.txt, tokenizer_config.json);
        a tokenizer.json there, if any, is used instead of vocab.json + merges.txt.
        `split_pattern`: another pre-tokenizer split regex (MISTRAL_SPLIT_PATTERN for the aligner)."""
        folder = Path(path)
        has_json = (folder / "tokenizer.json").is_file()
        needed = ("tokenizer_config.json",) if has_json else TOKENIZER_FILES
        missing = [name for name in needed if not (folder / name).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{folder} lacks {', '.join(missing)}: pass the folder of a Qwen3-ASR checkpoint "
                f"(it holds {', '.join(TOKENIZER_FILES)} next to the weights)."
            )
        config = read_json(folder / "tokenizer_config.json")
        processor = folder / "processor_config.json"  # transformers 5 keeps the audio placeholder there
        if "audio_token" not in config and processor.is_file():
            audio_token = read_json(processor).get("audio_token")
            config = {**config, "audio_token": audio_token} if isinstance(audio_token, str) else config
        return cls(_build_backend(folder, config, split_pattern), config, _generation_eos(folder))

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; special-token strings in it ("<|im_end|>") become their ids."""
        # encode_batch releases the GIL (encode does not): a 1 MB prompt tokenized on a server thread
        # (~1 s) then leaves the event loop and the other threads running. The ids are the same.
        return self._backend.encode_batch([text], add_special_tokens=False)[0].ids

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        """Text of `ids`; skipping special tokens keeps the non-special `<asr_text>`."""
        return self._backend.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def token_to_id(self, token: str) -> int:
        token_id = self._backend.token_to_id(token)
        if token_id is None:
            raise KeyError(f"Token {token!r} is not in this tokenizer's vocabulary")
        return token_id

    @property
    def audio_pad_id(self) -> int:
        return self.token_to_id(self.audio_token)

    @property
    def audio_start_id(self) -> int:
        return self.token_to_id(self.audio_bos_token)

    @property
    def audio_end_id(self) -> int:
        return self.token_to_id(self.audio_eos_token)

    @property
    def eos_token_ids(self) -> tuple[int, ...]:
        """Ids that end decoding: generation_config.json's eos_token_id (Fun-ASR-Nano: <|im_end|> alone),
        else <|endoftext|> and <|im_end|>."""
        return self._eos_token_ids or tuple(self.token_to_id(token) for token in _EOS_TOKENS)


def _generation_eos(folder: Path) -> Optional[tuple[int, ...]]:
    """eos_token_id of the folder's generation_config.json (an id or a list of ids); None without one."""
    path = folder / "generation_config.json"
    if not path.is_file():
        return None
    eos = read_json(path).get("eos_token_id")
    ids = [eos] if isinstance(eos, int) else eos
    if not isinstance(ids, list) or not ids or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return None
    return tuple(ids)
