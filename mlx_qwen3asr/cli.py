"""Command line: `python -m mlx_qwen3asr FILE... [--model M] [--language L] [--context T] [-f FMT] [-o DIR]`.

Prints each transcript; with -o also writes FILE's stem + .txt/.json/.srt/.vtt into DIR.
"""

import argparse
import atexit
import functools
import sys
from pathlib import Path
from typing import Callable

import mlx.core as mx

from .blas import ensure_fast_blas
from .formats import FORMATS
from .load import DTYPES, load, slow_quantized_note
from .tokenizer import normalize_language
from .transcribe import transcribe

DEFAULT_MODEL = "Qwen/Qwen3-ASR-0.6B"


def releases_mlx_streams(main: Callable[..., int]) -> Callable[..., int]:
    """An entry point after which MLX's main-thread streams are released when the process exits.
    MLX 0.32 asks every thread that used it to call mx.clear_streams() at its end; left to MLX's own
    teardown, a process can abort at exit after its work is done. (Not right after main() returns:
    tests call main() in-process and keep using MLX on this thread.)"""

    @functools.wraps(main)
    def entry_point(*args, **kwargs) -> int:
        atexit.unregister(mx.clear_streams)  # once, however many entry points ran
        atexit.register(mx.clear_streams)
        return main(*args, **kwargs)

    return entry_point


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
    return parser


@releases_mlx_streams
def main(argv=None) -> int:
    if argv is None:  # the real command line (tests pass argv and keep their process)
        ensure_fast_blas()
    args = build_parser().parse_args(argv)
    unreadable = [f"{f} is a folder, not an audio file" if Path(f).is_dir() else f"no such file: {f}"
                  for f in args.files if not Path(f).is_file()]
    if unreadable:
        print(f"error: {'; '.join(unreadable)}", file=sys.stderr)
        return 2
    try:
        normalize_language(args.language)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        model = load(args.model, dtype=args.dtype)
    except (FileNotFoundError, ValueError, MemoryError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    note = slow_quantized_note(bool(model.args.quantization))
    if note:
        print(note, file=sys.stderr)
    formatter = FORMATS[args.format]
    failures = 0
    for file in args.files:
        try:
            result = transcribe(
                file, model, language=args.language, context=args.context, max_new_tokens=args.max_new_tokens
            )
        except (ValueError, OSError) as e:
            print(f"error: {file}: {e}", file=sys.stderr)
            failures += 1
            continue
        output = formatter(result)  # ends with exactly one newline (or is empty)
        sys.stdout.write(output if len(args.files) == 1 else f"==> {file} <==\n{output}")
        sys.stdout.flush()
        if args.output_dir:
            out_dir = Path(args.output_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{Path(file).stem}.{args.format}").write_text(output, encoding="utf-8")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
