"""Command line: `python -m mlx_qwen3asr FILE... [--model M] [--language L] [--context T] [-f FMT] [-o DIR]`,
and `mlx-qwen3asr serve ...` (the local server, see app/server).

Prints each transcript; with -o also writes FILE's stem + .txt/.json/.srt/.vtt into DIR.
`--aligner M` times every word (JSON words, word-timed subtitle cues; `--timestamps word`: a cue per word).
"""

import argparse
import sys
from pathlib import Path
from .align.aligner import check_aligner
from .blas import ensure_fast_blas
from .formats import FORMATS, TIMESTAMPS, render
from .lifecycle import releases_mlx_streams
from .load import DEFAULT_MODEL, DTYPES, load, slow_quantized_note
from .options import DecodeOptions
from .transcribe import transcribe

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlx-qwen3asr", description="Transcribe audio files with Qwen3-ASR on MLX.")
    parser.add_argument("files", nargs="+", help="audio files (WAV natively; other formats need ffmpeg)")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"hub id or local folder (default {DEFAULT_MODEL})")
    parser.add_argument("--language", default=None, help="force the language, e.g. English (default: detect)")
    parser.add_argument("--context", default="", help="text that helps recognition: names, terms, topic")
    parser.add_argument("-f", "--format", default="txt", choices=sorted(FORMATS), help="output format")
    parser.add_argument("-o", "--output-dir", default=None, help="also write one file per input here")
    parser.add_argument("--dtype", default=None, choices=sorted(DTYPES), help="default: float16 on GPU, float32 on CPU")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="token budget per 30 s chunk")
    parser.add_argument("--aligner", default=None, help="time each word with this aligner model (folder or hub id), "
                        "e.g. Qwen/Qwen3-ForcedAligner-0.6B")
    parser.add_argument("--timestamps", default="segment", choices=TIMESTAMPS,
                        help="subtitle cues: per segment (word-timed lines with --aligner) or one per word")
    return parser


def serve(argv: list[str]) -> int:
    """`mlx-qwen3asr serve ...`: the server lives with the apps (it sits on top of the library)."""
    try:
        from mlx_qwen3asr_app.server import main as serve_main
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
    unreadable = [f"{f} is a folder, not an audio file" if Path(f).is_dir() else f"no such file: {f}"
                  for f in args.files if not Path(f).is_file()]
    if unreadable:
        print(f"error: {'; '.join(unreadable)}", file=sys.stderr)
        return 2
    try:  # what every decode is asked, checked once here
        options = DecodeOptions(args.language, args.context, args.max_new_tokens)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.timestamps == "word" and not args.aligner:
        print("error: --timestamps word needs --aligner (e.g. Qwen/Qwen3-ForcedAligner-0.6B)", file=sys.stderr)
        return 2
    try:
        model = load(args.model, dtype=args.dtype)
        aligner = load(args.aligner, dtype=args.dtype) if args.aligner else None
        if aligner is not None:
            check_aligner(aligner)
    except (FileNotFoundError, ValueError, MemoryError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    note = slow_quantized_note(bool(model.args.quantization))
    if note:
        print(note, file=sys.stderr)
    failures = 0
    for file in args.files:
        try:
            result = transcribe(file, model, options=options, aligner=aligner)
        except (ValueError, OSError, ImportError) as e:
            print(f"error: {file}: {e}", file=sys.stderr)
            failures += 1
            continue
        output = render(result, args.format, args.timestamps)  # ends with exactly one newline (or is empty)
        report_zero_length_words(file, result)
        sys.stdout.write(output if len(args.files) == 1 else f"==> {file} <==\n{output}")
        sys.stdout.flush()
        if args.output_dir:
            out_dir = Path(args.output_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{Path(file).stem}.{args.format}").write_text(output, encoding="utf-8")
    return 1 if failures else 0


def report_zero_length_words(file: str, result) -> None:
    """The aligner may give a word no time (start == end); such words are kept, and counted here."""
    words = [w for s in result.segments for w in (s.words or [])]
    zero = sum(w.start == w.end for w in words)
    if zero:
        print(f"note: {file}: {zero} of {len(words)} aligned words have zero length (start == end)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
