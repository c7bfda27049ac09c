"""Fun-ASR-Nano (FunAudioLLM/Fun-ASR-Nano-2512): its front end, SAN-M encoder and adaptor in front of
our Qwen3 decoder. `mq.load` builds a FunAsrNano from a folder whose config.json says fun_asr_nano."""

from .config import FunAsrNanoArgs
from .model import FunAsrNano

__all__ = ["FunAsrNano", "FunAsrNanoArgs"]
