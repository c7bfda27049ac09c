"""Fun-ASR-Nano's prompt: the official processor's chat template, rendered and tokenized.

    <|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n
    [context or hotwords:] 请结合上下文信息，更加准确地完成语音转写任务。如果没有相关信息，我们会留空。\\n\\n\\n**上下文信息：**\\n\\n\\n
                           [context + "\\n"] [热词列表：[kw1, kw2]\\n]
    语音转写[成{中文|英文|日文}]：<|object_ref_start|> x T<|im_end|>\\n<|im_start|>assistant\\n

The answer is the bare transcript (no language header) ended by <|im_end|>. The official processor
tokenizes the whole rendered string; splitting it at the audio placeholders is the same, since text
never merges across an added token. Our `context=""` means "no context" (the official `prompt=None`):
the official `prompt=""` would still emit the context header with an empty line.
"""

from collections.abc import Sequence
from typing import Optional

from ...text.languages import Languages

SYSTEM = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
CONTEXT_HEADER = (
    "请结合上下文信息，更加准确地完成语音转写任务。如果没有相关信息，我们会留空。\n\n\n**上下文信息：**\n\n\n"
)
HOTWORDS = "热词列表：[{}]\n"
TASK = "语音转写{}："
TAIL = "<|im_end|>\n<|im_start|>assistant\n"
LANGUAGES = Languages("Fun-ASR-Nano", ("Chinese", "English", "Japanese"))  # what `language=` can force
INSTRUCTION_NAMES = {"Chinese": "中文", "English": "英文", "Japanese": "日文"}  # as the instruction writes them


def instruction_language(language: Optional[str]) -> str:
    """The name the instruction uses for `language` ("English", "en", "英文" -> "英文"); "" for None."""
    if language is not None and str(language).strip() in INSTRUCTION_NAMES.values():
        return str(language).strip()
    name = LANGUAGES.check(language)  # a name in any case or a code; one line naming the list otherwise
    return INSTRUCTION_NAMES[name] if name else ""


def prompt_text(context: Optional[str], language: Optional[str], keywords: Sequence[str] = ()) -> tuple[str, str]:
    """(text before the audio placeholders, text after them) of the rendered chat template."""
    head = SYSTEM
    if context or keywords:
        head += CONTEXT_HEADER + (f"{context}\n" if context else "")
        head += HOTWORDS.format(", ".join(keywords)) if keywords else ""
    language = instruction_language(language)
    return head + TASK.format(f"成{language}" if language else ""), TAIL


def build_prompt(
    tokenizer, n_audio: int, context: Optional[str] = "", language: Optional[str] = None, keywords: Sequence[str] = ()
) -> list[int]:
    """Prompt ids as `FunAsrNanoProcessor.apply_transcription_request(audio, language, prompt=context or
    None, keywords=keywords)` makes them: n_audio placeholders between the two texts."""
    for text in (context or "", *keywords):
        if tokenizer.audio_token in text:
            raise ValueError(f"context and hotwords must not contain {tokenizer.audio_token!r}: remove it")
    head, tail = prompt_text(context, language, tuple(keywords))
    return tokenizer.encode(head) + [tokenizer.audio_pad_id] * n_audio + tokenizer.encode(tail)
