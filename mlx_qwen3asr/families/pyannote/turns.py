"""Speaker turns, the diarizer's answer: (start, end, speaker) in seconds, and their RTTM lines."""

from dataclasses import dataclass
from pathlib import Path
from typing import Union


@dataclass(frozen=True)
class Turn:
    start: float
    end: float
    speaker: str  # SPEAKER_00, SPEAKER_01, ... numbered by pyannote's cluster index


@dataclass(frozen=True)
class Diarization:
    """Who spoke when: turns ordered by (start, end), as pyannote.audio lists them."""

    turns: list[Turn]

    @property
    def speakers(self) -> list[str]:
        return sorted({t.speaker for t in self.turns})

    def to_rttm(self, uri: str = "audio") -> str:
        """RTTM text: one `SPEAKER uri 1 start duration <NA> <NA> speaker <NA> <NA>` line per turn."""
        uri = uri.replace(" ", "_")
        return "".join(
            f"SPEAKER {uri} 1 {t.start:.3f} {t.end - t.start:.3f} <NA> <NA> {t.speaker} <NA> <NA>\n" for t in self.turns
        )

    def write_rttm(self, path: Union[str, Path], uri: str | None = None) -> Path:
        """Write the RTTM file (uri: the file name's stem unless given)."""
        path = Path(path)
        path.write_text(self.to_rttm(uri or path.stem))
        return path


def named_turns(raw: list[tuple[float, float, int]]) -> Diarization:
    """(start, end, cluster) -> turns named SPEAKER_00... in the string order of the cluster indices that
    have turns (cluster 10 before cluster 2), as pyannote renames its integer labels."""
    names = {k: f"SPEAKER_{i:02d}" for i, k in enumerate(sorted({k for *_, k in raw}, key=str))}
    return Diarization([Turn(start, end, names[k]) for start, end, k in raw])
