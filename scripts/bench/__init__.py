"""The benchmarks. Run each from the repository root as a module (`--help` tells the rest):

    python -m scripts.bench.overhead     every stage of our pipeline against the bare matrix products
                                         it must do (per dtype); CI runs its --quick lane
    python -m scripts.bench.changes      each speed change on and off, alternated; CI runs --quick
    python -m scripts.bench.vs_official  ours against the official implementation, another BLAS or an
                                         older commit: sides alternated, the machine's load recorded
    python -m scripts.bench.batch        batched transcription, batch 1 against 4, 8, 16
    python -m scripts.bench.streaming    StreamingTranscriber: per-step cost, what each optimisation buys
    python -m scripts.bench.live         live dictation latency through the app's capture path
    python -m scripts.bench.partials_noise  what live partials show under steady noise, two revisions side by side
    python -m scripts.bench.server       the server under concurrent clients and live sessions
    python -m scripts.bench.align        word alignment, ours against the official aligner
    python -m scripts.bench.prefix       the prompt-prefix cache off and on: 0-, 500- and 2,000-token contexts
    python -m scripts.bench.files        transcribe_files: one process against Ray workers (CI: a tiny lane)
    python -m scripts.bench.vad          Silero VAD: ours against onnxruntime (1 and 16 streams, the live step)
    python -m scripts.bench.vad_offline  minutes of noise, hum and tones: chunks and tokens decoded, energy vs VAD
    python -m scripts.bench.dispatches   the GPU path's dispatches per layer against the model as written, on any machine

Shared parts: clips.py (the audio fed, numpy only), common.py (random checkpoints, the console, the
machine's description), machine_load.py (load probe, --busy background), sources.py (the package at
an older commit), bare_products.py (the limit overhead compares with), metrics.py (character error
rate: streamed against offline text). workers/: one side of a comparison in its own process
(protocol.py; ours.py; official.py and official_align.py in a torch + qwen-asr environment).
"""
