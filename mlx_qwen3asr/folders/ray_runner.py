"""Files on a Ray cluster (`transcribe_files(..., runner=RayRunner(...))`): one actor per worker holds the models.

    driver (files.py: the plan, resume, every write)             workers (Ray actors, any node)
      files -> groups of <= batch_size files, <= GROUP_BYTES      FolderWorker: the spec's models loaded
      each group's file bytes sent with its task            ->      once, its BLAS on `cpus` threads;
      (no shared filesystem: only the models must be on            decode(group) -> decode.decode_files
      every node), IN_FLIGHT groups per actor                       (the same batched engine, so the
      (ray_dispatch.py: RayDispatch)                                same text as one machine)
      results as they finish (ray.wait) -> written          <-      -> [Decoded(i, result | error)]
      atomically by the driver alone

Why the driver writes: it alone holds the out folder, so workers need neither a shared filesystem nor
write access there, a worker dying mid-file leaves nothing half-written, and each input is written
exactly once (a result reaches the driver once or not at all). Results are small (text and times).

Nothing is lost when a worker dies, and no scheduler is written here: Ray restarts a dead actor
(MAX_RESTARTS; on another node when its own is gone, SPREAD being no hard constraint), and the
driver re-submits the dead actor's groups to the living ones, one file per task, so a file that
kills its worker fails alone (after DEATHS_PER_FILE deaths under it, with that reason) and the
rest are done. A restarted actor takes work again once it answers.

Each actor reserves `cpus` CPUs and uses that many BLAS threads (default: the smallest node's CPU
count, i.e. one actor per node; 1 when it asks for a GPU or a custom resource); `resources` adds
GPUs ({"GPU": 1}: CUDA boxes, which Ray detects) or custom resources ({"apple_gpu": 1}: declared
with `ray start --resources`, since Ray does not detect Apple GPUs). This process's BLAS preload
(blas.py) reaches the workers through runtime_env env_vars; a Linux node that still runs MLX's reference BLAS is named in a warning.
"""

import logging
import math
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Optional

from ..decode.batch_size import MAX_BATCH_SIZE
from ..options import OptionError
from ..runtime import blas
from .plan import PlannedFile, one_line
from .ray_dispatch import IN_FLIGHT, RayDispatch, groups_of, kill_workers
from .ray_reaper import Reaper
from .ray_worker import FolderWorker
from .runner import Writer
from .spec import FolderSpec

MAX_RESTARTS = 4  # per actor: Ray restarts a dead one this often (each restart loads the model again)
INSTALL = "pip install 'mlx-qwen3asr[ray]'"


@dataclass(frozen=True)
class RayRunner:
    """Decodes on Ray workers. address: "auto" (RAY_ADDRESS, or the cluster `ray start` joined this
    machine to, else a new local one), "HOST:6379", or "ray://HOST:10001"; workers: how many actors (default: as many as
    the cluster's resources hold); cpus: each actor's CPUs and BLAS threads (default: the smallest
    node's count, or 1 with resources); resources: each actor's GPUs and custom resources, {"GPU": 1}, {"apple_gpu": 1}."""

    address: str = "auto"
    workers: Optional[int] = None
    cpus: Optional[float] = None
    resources: Mapping[str, float] = field(default_factory=dict)

    def check(self, spec: FolderSpec) -> None:
        """ValueError unless the workers can load the spec's models themselves (see FolderSpec.named)."""
        spec.named()

    def run(self, files: Sequence[PlannedFile], spec: FolderSpec, writer: Writer) -> None:
        """Start the workers, hand them the files, give the writer what they return; the workers go at
        the end (also on Ctrl-C), and a local cluster started here stops."""
        ray = import_ray()
        connected = connect(ray, self.address)
        reaper = Reaper.start() if connected else None  # a local cluster started here dies with this process
        actors: list = []
        try:
            actors = start_workers(ray, self, spec.named())
            if reaper is not None:
                reaper.watch()  # the processes Ray started for the workers
            writer.models_ready()
            size = max(1, min(spec.batch_size or MAX_BATCH_SIZE, math.ceil(len(files) / (IN_FLIGHT * len(actors)))))
            RayDispatch(ray, actors, files, writer).until_done(groups_of(files, size))
        finally:
            kill_workers(ray, actors)
            if connected:
                ray.shutdown()
            if reaper is not None:
                reaper.close()


def import_ray():
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"a Ray runner needs Ray, which is not installed: {INSTALL}") from e
    return ray


def connect(ray, address: str) -> bool:
    """Connect this process to Ray; True when this call did (and so disconnects at the end)."""
    if ray.is_initialized():
        return False  # the caller's connection (and cluster) stays as it is
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    try:
        if address == "auto":  # a running cluster this machine belongs to, else a new local one
            ray.init(**quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError) as e:
        raise RuntimeError(
            f"cannot connect to the Ray cluster at {address} ({one_line(e)[:300]}): is `ray start --head` running "
            "there, and does this machine have its token (RAY_AUTH_MODE=token, ~/.ray/auth_token)?"
        ) from e
    return True


def worker_environment() -> dict[str, str]:
    """This machine's BLAS preload for the workers (LD_PRELOAD and its variables; none off Linux)."""
    if not sys.platform.startswith("linux"):
        return {}
    name = blas.known_library(blas.global_cblas()) or blas.chosen_library()
    return blas.preload_environment(name, {}) if name else {}


def worker_shape(ray, settings: RayRunner) -> tuple[dict, int]:
    """(what each actor reserves, as Ray's options, and how many actors), checked against the cluster."""
    nodes = [node["Resources"] for node in ray.nodes() if node["Alive"]]
    custom = {k: float(v) for k, v in settings.resources.items()}
    gpus = custom.pop("GPU", 0.0)
    # a worker on a GPU does its work there: one CPU; on the CPU, the smallest node's cores (one worker a node)
    smallest = min((n["CPU"] for n in nodes if n.get("CPU", 0) >= 1), default=1.0)
    cpus = settings.cpus or (1.0 if gpus or custom else smallest)
    need = {k: v for k, v in {"CPU": float(cpus), "GPU": gpus, **custom}.items() if v > 0}
    capacity = sum(min(int(node.get(k, 0) // v) for k, v in need.items()) for node in nodes)
    count = settings.workers or capacity
    if capacity < 1 or count > capacity:
        shown = [
            {k: v for k, v in n.items() if "memory" not in k and not k.startswith(("node:", "accelerator"))}
            for n in nodes
        ]
        have = "; ".join(", ".join(f"{k}={v:g}" for k, v in sorted(n.items())) for n in shown)
        raise RuntimeError(
            f"{count or 'a'} Ray worker(s) with {need} each do not fit: the cluster's nodes have {have} "
            "(ask for fewer or smaller workers, or declare a resource with `ray start --resources`)"
        )
    return {"num_cpus": cpus, "num_gpus": gpus, "resources": custom}, count


def start_workers(ray, settings: RayRunner, spec: FolderSpec) -> list:
    """The workers, each with the spec's models loaded (a node that cannot load them: ValueError naming it)."""
    options, count = worker_shape(ray, settings)
    options.update(max_restarts=MAX_RESTARTS, scheduling_strategy="SPREAD")
    options.update(runtime_env={"env_vars": worker_environment()})
    remote, threads = ray.remote(FolderWorker), max(1, int(options["num_cpus"]))
    run_id = uuid.uuid4().hex[:8]  # named, so that `ray list actors` shows them: mlx-qwen3asr-<run>-<n>
    actors = [remote.options(**options, name=f"mlx-qwen3asr-{run_id}-{n}").remote(spec, threads) for n in range(count)]
    try:
        described = ray.get([actor.describe.remote() for actor in actors])
    except ray.exceptions.RayActorError as e:  # every restart used up before it ever answered
        kill_workers(ray, actors)
        raise RuntimeError(f"a Ray worker could not start ({one_line(e)[:400]})") from e
    for worker in described:
        if worker["error"]:
            kill_workers(ray, actors)
            if worker["refused_option"]:  # the same on every node: the options, not the node, are at fault
                raise OptionError(worker["refused_option"], worker["error"])
            raise ValueError(
                f"on node {worker['node']}: {worker['error']}: "
                "name a hub id, or a folder at the same path on every node"
            )
        if worker["blas"] == "reference" and worker["cpu"]:
            print(
                f"warning: node {worker['node']}: {blas.SLOW_BLAS_WARNING.removeprefix('warning: ')}", file=sys.stderr
            )
    return actors
