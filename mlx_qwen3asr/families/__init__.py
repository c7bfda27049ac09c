"""The model families, one folder each, and what they share:

    registry.py    a folder's files -> its family (config.json's model_type, or a release's own files)
    recogniser.py  the Protocol the engine asks of a recogniser (decode/, streaming/, the server use only it)
    speech_lm.py   SpeechLM: the base class of the families built on the Qwen3 decoder
    qwen3_asr/     Qwen3-ASR 0.6B / 1.7B              fun_asr_nano/  Fun-ASR-Nano (SAN-M encoder + Qwen3)
    aligner/       Qwen3-ForcedAligner (word times)   pyannote/      speaker diarization (community-1)
    silero/        Silero VAD's network and weights (vad/ uses it to find speech)

Each folder holds its own facts (languages, context limit, chunk limit, quantization rules, checkpoint
names, CPU swaps); code outside families/ asks the model and never names a family.
"""
