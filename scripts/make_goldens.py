"""Regenerate the golden fixtures from the official PyTorch Qwen3-ASR. DEV ONLY: needs torch + qwen-asr.

    /tmp/refenv/bin/python scripts/make_goldens.py [--regen-audio]     (set-up: tests/fixtures/goldens/README.md)

    espeak-ng + sox -> tests/fixtures/audio/{short,long,exact}.wav            (only when missing)
    random_checkpoint.write_random_checkpoint(tiny_config(), seed 0) -> temporary folder
    -> official Qwen3ASRModel, float32, audio-encoder attention restricted to its cu_seqlens windows
    -> tests/fixtures/goldens/tiny_<clip>.npz:
         audio [samples], mel [frames, 128], encoder_out [n_audio_tokens, output_dim], n_audio_tokens,
         for each prompt variant (plain, context, language, both):
         <v>_prompt_ids, <v>_last_logits_ids + <v>_last_logits (top 512 + every 256th of the vocab),
         <v>_tokens (greedy, <= 24, EOS kept), <v>_text
    the official thinker's rotary embedding, built from the real 0.6B config (mlx_qwen3asr/testing/)
    -> tests/fixtures/goldens/rope_0.6b.npz: positions, inv_freq, cos, sin   (--rope-only: just this)

The reference environment also has this package installed (`pip install --no-deps -e .` plus mlx[cpu]),
for its random-checkpoint writer (mlx_qwen3asr.testing).
"""

import argparse
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import soundfile
import torch

from mlx_qwen3asr.testing.random_checkpoint import tiny_config, write_random_checkpoint

ROOT = Path(__file__).resolve().parents[1]
REAL_CONFIG_DIR = ROOT / "mlx_qwen3asr/testing/qwen3-asr-0.6b"
ROPE_POSITIONS = [0, 1, 145, 1000, 8191, 30000]  # 30000: ~40 minutes of audio tokens
AUDIO_DIR = ROOT / "tests/fixtures/audio"
GOLDEN_DIR = ROOT / "tests/fixtures/goldens"
SAMPLE_RATE = 16000
MAX_NEW_TOKENS = 24
TOP_LOGITS, LOGIT_STRIDE = 512, 256
# name -> (espeak-ng text, exact length in samples or None)
CLIPS = {
    "short": ("Hello world, this is a short speech test.", None),
    "long": (
        "Speech recognition turns spoken words into written text. This passage is long enough to cover"
        " more than one attention window of the audio encoder, so the model must process several windows"
        " of eight seconds each. The last chunk is partial, which tests the padding of the convolution stem.",
        None,
    ),
    "exact": ("Numbers and names: Qwen, MLX, and Zurich.", 3 * 100 * 160),  # 3 whole 100-frame chunks
}
VARIANTS = {  # name -> (context, forced language)
    "plain": ("", None),
    "context": ("Names: Qwen, MLX, Zürich.", None),
    "language": ("", "English"),
    "both": ("Names: Qwen, MLX, Zürich.", "English"),
}


def import_qwen_asr() -> types.ModuleType:
    # qwen_asr imports its forced aligner, which imports nagisa (unused for ASR, needs DyNet).
    sys.modules.setdefault("nagisa", types.ModuleType("nagisa"))
    import qwen_asr

    return qwen_asr


def make_clip(name: str, text: str, n_samples: int | None) -> None:
    """espeak-ng (22.05 kHz) -> sox -> 16 kHz mono int16, trimmed to n_samples when given.

    sox -D: no dither, whose default random noise makes every run's WAV different.
    """
    out = AUDIO_DIR / f"{name}.wav"
    with tempfile.TemporaryDirectory() as tmp:
        raw, resampled = Path(tmp) / "raw.wav", Path(tmp) / "16k.wav"
        subprocess.run(["espeak-ng", "-w", str(raw), text], check=True)
        subprocess.run(["sox", "-D", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(resampled)], check=True)
        trim = ["trim", "0", f"{n_samples}s"] if n_samples else []  # after resampling: in 16 kHz samples
        subprocess.run(["sox", "-D", str(resampled), str(out), *trim], check=True)
    print(f"wrote {out.relative_to(ROOT)}")


def ensure_audio(regen: bool) -> dict[str, np.ndarray]:
    """The committed clips as float32 in [-1, 1) (int16 / 32768), made first when missing."""
    AUDIO_DIR.mkdir(parents=True, exist_ok=True)
    clips = {}
    for name, (text, n_samples) in CLIPS.items():
        if regen or not (AUDIO_DIR / f"{name}.wav").exists():
            make_clip(name, text, n_samples)
        pcm, rate = soundfile.read(AUDIO_DIR / f"{name}.wav", dtype="int16")
        assert rate == SAMPLE_RATE and pcm.ndim == 1, (name, rate, pcm.shape)
        assert n_samples is None or len(pcm) == n_samples, (name, len(pcm))
        clips[name] = pcm.astype(np.float32) / 32768.0
    return clips


def window_attention(encoder: torch.nn.Module) -> None:
    """Make every encoder layer attend only inside its cu_seqlens window, as flash-attention does.

    On CPU (sdpa/eager) the official encoder calls its layers without a mask, so all audio tokens
    attend to each other (QwenLM/Qwen3-ASR issue 213). The encoder's own block-diagonal mask
    builder, otherwise unused, gives the windowed behaviour of the real (GPU) model.
    """
    for layer in encoder.layers:
        attn = layer.self_attn
        original = attn.forward

        def forward(hidden_states, cu_seqlens=None, attention_mask=None, _original=original, **kwargs):
            if attention_mask is None:
                attention_mask = encoder._prepare_attention_mask(hidden_states, cu_seqlens)
            return _original(hidden_states, cu_seqlens=cu_seqlens, attention_mask=attention_mask, **kwargs)

        attn.forward = forward


def encoder_tail(encoder: torch.nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """The layers + output head of the encoder on one window of post-conv tokens."""
    cu_seqlens = torch.tensor([0, hidden.shape[0]], dtype=torch.int32)
    for layer in encoder.layers:
        hidden = layer(hidden, cu_seqlens)[0]
    return encoder.proj2(encoder.act(encoder.proj1(encoder.ln_post(hidden))))


def check_windowing(model, inputs: dict) -> float:
    """Windowed output == each window run alone; returns max |windowed - all-to-all| for the record."""
    encoder = model.thinker.audio_tower
    captured = {}
    hook = encoder.layers[0].register_forward_pre_hook(lambda m, args: captured.update(args=args))
    windowed = audio_features(model, inputs)
    hook.remove()
    hidden, cu_seqlens = captured["args"]
    for start, end in zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist()):
        alone = encoder_tail(encoder, hidden[start:end])
        torch.testing.assert_close(windowed[start:end], alone, rtol=1e-5, atol=1e-5)
    patched = {layer.self_attn: layer.self_attn.__dict__.pop("forward") for layer in encoder.layers}
    all_to_all = audio_features(model, inputs)
    for attn, forward in patched.items():
        attn.forward = forward
    if len(cu_seqlens) == 2:
        torch.testing.assert_close(windowed, all_to_all, rtol=1e-6, atol=1e-6)
    return float((windowed - all_to_all).abs().max())


def audio_features(model, inputs: dict) -> torch.Tensor:
    with torch.no_grad():
        return model.thinker.get_audio_features(
            inputs["input_features"], feature_attention_mask=inputs["feature_attention_mask"]
        )


def prompt_inputs(asr, wave: np.ndarray, context: str, language: str | None) -> dict:
    """Exactly what the official transformers backend feeds generate() (_infer_asr_transformers)."""
    text = asr._build_text_prompt(context=context, force_language=language)
    inputs = asr.processor(text=[text], audio=[wave], return_tensors="pt", padding=True)
    return inputs.to(asr.model.dtype)


def top_gap(logits: torch.Tensor) -> float:
    top2 = torch.topk(logits.float(), 2).values
    return float(top2[0] - top2[1])


def logit_ids(logits: torch.Tensor) -> torch.Tensor:
    """The ids whose logits are stored: the top TOP_LOGITS plus every LOGIT_STRIDE-th id, ascending.

    The full [vocab] row is 0.6 MB per variant (7 MB in all); with hidden size 64, ~1100 logits of
    a linear head pin down the hidden state, hence every other logit, as well as the full row does.
    """
    top = torch.topk(logits, TOP_LOGITS).indices
    spread = torch.arange(0, logits.shape[0], LOGIT_STRIDE)
    return torch.unique(torch.cat([top, spread]))


def run_variant(asr, inputs: dict) -> dict:
    """Last prompt-position logits of the official forward, then official greedy generate."""
    model = asr.model
    with torch.no_grad():
        last_logits = model.thinker(**inputs).logits[0, -1]
        out = model.generate(**inputs, max_new_tokens=MAX_NEW_TOKENS, output_logits=True)
    tokens = out.sequences[0, inputs["input_ids"].shape[1] :]
    text = asr.processor.batch_decode(tokens[None], skip_special_tokens=True, clean_up_tokenization_spaces=False)[0]
    gaps = [top_gap(last_logits)] + [top_gap(step[0]) for step in out.logits]
    ids = logit_ids(last_logits)
    return {
        "prompt_ids": inputs["input_ids"][0].numpy().astype(np.int32),
        "last_logits_ids": ids.numpy().astype(np.int32),
        "last_logits": last_logits[ids].numpy().astype(np.float32),
        "tokens": tokens.numpy().astype(np.int32),
        "text": np.array(text),
        "gaps": gaps,
    }


def clip_goldens(asr, wave: np.ndarray) -> tuple[dict, dict]:
    """All arrays for one clip, plus the per-variant greedy gaps for the summary."""
    inputs = prompt_inputs(asr, wave, "", None)
    n_frames = int(inputs["feature_attention_mask"].sum())
    encoder_out = audio_features(asr.model, inputs)
    arrays = {
        "audio": wave.astype(np.float32),
        "mel": inputs["input_features"][0, :, :n_frames].T.numpy().astype(np.float32),
        "encoder_out": encoder_out.numpy().astype(np.float32),
        "n_audio_tokens": np.array(encoder_out.shape[0], dtype=np.int32),
    }
    gaps = {}
    for variant, (context, language) in VARIANTS.items():
        result = run_variant(asr, prompt_inputs(asr, wave, context, language))
        gaps[variant] = result.pop("gaps")
        arrays.update({f"{variant}_{key}": value for key, value in result.items()})
    return arrays, gaps


def summarize(name: str, arrays: dict, gaps: dict, all_to_all_diff: float) -> None:
    print(
        f"\n{name}: {len(arrays['audio'])} samples, {len(arrays['mel'])} mel frames, "
        f"{int(arrays['n_audio_tokens'])} audio tokens; windowed vs all-to-all encoder: "
        f"max diff {all_to_all_diff:.3g}"
    )
    for variant in VARIANTS:
        tokens = arrays[f"{variant}_tokens"].tolist()
        print(
            f"  {variant:8s} prompt {len(arrays[f'{variant}_prompt_ids'])} ids, prefill gap "
            f"{gaps[variant][0]:.3f}, min greedy gap {min(gaps[variant][1:]):.3f}\n    tokens {tokens}\n"
            f"    text {str(arrays[f'{variant}_text'])!r}"
        )


def load_official(checkpoint: Path):
    qwen_asr = import_qwen_asr()
    # float32 on CPU, no device_map (accelerate is not installed); max_new_tokens only bounds transcribe().
    asr = qwen_asr.Qwen3ASRModel.from_pretrained(str(checkpoint), dtype=torch.float32)
    asr.model.eval()
    window_attention(asr.model.thinker.audio_tower)
    return asr


def rope_goldens() -> dict[str, np.ndarray]:
    """The official rotary table (float32) of the real 0.6B text config at ROPE_POSITIONS."""
    from qwen_asr.core.transformers_backend import modeling_qwen3_asr as official

    config = official.Qwen3ASRConfig.from_pretrained(str(REAL_CONFIG_DIR)).thinker_config.text_config
    rotary = official.Qwen3ASRThinkerTextRotaryEmbedding(config)
    positions = torch.tensor([ROPE_POSITIONS])
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), positions)
    return {
        "positions": positions[0].numpy().astype(np.int32),
        "inv_freq": rotary.inv_freq.numpy(),
        "cos": cos[0].numpy(),  # [positions, head_dim]
        "sin": sin[0].numpy(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regen-audio", action="store_true", help="re-synthesize the WAVs (changes every golden)")
    parser.add_argument("--rope-only", action="store_true", help="write only rope_0.6b.npz")
    args = parser.parse_args()
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    import_qwen_asr()
    np.savez_compressed(GOLDEN_DIR / "rope_0.6b.npz", **rope_goldens())
    if args.rope_only:
        return
    torch.manual_seed(0)
    clips = ensure_audio(args.regen_audio)
    with tempfile.TemporaryDirectory() as tmp:
        asr = load_official(write_random_checkpoint(Path(tmp) / "tiny", tiny_config(), seed=0))
        for name, wave in clips.items():
            diff = check_windowing(asr.model, prompt_inputs(asr, wave, "", None))
            arrays, gaps = clip_goldens(asr, wave)
            np.savez_compressed(GOLDEN_DIR / f"tiny_{name}.npz", **arrays)
            summarize(name, arrays, gaps, diff)
    sizes = sum(p.stat().st_size for p in GOLDEN_DIR.glob("*.npz"))
    print(f"\ngoldens: {sizes / 1e6:.2f} MB in {GOLDEN_DIR.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
