"""Files on a Ray cluster (`transcribe_files(..., ray=...)`): one actor per worker holds the model.

    driver (files.py: the plan, resume, every write)             workers (Ray actors, any node)
      jobs -> groups of <= batch_size files, <= GROUP_BYTES       Transcriber: the model loaded once,
      each group's file bytes sent with its task            ->      its BLAS on `cpus` threads;
      (no shared filesystem: only the model must be on             decode(group) -> files.decode_files
      every node), IN_FLIGHT groups per actor                       (the same batched engine, so the
      results as they finish (ray.wait) -> written          <-      same text as one machine)
      atomically by the driver alone                                -> [(i, Transcription | reason, s)]

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
with `ray start --resources`, since Ray does not detect Apple GPUs). This process's BLAS preload (blas.py) reaches the workers through runtime_env
env_vars; a Linux node that still runs MLX's reference BLAS is named in a warning.
"""

import logging
import math
import os
import sys
import uuid
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Optional

from . import blas
from .cluster_worker import Transcriber
from .files import Run, not_a_file
from .options import DecodeOptions
from .plan import FileJob, one_line
from .ray_reaper import Reaper
from .transcribe import MAX_BATCH_SIZE

MAX_RESTARTS = 4  # per actor: Ray restarts a dead one this often (each restart loads the model again)
DEATHS_PER_FILE = 2  # a file under which workers died this often, alone, is recorded as failed
IN_FLIGHT = 2  # groups queued per actor: the next one's bytes arrive while it decodes
GROUP_BYTES = 64 * 2**20  # file bytes per task at most (a group is smaller when its files are large)
INSTALL = "pip install 'mlx-qwen3asr[ray]'"


@dataclass(frozen=True)
class RayOptions:
    """address: "auto" (RAY_ADDRESS, or the cluster `ray start` joined this machine to, else a new
    local one), "HOST:6379", or "ray://HOST:10001"; workers: how many actors (default: as many as
    the cluster's resources hold); cpus: each actor's CPUs and BLAS threads (default: the smallest
    node's count, or 1 with resources); resources: each actor's GPUs and custom resources, {"GPU": 1}, {"apple_gpu": 1}."""

    address: str = "auto"
    workers: Optional[int] = None
    cpus: Optional[float] = None
    resources: Mapping[str, float] = field(default_factory=dict)


def import_ray():
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"ray= needs Ray, which is not installed: {INSTALL}") from e
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


def worker_shape(ray, settings: RayOptions) -> tuple[dict, int]:
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


def start_workers(ray, settings: RayOptions, model: str, dtype, aligner) -> list:
    options, count = worker_shape(ray, settings)
    options.update(max_restarts=MAX_RESTARTS, scheduling_strategy="SPREAD")
    options.update(runtime_env={"env_vars": worker_environment()})
    remote, threads = ray.remote(Transcriber), max(1, int(options["num_cpus"]))
    run_id = uuid.uuid4().hex[:8]  # named, so that `ray list actors` shows them: mlx-qwen3asr-<run>-<n>
    actors = [
        remote.options(**options, name=f"mlx-qwen3asr-{run_id}-{n}").remote(model, dtype, aligner, threads)
        for n in range(count)
    ]
    try:
        described = ray.get([actor.describe.remote() for actor in actors])
    except ray.exceptions.RayActorError as e:  # every restart used up before it ever answered
        stop(ray, actors)
        raise RuntimeError(f"a Ray worker could not start ({one_line(e)[:400]})") from e
    for worker in described:
        if worker["error"]:
            stop(ray, actors)
            raise ValueError(
                f"on node {worker['node']}: {worker['error']}: "
                "name a hub id, or a folder at the same path on every node"
            )
        if worker["blas"] == "reference" and worker["cpu"]:
            print(
                f"warning: node {worker['node']}: {blas.SLOW_BLAS_WARNING.removeprefix('warning: ')}", file=sys.stderr
            )
    return actors


def stop(ray, actors: list) -> None:
    for actor in actors:
        ray.kill(actor, no_restart=True)


def groups(jobs: list[FileJob], size: int) -> list[list[int]]:
    """Job indices in order, at most `size` files and GROUP_BYTES of files (at least one) a group."""
    result: list[list[int]] = []
    weight = 0
    for i, job in enumerate(jobs):
        nbytes = job.source.stat().st_size if job.source.is_file() else 0
        if not result or len(result[-1]) >= size or weight + nbytes > GROUP_BYTES:
            result.append([])
            weight = 0
        result[-1].append(i)
        weight += nbytes
    return result


def name_of(model) -> str:
    """What each worker loads: a folder here as an absolute path (the same path on every node), else the hub id."""
    return os.path.abspath(model) if os.path.isdir(model) else os.fspath(model)


def run_on_ray(
    jobs: list[FileJob], run: Run, model, dtype, aligner, options: DecodeOptions, batch_size, ray_option
) -> None:
    """files.transcribe_files' Ray path: start the workers, feed them, write what they return."""
    ray = import_ray()
    settings = ray_option if isinstance(ray_option, RayOptions) else RayOptions(address=ray_option)
    connected = connect(ray, settings.address)
    reaper = Reaper.start() if connected else None  # a local cluster started here dies with this process
    actors: list = []
    try:
        actors = start_workers(ray, settings, name_of(model), dtype, aligner and name_of(aligner))
        if reaper is not None:
            reaper.watch()  # the processes Ray started for the workers
        run.started()
        size = max(1, min(batch_size or MAX_BATCH_SIZE, math.ceil(len(jobs) / (IN_FLIGHT * len(actors)))))
        Feed(ray, actors, jobs, run, options, batch_size).until_done(groups(jobs, size))
    finally:  # also on Ctrl-C: the workers go, and a cluster started here stops
        stop(ray, actors)
        if connected:
            ray.shutdown()
        if reaper is not None:
            reaper.close()


class Feed:
    """Keeps IN_FLIGHT groups on each living actor until every job is finished. A group whose actor
    died goes back to the queue one file per task; the actor takes work again once it answers a
    ping (Ray restarts it), or never, when its restarts are used up."""

    def __init__(self, ray, actors: list, jobs: list[FileJob], run: Run, options: DecodeOptions, batch_size):
        self.ray, self.actors, self.jobs, self.run = ray, actors, jobs, run
        self.options, self.batch_size = options, batch_size
        self.queue: deque[tuple[list[int], int]] = deque()  # (job indices, deaths under them)
        self.waiting: dict = {}  # ref -> (actor number, (job indices, deaths)) for a task, (k, None) for a ping
        self.living, self.load = set(range(len(actors))), [0] * len(actors)
        self.last_death = ""  # why the last actor died (Ray's words: killed, out of memory, node lost)

    def until_done(self, work: list[list[int]]) -> None:
        self.queue.extend((group, 0) for group in work)
        while self.queue or any(item is not None for _, item in self.waiting.values()):
            self.fill()
            if not self.waiting:
                raise RuntimeError(f"every Ray worker died ({self.last_death[:400]}): the same command continues")
            [ref], _ = self.ray.wait(list(self.waiting), num_returns=1)
            k, item = self.waiting.pop(ref)
            try:
                value = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as e:
                self.died(k, item, e)
                continue
            if item is None:  # a restarted actor answers
                self.living.add(k)
                continue
            self.load[k] -= 1
            for i, outcome, seconds in value:
                self.run.finish(self.jobs[item[0][i]], outcome, seconds)

    def fill(self) -> None:
        for k in sorted(self.living, key=lambda k: self.load[k]):
            while self.queue and self.load[k] < IN_FLIGHT:
                group, deaths = self.queue.popleft()
                files = [(i, read(self.jobs[i], self.run)) for i in group]
                sent = [(i, data) for i, data in files if data is not None]
                if sent:
                    task = [(str(self.jobs[i].source), data) for i, data in sent]
                    ref = self.actors[k].decode.remote(task, self.options, self.batch_size)
                    self.waiting[ref] = (k, ([i for i, _ in sent], deaths))
                    self.load[k] += 1

    def died(self, k: int, item, error: Exception) -> None:
        """Actor k died under a task (or a ping): the task's files back to the queue, one a task."""
        self.last_death = one_line(error)
        if item is not None:
            self.load[k] -= 1
            group, deaths = item
            if len(group) == 1 and deaths + 1 >= DEATHS_PER_FILE:
                reason = f"its Ray worker died while decoding it, {deaths + 1} times: {one_line(error)}"
                self.run.finish(self.jobs[group[0]], reason, 0.0)
            else:
                self.queue.extendleft(([i], deaths + 1) for i in reversed(group))
        if k in self.living:  # Ray restarts it (within MAX_RESTARTS): used again when it answers
            self.living.discard(k)
            self.waiting[self.actors[k].describe.remote()] = (k, None)


def read(job: FileJob, run: Run) -> Optional[bytes]:
    """The file's bytes to send, or None after recording why it cannot be read here."""
    if (reason := not_a_file(job.source)) is not None:
        run.finish(job, reason, 0.0)
        return None
    try:
        return job.source.read_bytes()
    except OSError as e:
        run.finish(job, f"Cannot read {job.source}: {e.strerror or one_line(e)}", 0.0)
        return None
