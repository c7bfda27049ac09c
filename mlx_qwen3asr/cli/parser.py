"""The command line's flags (cli/main.py runs them): inputs, decoding, outputs and the Ray cluster."""

import argparse
import json

from ..families.pyannote.config import DEFAULT_DIARIZER
from ..loading.load import DEFAULT_MODEL, DTYPES
from ..outputs.formats import FORMATS, TIMESTAMPS
from ..vad import VAD_CHOICES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlx-qwen3asr", description="Transcribe audio files with Qwen3-ASR on MLX.")
    parser.add_argument(
        "files",
        nargs="+",
        help="audio files (WAV natively; other formats need ffmpeg); with -o also folders and @manifest.txt",
    )
    _decoding(parser)
    _outputs(parser)
    _subtitles(parser)
    _cluster(parser)
    return parser


def _decoding(parser: argparse.ArgumentParser) -> None:
    """What is decoded and how: the model, language, context, hotwords, budgets, voice activity."""
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    parser.add_argument(
        "--language", default=None, help="force the language: a name or its code, e.g. English or en (default: detect)"
    )
    parser.add_argument("--context", default="", help="text that helps recognition: names, terms, topic")
    parser.add_argument("--context-file", default=None, metavar="FILE", help="the context's text from FILE (UTF-8)")
    parser.add_argument(
        "--hotwords",
        default=None,
        metavar="FILE|LIST",
        help="terms to recognise: a file (one a line) or a comma-separated list (Fun-ASR-Nano: its hotword block; "
        "Qwen3-ASR: a line after the context)",
    )
    parser.add_argument("--dtype", default=None, choices=sorted(DTYPES), help="default: float16 on GPU, float32 on CPU")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="token budget per 30 s chunk")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="30 s chunks decoded together, from all files (default: 16, fewer if memory is short)",
    )
    parser.add_argument(
        "--vad",
        default="energy",
        choices=VAD_CHOICES,
        help="where speech is: energy (decode everything, cut at quiet points; default) or silero (Silero VAD: "
        "only the stretches with speech are decoded, cut in the pauses; noise and music are skipped)",
    )


def _outputs(parser: argparse.ArgumentParser) -> None:
    """What is written: formats, the output folder, word times and speakers."""
    parser.add_argument(
        "-f",
        "--format",
        action="append",
        type=formats,
        help="output format(s): txt (default), json, srt, vtt; e.g. json,srt",
    )
    parser.add_argument(
        "-o", "--output-dir", default=None, help="write one file per input and format here, resumable (see README)"
    )
    parser.add_argument(
        "--aligner",
        default=None,
        help="time each word with this aligner model (folder or hub id), e.g. Qwen/Qwen3-ForcedAligner-0.6B",
    )
    parser.add_argument(
        "--diarize",
        nargs="?",
        const=DEFAULT_DIARIZER,
        default=None,
        metavar="MODEL",
        help=f"label speakers with pyannote's diarizer (folder or hub id; default {DEFAULT_DIARIZER}). With "
        "--aligner every word gets the speaker it overlaps most and segments split where it changes; without, "
        "each segment takes the speaker it overlaps most. Put it after the files or give MODEL",
    )
    parser.add_argument(
        "--timestamps",
        default="segment",
        choices=TIMESTAMPS,
        help="subtitle cues: per segment (word-timed lines with --aligner) or one per word",
    )


def _subtitles(parser: argparse.ArgumentParser) -> None:
    """Readable subtitle cues from the aligner's word times, as openai-whisper's flags (outputs/subtitles.py)."""
    group = parser.add_argument_group("readable subtitles (srt, vtt; need --aligner)")
    group.add_argument("--max-line-width", type=int, default=None, metavar="N", help="characters per line")
    group.add_argument(
        "--max-line-count",
        type=int,
        default=None,
        metavar="N",
        help="lines per cue (with --max-line-width; cues then run across segments, and a 3 s pause ends one)",
    )
    group.add_argument(
        "--max-words-per-line", type=int, default=None, metavar="N", help="words per cue (without --max-line-width)"
    )
    group.add_argument(
        "--highlight-words", action="store_true", help="show each cue once per word, the word underlined (<u>)"
    )


def _cluster(parser: argparse.ArgumentParser) -> None:
    cluster = parser.add_argument_group("many machines (with -o; pip install 'mlx-qwen3asr[ray]')")
    cluster.add_argument(
        "--ray", nargs="?", const="auto", default=None, metavar="ADDRESS", help="decode on Ray workers (default: auto)"
    )
    cluster.add_argument("--workers", type=int, default=None, help="Ray workers (default: as many as fit)")
    cluster.add_argument("--worker-cpus", type=float, default=None, help="CPUs (BLAS threads) per worker")
    cluster.add_argument(
        "--worker-resources", type=resources, default={}, help="per worker, JSON: '{\"GPU\": 1}', '{\"apple_gpu\": 1}'"
    )


def formats(text: str) -> list[str]:
    """-f json,srt -> ["json", "srt"] (argparse turns ArgumentTypeError into its one-line usage error)."""
    chosen = [f.strip() for f in text.split(",") if f.strip()]
    if not chosen or any(f not in FORMATS for f in chosen):
        raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(FORMATS)}")
    return chosen


def resources(text: str) -> dict[str, float]:
    """--worker-resources '{"GPU": 1}' -> {"GPU": 1.0}."""
    try:
        value = json.loads(text)
        return {str(k): float(v) for k, v in value.items()}
    except (ValueError, TypeError, AttributeError) as e:
        raise argparse.ArgumentTypeError(f"{text!r}: give a JSON object of amounts, e.g. '{{\"GPU\": 1}}'") from e
