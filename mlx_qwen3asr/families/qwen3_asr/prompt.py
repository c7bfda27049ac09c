"""Qwen3-ASR's prompt: the official processor's chat template, rendered and tokenized.

    <|im_start|>system\n{context}<|im_end|>\n<|im_start|>user\n<|audio_start|>   (prompt_head)
    <|audio_pad|> x n_audio
    <|audio_end|><|im_end|>\n<|im_start|>assistant\n[language X<asr_text>]        (prompt_tail)

Qwen3-ASR has no hotword slot: hotwords join the context as one comma-separated line after it
(`prompt_context`), as the official tooling's example does (`-c "Qwen-ASR, DashScope, FFmpeg"`).
"""

from collections.abc import Sequence
from typing import Optional

from ...text.tokenizer import Tokenizer
from .answer import ASR_TEXT_TAG, LANGUAGE_PREFIX
from .languages import LANGUAGES


def prompt_context(context: str, hotwords: Sequence[str] = ()) -> str:
    """The context the prompt holds: `context`, then the hotwords as one comma-separated line."""
    return "\n".join(part for part in (context, ", ".join(hotwords)) if part)


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
    opening, <|audio_start|>. The same for every audio given that context (decode/prefix_cache.py keeps
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
    language = LANGUAGES.check(language)  # a name in any case or a code; one this family takes
    tail = f"{tokenizer.audio_eos_token}<|im_end|>\n<|im_start|>assistant\n"
    if language:
        tail += f"{LANGUAGE_PREFIX}{language}{ASR_TEXT_TAG}"
    return tokenizer.encode(tail)
