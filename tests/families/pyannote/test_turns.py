"""What users get: mq.load recognises the release folder; turns write RTTM."""

import pytest

import mlx_qwen3asr as mq
from mlx_qwen3asr.families.pyannote.config import is_diarizer_folder, read_pipeline_config


def test_load_recognises_the_release_folder_by_its_config(diarizer_dir, diarizer):
    assert isinstance(diarizer, mq.Diarizer) and diarizer.path == diarizer_dir
    assert is_diarizer_folder(diarizer_dir)
    config = read_pipeline_config(diarizer_dir)
    assert (config.clustering.threshold, config.clustering.Fa, config.clustering.Fb) == (0.6, 0.07, 0.8)
    assert config.exclude_overlap


def test_a_yaml_naming_another_pipeline_is_not_a_diarizer(tmp_path):
    (tmp_path / "config.yaml").write_text("pipeline:\n  name: pyannote.audio.pipelines.VoiceActivityDetection\n")
    assert not is_diarizer_folder(tmp_path)
    with pytest.raises(ValueError, match="pass the diarization release folder"):
        read_pipeline_config(tmp_path)


def test_a_missing_part_is_named(diarizer_dir, tmp_path):
    (tmp_path / "config.yaml").write_bytes((diarizer_dir / "config.yaml").read_bytes())
    with pytest.raises(FileNotFoundError, match="segmentation/pytorch_model.bin is missing: download the whole"):
        read_pipeline_config(tmp_path)


def test_rttm_has_one_line_per_turn(tmp_path):
    d = mq.Diarization([mq.Turn(0.03096875, 1.5, "SPEAKER_00"), mq.Turn(1.2, 2.25, "SPEAKER_01")])
    assert d.speakers == ["SPEAKER_00", "SPEAKER_01"]
    path = d.write_rttm(tmp_path / "my talk.rttm")
    assert path.read_text().splitlines() == [
        "SPEAKER my_talk 1 0.031 1.469 <NA> <NA> SPEAKER_00 <NA> <NA>",
        "SPEAKER my_talk 1 1.200 1.050 <NA> <NA> SPEAKER_01 <NA> <NA>",
    ]
