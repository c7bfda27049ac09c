"""Entry point of `mlx-qwen3asr-dictate [options]` (= `python -m mlx_qwen3asr_app`); see its `--help`."""

import sys

from mlx_qwen3asr.runtime.blas import ensure_fast_blas
from mlx_qwen3asr.runtime.lifecycle import releases_mlx_streams

from .errors import AppError
from .options import parse_args


@releases_mlx_streams
def main(argv=None) -> int:
    if argv is None:  # the real command line (tests pass argv and keep their process)
        ensure_fast_blas()
    args = parse_args(argv)
    try:
        if args.list_devices:
            from .capture import list_devices

            print(list_devices())
            return 0
        from mlx_qwen3asr.options import DecodeOptions

        try:  # what every decode is asked, checked once here
            args.decode_options = DecodeOptions.from_files(
                args.language,
                args.context,
                args.max_new_tokens,
                context_file=args.context_file,
                hotwords=args.hotwords,
            )
        except (TypeError, ValueError) as e:
            raise AppError(str(e)) from e
        from .session import run

        return run(args)
    except AppError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before capture started (loading, warm-up): nothing to keep
        return 130


if __name__ == "__main__":
    sys.exit(main())
