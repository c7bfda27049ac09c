"""SenseVoiceSmall (FunAudioLLM): a non-autoregressive recogniser, one SAN-M encoder pass and a CTC head,
with language, emotion and audio-event tags. model.py holds the data flow; release.py reads the folders."""
