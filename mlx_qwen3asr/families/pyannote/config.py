"""The release's config.yaml: which pipeline, where its parts are, and the clustering parameters.

pipeline.name            pyannote.audio.pipelines.SpeakerDiarization (what marks a diarizer folder)
pipeline.params          segmentation / embedding / plda: "$model/<subfolder>" (relative to the folder),
                         embedding_exclude_overlap, clustering: VBxClustering
params.clustering        threshold, Fa, Fb
"""

from dataclasses import dataclass
from pathlib import Path

import yaml

PIPELINE_NAME = "pyannote.audio.pipelines.SpeakerDiarization"
DEFAULT_DIARIZER = "pyannote/speaker-diarization-community-1"  # gated: accept its terms on the hub first
CONFIG_FILE = "config.yaml"
DIARIZER_FILES = (CONFIG_FILE, "segmentation/pytorch_model.bin", "embedding/pytorch_model.bin", "plda/*.npz")


@dataclass(frozen=True)
class ClusteringParams:
    """config.yaml's params.clustering (VBxClustering's defaults)."""

    threshold: float = 0.6
    Fa: float = 0.07
    Fb: float = 0.8


@dataclass(frozen=True)
class PipelineConfig:
    segmentation: Path  # the checkpoint file
    embedding: Path
    plda: Path  # the folder of xvec_transform.npz and plda.npz
    exclude_overlap: bool
    clustering: ClusteringParams


def is_diarizer_folder(folder: Path) -> bool:
    """True for a folder whose config.yaml names pyannote's speaker diarization pipeline."""
    path = Path(folder) / CONFIG_FILE
    if not path.is_file():
        return False
    try:
        config = yaml.safe_load(path.read_text())
    except yaml.YAMLError:
        return False
    return isinstance(config, dict) and (config.get("pipeline") or {}).get("name") == PIPELINE_NAME


def _part(folder: Path, value: str, name: str) -> Path:
    if not isinstance(value, str) or not value.startswith("$model/"):
        raise ValueError(f"{folder / CONFIG_FILE}: {name} is {value!r}, expected '$model/<subfolder>' of the release")
    path = folder / value[len("$model/") :]
    if name != "plda":
        path = path / "pytorch_model.bin"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: download the whole release folder (hf download ...)")
    return path


def read_pipeline_config(folder: Path) -> PipelineConfig:
    """config.yaml -> PipelineConfig (parts resolved inside the folder)."""
    if not is_diarizer_folder(folder):
        raise ValueError(f"{folder} has no {CONFIG_FILE} naming {PIPELINE_NAME}: pass the diarization release folder")
    config = yaml.safe_load((Path(folder) / CONFIG_FILE).read_text())
    params = config["pipeline"].get("params", {})
    if params.get("clustering", "VBxClustering") != "VBxClustering":
        raise ValueError(f"{folder}: clustering {params['clustering']!r} is not supported (only VBxClustering)")
    clustering = (config.get("params") or {}).get("clustering") or {}
    return PipelineConfig(
        segmentation=_part(folder, params.get("segmentation"), "segmentation"),
        embedding=_part(folder, params.get("embedding"), "embedding"),
        plda=_part(folder, params.get("plda"), "plda"),
        exclude_overlap=bool(params.get("embedding_exclude_overlap", False)),
        clustering=ClusteringParams(**{k: float(v) for k, v in clustering.items() if k in ("threshold", "Fa", "Fb")}),
    )
