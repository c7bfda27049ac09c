"""Text side of Qwen3-ASR: token ids <-> text, the prompt, and parsing of the model's answer.

    checkpoint folder (vocab.json, merges.txt, tokenizer_config.json) -> Tokenizer
    build_prompt(tokenizer, n_audio_tokens, context, language) -> prompt ids (audio pads inside)
        = prompt_head(context) + audio pads + prompt_tail(language)
    generated ids -> Tokenizer.decode -> "language English<asr_text>Hello." -> parse_output
                                                                   -> ("English", "Hello.")

The tokenizer is byte-level BPE built exactly like transformers' Qwen2 fast tokenizer; the
checkpoint ships no tokenizer.json. A leaf module: it imports only the stdlib, `tokenizers` and
the JSON file reader.
"""

import re
from pathlib import Path
from typing import Optional, Union

from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers import Tokenizer as _BackendTokenizer

from .jsonfile import corrupt, read_json
from .layout import TOKENIZER_FILES

# The official list, in the official order.
SUPPORTED_LANGUAGES = (
    "Chinese", "English", "Cantonese", "Arabic", "German", "French", "Spanish", "Portuguese",
    "Indonesian", "Italian", "Korean", "Russian", "Thai", "Vietnamese", "Japanese", "Turkish",
    "Hindi", "Malay", "Dutch", "Swedish", "Danish", "Finnish", "Polish", "Czech", "Filipino",
    "Persian", "Greek", "Romanian", "Hungarian", "Macedonian",
)  # fmt: skip
_NOT_SPACE_DELIMITED = {"chinese", "japanese", "cantonese", "thai"}

# <|endoftext|> and <|im_end|>: generation_config.json's eos_token_id in the released checkpoints.
EOS_TOKEN_IDS = (151643, 151645)
_EOS_TOKENS = ("<|endoftext|>", "<|im_end|>")

ASR_TEXT_TAG = "<asr_text>"  # an added token that is NOT special: decode keeps it
_LANGUAGE_PREFIX = "language "
REPETITION_THRESHOLD = 20  # a character or pattern repeated more than this is a decoding loop
_MAX_PATTERN_LENGTH = 20

# Qwen2Converter's pre-tokenizer split (transformers/convert_slow_tokenizer.py).
_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# The split the official processors really use: they load with fix_mistral_regex=True, and transformers
# 4.57.6 then (config.json says transformers_version 4.57.6) swaps in Mistral's regex, which also splits
# at lower-to-upper case changes: `iPhone` -> `i|Phone`, `GitHub` -> `Git|Hub`. The aligner encodes its
# units with it, so that its prompts are the official ones (tests/fixtures/aligner, "mixed" case).
MISTRAL_SPLIT_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def normalize_language(name: Optional[str]) -> Optional[str]:
    """The canonical name for `name` ("english" -> "English"); None when not given.

    As the official code does: strip, first character upper-cased, the rest lower-cased, then looked
    up, so unusual case forms (a Kelvin sign for "K") are accepted or refused exactly as there.
    """
    if name is None or not str(name).strip():
        return None
    text = str(name).strip()
    canonical = text[:1].upper() + text[1:].lower()
    if canonical not in SUPPORTED_LANGUAGES:
        raise ValueError(
            f"Unsupported language {name!r}: use one of {', '.join(SUPPORTED_LANGUAGES)}, "
            "or None to let the model detect it."
        )
    return canonical


def is_space_delimited(language: str) -> bool:
    """Whether texts in `language` are joined with a space (False for Chinese, Japanese, ...)."""
    return language.strip().lower() not in _NOT_SPACE_DELIMITED


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
    def has_language_header(self) -> bool:
        """Whether answers can open with "language X<asr_text>" (Qwen3-ASR's vocabulary has the tag;
        Fun-ASR-Nano's, Qwen3-0.6B's, does not: its answer is the bare text)."""
        return self._backend.token_to_id(ASR_TEXT_TAG) is not None

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


def build_prompt(
    tokenizer: Tokenizer, n_audio_tokens: int, context: str = "", language: Optional[str] = None
) -> list[int]:
    """Prompt ids exactly as the official processor makes them (its chat template, then encode):
    prompt_head(context) + n_audio_tokens audio pads + prompt_tail(language).

    The official processor tokenizes the whole rendered string; splitting at the audio tokens is
    safe because text never merges across an added token.
    """
    return (
        prompt_head(tokenizer, context) + [tokenizer.audio_pad_id] * n_audio_tokens + prompt_tail(tokenizer, language)
    )


def prompt_head(tokenizer: Tokenizer, context: str = "") -> list[int]:
    """The prompt's ids before the audio: the system turn holding the context, the user turn's
    opening, <|audio_start|>. The same for every audio given that context (prefix_cache.py keeps
    their keys and values).

    The context is not encoded on its own: "system\\n" + context form one piece of text (a leading
    newline in the context merges with the one after "system"), special-token strings written in
    the context ("<|im_end|>") become those tokens, and the context is NFC-normalized like all text.
    A context holding the audio pad token is refused; the official processor fails on it (one
    audio, two pad placeholders).
    """
    if tokenizer.audio_token in context:
        raise ValueError(f"context must not contain {tokenizer.audio_token!r}: remove it")
    return tokenizer.encode(f"<|im_start|>system\n{context}<|im_end|>\n<|im_start|>user\n{tokenizer.audio_bos_token}")


def prompt_tail(tokenizer: Tokenizer, language: Optional[str] = None) -> list[int]:
    """The prompt's ids after the audio: <|audio_end|>, the assistant turn's opening and, with a
    forced `language` (a canonical name, see DecodeOptions), its "language X<asr_text>" header."""
    if language is not None and normalize_language(language) != language:  # unsupported ones raise here
        raise ValueError(f"language {language!r} is not in canonical form: pass {normalize_language(language)!r}")
    tail = f"{tokenizer.audio_eos_token}<|im_end|>\n<|im_start|>assistant\n"
    if language:
        tail += f"{_LANGUAGE_PREFIX}{language}{ASR_TEXT_TAG}"
    return tokenizer.encode(tail)


def _repeated_pattern_length(text: str, start: int, threshold: int) -> int:
    """Length of the shortest pattern at `start` that repeats `threshold` times in a row, else 0."""
    for length in range(1, _MAX_PATTERN_LENGTH + 1):
        if start + length * threshold > len(text):
            return 0
        if text[start : start + length * threshold] == text[start : start + length] * threshold:
            return length
    return 0


def _collapse_repeated_patterns(text: str, threshold: int) -> str:
    """Replace each run of >= `threshold` copies of a pattern (1..20 chars) with one copy.

    Scanning goes left to right and takes the first start and then the shortest pattern. As in the
    official code, a run is looked for only at starts followed by at least 2 * threshold characters,
    so a loop at the very end of the text can survive.
    """
    pieces = []
    emitted = start = 0
    while start <= len(text) - 2 * threshold:
        length = _repeated_pattern_length(text, start, threshold)
        if not length:
            start += 1
            continue
        pattern = text[start : start + length]
        end = start + length * threshold
        while text[end : end + length] == pattern:
            end += length
        pieces.append(text[emitted:start] + pattern)
        emitted = start = end
    pieces.append(text[emitted:])
    return "".join(pieces)


def fix_repetitions(text: str, threshold: int = REPETITION_THRESHOLD) -> str:
    """The official loop clean-up: a character repeated more than `threshold` times in a row becomes
    one character, then runs of `threshold` or more copies of a short pattern become one copy."""
    single_chars = re.sub(rf"(.)\1{{{threshold},}}", r"\1", text, flags=re.DOTALL)
    return _collapse_repeated_patterns(single_chars, threshold)


def _language_from_header(header: str) -> str:
    """ "language english" on the first line that starts with it -> "English"; else ""."""
    for line in header.splitlines():
        line = line.strip()
        if line.lower().startswith(_LANGUAGE_PREFIX):
            name = line[len(_LANGUAGE_PREFIX) :].strip()
            return name[:1].upper() + name[1:].lower()
    return ""


def parse_output(raw: str, forced_language: Optional[str] = None) -> tuple[str, str]:
    """(language, text) of a decoded answer, as the official `parse_asr_output` returns them.

    "language English<asr_text>Hi." -> ("English", "Hi."); no `<asr_text>` -> ("", whole text);
    "language None" (silence) -> ("", text). With `forced_language` (canonical name) the prompt
    already held the header, so the whole answer is text.
    """
    text = raw.strip() if raw else ""
    if not text:
        return "", ""
    text = fix_repetitions(text)
    if forced_language:
        return forced_language, text
    if ASR_TEXT_TAG not in text:
        return "", text.strip()
    header, text = text.split(ASR_TEXT_TAG, 1)
    if "language none" in header.lower():
        return "", text.strip()
    return _language_from_header(header), text.strip()
