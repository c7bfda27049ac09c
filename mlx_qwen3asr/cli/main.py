"""Command line: `python -m mlx_qwen3asr FILE... [--model M] [--language L] [--context T] [--context-file F]
[--hotwords F] [-f FMT] [-o DIR] [--batch-size N]`, and `mlx-qwen3asr serve ...` (the local server, see mlx_qwen3asr/server).

Prints each transcript. With -o DIR the inputs may also be folders (searched for audio) and
@manifests, and the run is folders.transcribe_files': one file per input and -f format mirrored under
DIR, resumable (a rerun skips what is done), failures in DIR/failures.jsonl, a summary on stderr;
`--ray [ADDRESS]` runs it on a Ray cluster (folders/ray_runner.py).
Both roads decode with one FolderSpec through folders.decode_files: files decoded together, their
30 s chunks sharing batches of --batch-size (default: default_batch_size, 16 rows unless their KV
caches would take over a quarter of memory). On long work a progress bar (audio done / total, ETA;
with -o files done / total) goes to stderr on a terminal.
`--aligner M` times every word (JSON words, word-timed subtitle cues; `--timestamps word`: a cue per word;
`--max-line-width/--max-line-count/--max-words-per-line/--highlight-words`: outputs/subtitles.py's cues).
`--diarize [M]` labels speakers (outputs/speakers.py; SRT [SPEAKER_00], VTT <v SPEAKER_00>, JSON "speaker"), with -o too.
"""

import argparse
import sys
from pathlib import Path
from typing import Optional

import numpy as np

from ..audio.io import SAMPLE_RATE, load_audio
from ..folders import FileOutcome, FolderSpec, InputError, LocalRunner, RayRunner, decode_files, transcribe_files
from ..loading.load import slow_quantized_note
from ..options import DecodeOptions, OptionError
from ..outputs.formats import render
from ..outputs.progress import progress_bar
from ..outputs.subtitles import SubtitleLayout
from ..runtime.blas import ensure_fast_blas
from ..runtime.lifecycle import releases_mlx_streams
from ..vad import vad_by_name
from .parser import build_parser

LONG_WORK_SECONDS = 60.0  # less audio than this finishes too soon to need a progress bar


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
    spec = FolderSpec(
        args.model, options, args.dtype, args.aligner, args.diarize, args.batch_size, vad_by_name(args.vad)
    )
    if args.output_dir:
        return transcribe_to_folder(args, spec)
    return transcribe_printed(args, spec)


def transcribe_printed(args: argparse.Namespace, spec: FolderSpec) -> int:
    """Without -o: the models loaded and the options checked, every file read, then decoded together
    (folders.decode_files, as with -o) and printed in order; a file that fails is one line on stderr."""
    try:  # loaded, and the options checked against the model before any audio is read (spec.loaded)
        spec = spec.loaded(flags=True)
    except OptionError as e:  # what this model cannot be asked (Fun-ASR-Nano: Korean; a context too long)
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, MemoryError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    note = slow_quantized_note(bool(spec.model.args.quantization))
    if note:
        print(note, file=sys.stderr)
    loaded: list[tuple[str, np.ndarray]] = []  # a list, not a dict: the same file may be named twice
    for file in args.files:
        try:
            loaded.append((file, load_audio(file)))
        except (ValueError, OSError) as e:
            print(f"error: {file}: {e}", file=sys.stderr)
    total = sum(len(wave) for _, wave in loaded) / SAMPLE_RATE
    decoded = []
    work = total * (2 if spec.diarizer is not None else 1)  # a diarizer goes over the audio once more
    with progress_bar(work, show=sys.stderr.isatty() and total >= LONG_WORK_SECONDS) as advance:
        for outcome in decode_files([wave for _, wave in loaded], spec, on_progress=advance):
            decoded.append(outcome)
            if outcome.result is None:  # a failure at once, one line naming the file and the cause
                print(f"error: {loaded[outcome.index][0]}: {outcome.error}", file=sys.stderr)
    for outcome in decoded:  # the transcripts once the bar is gone
        file = loaded[outcome.index][0]
        if outcome.result is not None:
            output = render(outcome.result, args.format[0], args.timestamps, args.layout)
            write_result(file, output, several=len(args.files) > 1)
            report_zero_length_words(file, outcome.result)
    return 0 if len(args.files) == sum(outcome.result is not None for outcome in decoded) else 1


def report_zero_length_words(file: str, result) -> None:
    """The aligner may give a word no time (start == end); such words are kept, and counted here."""
    words = [w for s in result.segments for w in (s.words or [])]
    zero = sum(w.start == w.end for w in words)
    if zero:
        print(f"note: {file}: {zero} of {len(words)} aligned words have zero length (start == end)", file=sys.stderr)


def transcribe_to_folder(args: argparse.Namespace, spec: FolderSpec) -> int:
    """-o DIR: folders.transcribe_files (here or on Ray), transcripts printed as they are written."""
    runner = RayRunner(args.ray, args.workers, args.worker_cpus, args.worker_resources) if args.ray else LocalRunner()
    several = len(args.files) > 1 or not Path(args.files[0]).is_file()  # a folder or a manifest

    def show(outcome: FileOutcome) -> None:
        if outcome.result is None:
            print(f"error: {outcome.source}: {outcome.error}", file=sys.stderr)
        else:
            write_result(
                str(outcome.source), render(outcome.result, args.format[0], args.timestamps, args.layout), several
            )
            report_zero_length_words(str(outcome.source), outcome.result)

    try:
        summary = transcribe_files(
            args.files,
            spec,
            args.output_dir,
            formats=args.format,
            timestamps=args.timestamps,
            runner=runner,
            progress=sys.stderr.isatty(),
            on_file=show,
            layout=args.layout,
        )
    except (InputError, OptionError) as e:  # an input that cannot be planned; options the model cannot take
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError, MemoryError) as e:
        print(f"error: cannot load model: {e}", file=sys.stderr)
        return 1
    except (ImportError, RuntimeError, OSError) as e:  # Ray not installed, every Ray worker gone, a full disk
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary, file=sys.stderr)
    return 130 if summary.interrupted else 1 if summary.failed else 0


def checked_options(args: argparse.Namespace) -> DecodeOptions:
    """The arguments checked before anything is loaded (ValueError saying what is wrong), and what
    every decode is asked, built once here."""
    args.format = list(dict.fromkeys(f for chosen in args.format or [["txt"]] for f in chosen))
    if not args.output_dir:
        unreadable = [
            f"{f} is a folder, not an audio file (give -o DIR to transcribe the audio in it)"
            if Path(f).is_dir()
            else f"{f}: a manifest needs -o DIR"
            if f.startswith("@") and Path(f[1:]).is_file()
            else f"no such file: {f}"
            for f in args.files
            if not Path(f).is_file()
        ]
        several = "several formats need -o DIR" if len(args.format) > 1 else ""
        ray = "--ray needs -o DIR (the outputs are written there)" if args.ray else ""
        if unreadable or several or ray:
            raise ValueError("; ".join([*unreadable, *filter(None, [several, ray])]))
    if not args.ray and (args.workers or args.worker_cpus or args.worker_resources):
        raise ValueError("--workers, --worker-cpus and --worker-resources go with --ray")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.ray and args.vad != "energy":
        raise ValueError(f"--vad {args.vad} is not available with --ray yet: leave out one of them")
    if args.batch_size is not None and args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.timestamps == "word" and not args.aligner:
        raise ValueError("--timestamps word needs --aligner (e.g. Qwen/Qwen3-ForcedAligner-0.6B)")
    args.layout = subtitle_layout(args)
    return DecodeOptions.from_files(
        args.language, args.context, args.max_new_tokens, context_file=args.context_file, hotwords=args.hotwords
    )


def subtitle_layout(args: argparse.Namespace) -> Optional[SubtitleLayout]:
    """The readable-subtitle flags as one checked SubtitleLayout (None: none given)."""
    limits = (args.max_line_width, args.max_line_count, args.max_words_per_line)
    if all(limit is None for limit in limits) and not args.highlight_words:
        return None
    flags = "--max-line-width, --max-line-count, --max-words-per-line and --highlight-words"
    if not args.aligner:
        raise ValueError(
            f"{flags} lay out the aligner's word times: add --aligner (e.g. Qwen/Qwen3-ForcedAligner-0.6B)"
        )
    if args.timestamps == "word":
        raise ValueError(f"--timestamps word gives one cue per word: leave out {flags}")
    return SubtitleLayout(*limits, highlight_words=args.highlight_words)


def write_result(file: str, output: str, several: bool) -> None:
    """`output` ends with exactly one newline (or is empty)."""
    sys.stdout.write(f"==> {file} <==\n{output}" if several else output)
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
