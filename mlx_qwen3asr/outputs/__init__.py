"""What a transcription becomes: text, JSON, SRT/VTT/TSV files (outputs/formats.py, outputs/subtitles.py), speaker
labels (outputs/speakers.py) and progress bars (outputs/progress.py)."""
