"""The echo guard: a chunk whose text only repeats the context, over audio without speech, gives "".

    decoded text + context + the chunk's audio
    -> echoes_context: ECHO_SHARE or more of the text's words are words of the context
       (the context itself, nearly, or a run of its hotwords)
    -> and no speech by the voice-activity rule with its noise floor (vad/energy.py VoiceActivity:
       silence, steady noise and hum never start speech)
    -> the segment's text becomes "" and `Segment.context_echo` says why (its token_ids keep what
       was decoded)

With a long context, Qwen3-ASR sometimes writes the context back when it hears no speech (music,
noise, silence). Offline chunks are decoded when they hold any onset above -60 dBFS (a recording's
steady background may carry speech), so such a chunk can reach the decoder; the full rule, run on
the chunk alone, then judges whether anything was said. Speech never loses its text here: the rule
needs both an echo and no speech. Live and streaming decoding already keep silence and steady noise
from the decoder with the same rule; a live final is a `transcribe` call and gets this guard too.
"""

import re
import unicodedata

import numpy as np

from ..vad.energy import VoiceActivity

ECHO_SHARE = 0.8  # this share of a text's words found in the context makes it an echo
# One word: a run of letters/digits, except that each Chinese, Japanese or Korean character is a
# word of its own (those scripts do not separate words with spaces).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")


def words(text: str) -> list[str]:
    """The words of `text`, case-folded and NFKC-normalised."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def echoes_context(text: str, context: str) -> bool:
    """Whether at least ECHO_SHARE of the text's words are words of the context."""
    said = words(text)
    if not said or not context.strip():
        return False
    vocabulary = set(words(context))
    return sum(word in vocabulary for word in said) >= ECHO_SHARE * len(said)


def heard_speech(wave: np.ndarray) -> bool:
    """Whether the voice-activity rule, noise floor included, finds speech in `wave` (16 kHz)."""
    return bool(VoiceActivity().push(np.asarray(wave, np.float32)).any())


def is_context_echo(text: str, context: str, wave: np.ndarray) -> bool:
    """The decoded `text` only repeats the `context`, and the audio it came from holds no speech."""
    return echoes_context(text, context) and not heard_speech(wave)
