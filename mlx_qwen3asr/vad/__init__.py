"""The Silero VAD family: a 1.2 MB voice-activity model (MIT) shipped with its real weights.

    vad = mq.load_vad()
    vad.probabilities("speech.wav")           # float32, one per 32 ms window of 16 kHz audio
    vad.speech_timestamps("speech.wav")       # [(start_s, end_s), ...] as silero-vad's get_speech_timestamps
    stream = vad.stream(); stream.push(block) # live: the probabilities of the windows each block completes

The family's facts (16 kHz, 512-sample windows, 64 samples of context) live in model.py; the
segmenting rule's defaults in timestamps.py.
"""

from .silero import VAD_CHOICES, SileroVad, load_vad, vad_by_name
from .stream import VadStream
from .timestamps import SpeechRule

__all__ = ["VAD_CHOICES", "SileroVad", "SpeechRule", "VadStream", "load_vad", "vad_by_name"]
