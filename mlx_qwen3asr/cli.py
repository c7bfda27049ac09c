"""Command line: `python -m mlx_qwen3asr FILE... [--model M] [--language L] [--context T] [--context-file F]
[--hotwords F] [-f FMT] [-o DIR] [--batch-size N]`, and `mlx-qwen3asr serve ...` (the local server, see mlx_qwen3asr/server).

Prints each transcript; with -o also writes FILE's stem + .txt/.json/.srt/.vtt into DIR. All files are
decoded together: their 30 s chunks share batches of --batch-size (default: default_batch_size, 16
rows unless their KV caches would take over a quarter of memory). On long work a progress bar
(audio done / total, ETA) goes to stderr when it is a terminal.
`--aligner M` times every word (JSON words, word-timed subtitle cues; `--timestamps word`: a cue per word).
"""

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .align.aligner import check_aligner
from .audio.io import SAMPLE_RATE, load_audio
from .blas import ensure_fast_blas
from .formats import FORMATS, TIMESTAMPS, render
from .lifecycle import releases_mlx_streams
from .load import DEFAULT_MODEL, DTYPES, load, slow_quantized_note
from .options import DecodeOptions
from .transcribe import default_batch_size, transcribe_batch

LONG_WORK_SECONDS = 60.0  # less audio than this finishes too soon to need a progress bar


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlx-qwen3asr", description="Transcribe audio files with Qwen3-ASR on MLX.")
    parser.add_argument("files", nargs="+", help="audio files (WAV natively; other formats need ffmpeg)")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    parser.add_argument("--language", default=None, help="force the language, e.g. English (default: detect)")
    parser.add_argument("--context", default="", help="text that helps recognition: names, terms, topic")
    parser.add_argument("--context-file", default=None, metavar="FILE", help="the context's text from FILE (UTF-8)")
    parser.add_argument(
        "--hotwords", default=None, metavar="FILE", help="terms to recognise, one a line, added to the context"
    )
    parser.add_argument("-f", "--format", default="txt", choices=sorted(FORMATS), help="output format")
    parser.add_argument("-o", "--output-dir", default=None, help="also write one file per input here")
    parser.add_argument("--dtype", default=None, choices=sorted(DTYPES), help="default: float16 on GPU, float32 on CPU")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="token budget per 30 s chunk")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="30 s chunks decoded together, from all files (default: 16, fewer if memory is short)",
    )
    parser.add_argument(
        "--aligner",
        default=None,
        help="time each word with this aligner model (folder or hub id), e.g. Qwen/Qwen3-ForcedAligner-0.6B",
    )
    parser.add_argument(
        "--timestamps",
        default="segment",
        choices=TIMESTAMPS,
        help="subtitle cues: per segment (word-timed lines with --aligner) or one per word",
    )
    return parser


def serve(argv: list[str]) -> int:
    """`mlx-qwen3asr serve ...`: the server lives with the apps (it sits on top of the library)."""
    try:
        from mlx_qwen3asr.server import main as serve_main
    except ImportError as e:
        print(f"error: the server is not installed ({e}): pip install 'mlx-qwen3asr[server]'", file=sys.stderr)
        return 1
    return serve_main(argv)


@releases_mlx_streams
def main(argv=None) -> int:
    if argv is None:  # the real command line (tests pass argv and keep their process)
        ensure_fast_blas()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:
        return serve(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        options = checked_options(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        model = load(args.model, dtype=args.dtype)
        aligner = load(args.aligner, dtype=args.dtype) if args.aligner else None
        if aligner is not None:
            check_aligner(aligner)
    except (FileNotFoundError, ValueError, MemoryError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    try:
        options.check_context(model.tokenizer)  # before any audio is read
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    note = slow_quantized_note(bool(model.args.quantization))
    if note:
        print(note, file=sys.stderr)
    loaded: list[tuple[str, np.ndarray]] = []  # a list, not a dict: the same file may be named twice
    for file in args.files:
        try:
            loaded.append((file, load_audio(file)))
        except (ValueError, OSError) as e:
            print(f"error: {file}: {e}", file=sys.stderr)
    failures = len(args.files) - len(loaded)
    batch_size = args.batch_size or default_batch_size(model)
    waves = [wave for _, wave in loaded]
    total = sum(len(wave) for wave in waves) / SAMPLE_RATE
    try:
        with progress_bar(total, show=sys.stderr.isatty() and total >= LONG_WORK_SECONDS) as advance:
            results = (
                transcribe_batch(
                    waves, model, batch_size=batch_size, options=options, on_progress=advance, aligner=aligner
                )
                if loaded
                else []
            )
    except ImportError as e:  # aligning Japanese without its word segmenter
        print(f"error: {e}", file=sys.stderr)
        return 1
    for (file, _), result in zip(loaded, results):
        write_result(file, render(result, args.format, args.timestamps), args, several=len(args.files) > 1)
        report_zero_length_words(file, result)
    return 1 if failures else 0


def report_zero_length_words(file: str, result) -> None:
    """The aligner may give a word no time (start == end); such words are kept, and counted here."""
    words = [w for s in result.segments for w in (s.words or [])]
    zero = sum(w.start == w.end for w in words)
    if zero:
        print(f"note: {file}: {zero} of {len(words)} aligned words have zero length (start == end)", file=sys.stderr)


def checked_options(args: argparse.Namespace) -> DecodeOptions:
    """The arguments checked before anything is loaded (ValueError saying what is wrong), and what
    every decode is asked, built once here."""
    unreadable = [
        f"{f} is a folder, not an audio file" if Path(f).is_dir() else f"no such file: {f}"
        for f in args.files
        if not Path(f).is_file()
    ]
    if unreadable:
        raise ValueError("; ".join(unreadable))
    if args.batch_size is not None and args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.timestamps == "word" and not args.aligner:
        raise ValueError("--timestamps word needs --aligner (e.g. Qwen/Qwen3-ForcedAligner-0.6B)")
    return DecodeOptions.from_files(
        args.language, args.context, args.max_new_tokens, context_file=args.context_file, hotwords_file=args.hotwords
    )


def write_result(file: str, output: str, args: argparse.Namespace, several: bool) -> None:
    """`output` ends with exactly one newline (or is empty)."""
    sys.stdout.write(f"==> {file} <==\n{output}" if several else output)
    sys.stdout.flush()
    if args.output_dir:
        out_dir = Path(args.output_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{Path(file).stem}.{args.format}").write_text(output, encoding="utf-8")


@contextmanager
def progress_bar(total_seconds: float, show: bool) -> Iterator[Callable[[float], None]]:
    """A rich progress bar on stderr over seconds of audio (a no-op callback when not shown)."""
    if not show:
        yield lambda seconds: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (
        TextColumn("transcribing"),
        BarColumn(),
        TextColumn("{task.completed:.0f}/{task.total:.0f} s of audio"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("transcribing", total=total_seconds)
        yield lambda seconds: progress.advance(task, seconds)


if __name__ == "__main__":
    sys.exit(main())
