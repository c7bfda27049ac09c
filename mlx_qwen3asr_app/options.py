"""Command-line options of `mlx-qwen3asr-dictate` (= `python -m mlx_qwen3asr_app`, `scripts/dictate.sh`)."""

import argparse

from mlx_qwen3asr.loading.load import DEFAULT_MODEL
from mlx_qwen3asr.streaming.segmenter import MIN_MAX_UTTERANCE_SECONDS, MIN_PAUSE_SECONDS
from mlx_qwen3asr.streaming.utterances import PARTIALS
from mlx_qwen3asr.vad import VAD_CHOICES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mlx-qwen3asr-dictate",
        description="Live dictation: speak, and the terminal writes what you say. Keys: p pauses/resumes "
        "listening, c copies the transcript. Ctrl-C finishes what was captured, prints a summary "
        "and exits; a second Ctrl-C exits at once.",
    )
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    p.add_argument(
        "--dtype",
        choices=["float16", "bfloat16", "float32"],
        default=None,
        help="default: float16 on a GPU, float32 on the CPU",
    )
    p.add_argument(
        "--no-convert",
        action="store_true",
        help="use a hub model as downloaded (default on a GPU: convert it once to 4-bit/8-bit)",
    )
    p.add_argument(
        "--language", default=None, help="force the language: a name or its code, e.g. English or en (default: detect)"
    )
    p.add_argument("--context", default="", help="text that helps recognition: names, terms, topic")
    p.add_argument("--context-file", default=None, metavar="FILE", help="the context's text from FILE (UTF-8)")
    p.add_argument(
        "--hotwords",
        default=None,
        metavar="FILE|LIST",
        help="terms to recognise: a file (one a line) or a comma-separated list",
    )
    add_input_options(p.add_argument_group("input"))
    add_output_options(p.add_argument_group("output"))
    add_decoding_options(p.add_argument_group("segmenting and decoding"))
    return p


def add_input_options(src) -> None:
    src.add_argument("--device", default=None, metavar="NAME|INDEX", help="input device (see --list-devices)")
    src.add_argument("--list-devices", action="store_true", help="list input devices and exit")
    src.add_argument("--input", default=None, metavar="FILE", help="replay FILE as if it were the microphone")
    src.add_argument("--fast", action="store_true", help="with --input: as fast as decoding allows")


def add_output_options(out) -> None:
    out.add_argument("--output", default=None, metavar="FILE", help="append each committed utterance to FILE")
    out.add_argument("--timestamps", action="store_true", help="prefix --output lines with [HH:MM:SS.s]")
    out.add_argument(
        "--aligner",
        default=None,
        metavar="MODEL",
        help="time each word (--output with --timestamps, --events jsonl), e.g. Qwen/Qwen3-ForcedAligner-0.6B",
    )
    out.add_argument("--save-audio", default=None, metavar="DIR", help="keep each utterance's audio as a WAV")
    out.add_argument(
        "--events",
        choices=["text", "jsonl"],
        default="text",
        help="stdout: committed lines (text), or one JSON object per event (jsonl; see docs/live.md)",
    )
    out.add_argument(
        "--copy",
        nargs="?",
        const="each",
        choices=["each", "exit"],
        default=None,
        help="put each committed utterance (each, the default) or the whole transcript at the end "
        "(exit) on the clipboard: pbcopy, wl-copy or xclip",
    )
    out.add_argument(
        "--type",
        action="store_true",
        help="type each committed utterance into the focused application (xdotool on X11, macOS)",
    )


def add_decoding_options(seg) -> None:
    seg.add_argument("--pause", type=float, default=0.6, help="seconds of pause that end an utterance (0.6)")
    seg.add_argument(
        "--vad",
        choices=VAD_CHOICES,
        default="silero",
        help="what hears the pauses: silero (Silero VAD: noise, clicks and typing never open an utterance; "
        "default) or energy (the signal level against a noise floor)",
    )
    seg.add_argument(
        "--max-utterance",
        type=float,
        default=20.0,
        help="seconds after which an utterance without a pause is cut at its quietest point (20)",
    )
    seg.add_argument(
        "--partials",
        choices=PARTIALS,
        default="streaming",
        help="how tentative text is made: the streaming engine, re-decoding, or not at all",
    )
    seg.add_argument(
        "--partials-model",
        default=None,
        metavar="MODEL",
        help="a fast second model for the tentative text, e.g. a SenseVoiceSmall folder; --model makes only "
        "the committed text (memory: both models)",
    )
    seg.add_argument("--refresh", type=float, default=0.5, help="at most one tentative update per this many s")
    seg.add_argument("--max-new-tokens", type=int, default=None, help="token budget per utterance")


def parse_args(argv=None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.fast and not args.input:
        parser.error("--fast needs --input FILE")
    if args.input and args.device is not None:
        parser.error("use either --input or --device, not both")
    if args.pause < MIN_PAUSE_SECONDS or args.max_utterance < MIN_MAX_UTTERANCE_SECONDS:
        parser.error(
            f"--pause must be at least {MIN_PAUSE_SECONDS} s and --max-utterance at least {MIN_MAX_UTTERANCE_SECONDS} s"
        )
    if args.partials_model and args.partials == "off":
        parser.error("--partials-model makes tentative text: drop it, or --partials off")
    if args.refresh <= 0:
        parser.error("--refresh must be positive")
    if args.aligner and not (args.output and args.timestamps) and args.events != "jsonl":
        parser.error(
            "--aligner adds word times to --output lines and to commit events: use it with "
            "--output FILE --timestamps or --events jsonl"
        )
    return args
