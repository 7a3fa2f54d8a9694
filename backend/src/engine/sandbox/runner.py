#!/usr/bin/env python3
"""Superstep's runner for imported LangGraph repositories.

It runs inside the import sandbox (a Docker container, or a subprocess for tests and machines
without Docker) against the repository's own Python code. Python 3.11 or newer; only the standard
library and langgraph (python-dotenv is used when installed).

Commands
  runner.py inspect --root DIR --graph SPEC [--graph SPEC ...]
  runner.py run --root DIR --graph SPEC --input JSON [--checkpoint FILE] [--resume JSON]
                [--env-example FILE] [--thread-id ID]

SPEC is `id=./path.py:var` or `id=pkg.mod:var`. The id may contain spaces but not "=". The value
may be a compiled graph, a StateGraph (compiled here), a factory taking no argument, a
RunnableConfig, or a RunnableConfig and a ServerRuntime (sync or async), or an async context
manager, as `langgraph dev` accepts. JSON arguments may be given as `@FILE` to read them from a file.

Protocol: stdout carries only JSON lines, one object per line, each with a "type". Everything
else (the graph's own prints, logging, warnings) goes to stderr. Line types:
  inspect: graph, graph_error
  run:     run_started, node_started, node_finished, checkpoint, checkpoint_unavailable,
           then exactly one of run_finished, waiting, error
docs/en/import-runner.md describes each field.

Exit codes
  0  inspect: every graph loaded; run: finished (run_finished) or paused at an interrupt (waiting)
  1  run: the graph raised while running (an error line says why)
  2  usage: bad arguments, unreadable JSON or checkpoint file
  3  a graph could not be loaded (import error, missing environment variable, network at load,
     not a graph); inspect still prints a line for every graph
  4  the runner itself failed (a bug here); an error line is printed when possible
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import functools
import importlib
import importlib.util
import inspect as pyinspect
import json
import os
import re
import socket
import sys
import traceback
import uuid
from typing import Any

EXIT_OK = 0
EXIT_RUN_FAILED = 1
EXIT_USAGE = 2
EXIT_LOAD_FAILED = 3
EXIT_INTERNAL = 4

CHECKPOINT_LIMIT_BYTES = 2 * 1024 * 1024
CHECKPOINT_FORMAT = "superstep-runner-checkpoint/1"
PREVIEW_STRING = 2000
PREVIEW_ITEMS = 50

# --- output -----------------------------------------------------------------------------------

# The protocol keeps its own handle on the real stdout; fd 1 and sys.stdout are then pointed at
# stderr so that a print() (or a C library writing to fd 1) in the repository's code cannot put
# a stray line into the protocol.
_protocol = None


def _claim_stdout() -> None:
    global _protocol
    sys.stdout.flush()
    _protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


def emit(line_type: str, /, **fields: Any) -> None:
    line = json.dumps({"type": line_type, **fields}, ensure_ascii=False, default=str)
    out = _protocol or sys.stdout
    out.write(line + "\n")
    out.flush()


def log(message: str) -> None:
    print(f"runner: {message}", file=sys.stderr, flush=True)


class UsageError(Exception):
    pass


# --- JSON-safe values ---------------------------------------------------------------------------


def to_jsonable(value: Any, *, preview: bool = False, depth: int = 0) -> Any:
    """A JSON-safe copy of a state value. Previews cut long strings and long lists."""
    if depth > 40:
        return "…"
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, str):
        if preview and len(value) > PREVIEW_STRING:
            return value[:PREVIEW_STRING] + f"… ({len(value)} characters)"
        return value
    if isinstance(value, bytes | bytearray):
        if preview:
            return f"<{len(value)} bytes>"
        return {"__bytes__": base64.b64encode(bytes(value)).decode("ascii")}
    nested = functools.partial(to_jsonable, preview=preview, depth=depth + 1)
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k): nested(v) for k, v in (items[:PREVIEW_ITEMS] if preview else items)}
        if preview and len(items) > PREVIEW_ITEMS:
            out["…"] = f"{len(items) - PREVIEW_ITEMS} more keys"
        return out
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        out = [nested(v) for v in (items[:PREVIEW_ITEMS] if preview else items)]
        if preview and len(items) > PREVIEW_ITEMS:
            out.append(f"… {len(items) - PREVIEW_ITEMS} more items")
        return out
    # Pydantic models (LangChain messages among them), dataclasses, named tuples.
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        with contextlib.suppress(Exception):
            return nested(dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        with contextlib.suppress(Exception):
            return nested({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    as_dict = getattr(value, "_asdict", None)
    if callable(as_dict):
        with contextlib.suppress(Exception):
            return nested(as_dict())
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        with contextlib.suppress(Exception):
            return {"__type__": type(value).__qualname__, **nested(vars(value))}
    text = repr(value)
    return text[:PREVIEW_STRING] if preview else text


def read_json_argument(text: str, name: str) -> Any:
    try:
        if text.startswith("@"):
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        return json.loads(text)
    except (OSError, ValueError) as e:
        raise UsageError(f"{name} is not valid JSON: {e}") from e


# --- failures with their cause named ------------------------------------------------------------


class NetworkDuringLoad(BaseException):
    """Raised by the socket guard. A BaseException so a library's `except Exception` keeps it."""


_network_attempts: list[str] = []


@contextlib.contextmanager
def socket_guard():
    """While a graph loads, any connection or name lookup raises NetworkDuringLoad."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse(what: str):
        _network_attempts.append(what)
        raise NetworkDuringLoad(f"tried to reach the network while loading ({what})")

    def connect(self, address):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        refuse(f"connect to {address!r}")

    def connect_ex(self, address):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect_ex(self, address)
        refuse(f"connect to {address!r}")

    def getaddrinfo(host, *args, **kwargs):
        refuse(f"look up {host!r}")

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = real_connect
        socket.socket.connect_ex = real_connect_ex
        socket.getaddrinfo = real_getaddrinfo


_ENV_NAME_IN_MESSAGE = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|KEY|TOKEN|SECRET))\b")
_KEY_WORDS = re.compile(r"api[ _-]?key|auth(?:entication)?[ _-]?token|credentials", re.IGNORECASE)


def _repo_frame(tb, root: str) -> dict | None:
    """The innermost traceback frame in the repository's own files (not its installed packages)."""
    found = None
    for frame in traceback.extract_tb(tb):
        if frame.filename.startswith("<"):  # "<frozen os>", "<string>"
            continue
        path = os.path.realpath(frame.filename)
        if not path.startswith(root + os.sep):
            continue
        rel = os.path.relpath(path, root)
        if "site-packages" in rel.split(os.sep) or rel.split(os.sep)[0].startswith(".venv"):
            continue
        found = {"file": rel, "line": frame.lineno, "function": frame.name}
    return found


def _chain(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)


def describe_failure(error: BaseException, root: str, env_example: list[str] | None = None) -> dict:
    """Names the cause: a missing environment variable, the network at load, or the exception."""
    info: dict[str, Any] = {
        "error_type": type(error).__name__,
        "message": str(error) or type(error).__name__,
        "location": _repo_frame(error.__traceback__, root),
        "kind": "exception",
    }
    if isinstance(error, SyntaxError) and error.filename and not error.filename.startswith("<"):
        # The broken file is not a frame of the traceback; the error itself says where.
        path = os.path.realpath(error.filename)
        if path.startswith(root + os.sep):
            info["location"] = {"file": os.path.relpath(path, root), "line": error.lineno, "function": None}
    for link in _chain(error):
        if isinstance(link, NetworkDuringLoad):
            info.update(kind="network", message=str(link))
            return info
    variables: list[str] = []
    for link in _chain(error):
        frames = traceback.extract_tb(link.__traceback__)
        # os.environ["NAME"] raises KeyError from os.py's _Environ.__getitem__.
        if (
            isinstance(link, KeyError)
            and link.args
            and frames
            and frames[-1].filename in ("<frozen os>", os.__file__)
        ):
            variables.append(str(link.args[0]))
            continue
        text = str(link)
        if _KEY_WORDS.search(text) or _ENV_NAME_IN_MESSAGE.search(text):
            variables.extend(m for m in _ENV_NAME_IN_MESSAGE.findall(text) if not os.environ.get(m))
            if not variables and _KEY_WORDS.search(text):
                info["kind"] = "missing_env"
    missing_declared = [n for n in (env_example or []) if not os.environ.get(n)]
    if variables:
        info["kind"] = "missing_env"
        info["variables"] = list(dict.fromkeys(variables))
        info["message"] = (
            f"missing environment variable {', '.join(info['variables'])}: {info['message']}"
        )
    if info["kind"] == "missing_env" or missing_declared:
        info["missing_env"] = missing_declared
    if _network_attempts and info["kind"] == "exception":
        # A library caught the guard's error and raised its own: the network is still the cause.
        info.update(kind="network", message=f"tried to reach the network while loading ({_network_attempts[0]}): {info['message']}")
    return info


def read_env_names(path: str | None) -> list[str]:
    if not path:
        return []
    names = []
    try:
        with open(path, encoding="utf-8") as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                line = line.removeprefix("export ").strip()
                name = line.split("=", 1)[0].strip()
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                    names.append(name)
    except OSError as e:
        raise UsageError(f"cannot read --env-example {path}: {e}") from e
    return list(dict.fromkeys(names))


# --- loading graphs the way `langgraph dev` does --------------------------------------------------


@dataclasses.dataclass
class GraphSpec:
    id: str
    path: str | None
    module: str | None
    variable: str | None


def parse_spec(text: str) -> GraphSpec:
    graph_id, sep, target = text.partition("=")
    if not sep or not graph_id.strip() or not target.strip():
        raise UsageError(f"--graph must be id=./path.py:var or id=pkg.mod:var, got {text!r}")
    target = target.strip()
    location, _, variable = target.rpartition(":")
    if not location:
        location, variable = target, ""
    is_path = location.endswith(".py") or "/" in location or os.sep in location
    return GraphSpec(
        id=graph_id.strip(),
        path=location if is_path else None,
        module=None if is_path else location,
        variable=variable or None,
    )


def prepare_root(root: str) -> None:
    os.chdir(root)
    # The root is importable like under `langgraph dev`; src/ too, for a src-layout repository
    # whose own package could not be installed (the install falls back to its dependency list).
    for extra in (os.path.join(root, "src"), root):
        if os.path.isdir(extra) and extra not in sys.path:
            sys.path.insert(0, extra)
    env_file = os.path.join(root, ".env")
    if os.path.isfile(env_file):
        try:
            from dotenv import load_dotenv
        except ImportError:
            log("python-dotenv is not installed; .env not loaded")
        else:
            load_dotenv(env_file, override=False)


def import_target(spec: GraphSpec, root: str):
    if spec.module:
        return importlib.import_module(spec.module)
    path = os.path.normpath(os.path.join(root, spec.path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such graph file: {spec.path}")
    name = spec.path.replace("/", "__").replace(".py", "").replace(" ", "_").lstrip(".")
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot import {spec.path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    return module


def _graph_types():
    from langgraph.graph import StateGraph
    from langgraph.pregel import Pregel

    return StateGraph, Pregel


def find_value(spec: GraphSpec, module) -> Any:
    StateGraph, Pregel = _graph_types()
    if spec.variable:
        if spec.variable not in module.__dict__:
            raise LookupError(f"'{spec.variable}' is not defined in {spec.path or spec.module}")
        return module.__dict__[spec.variable]
    for wanted in (Pregel, StateGraph):
        for _, member in pyinspect.getmembers(module):
            if isinstance(member, wanted):
                return member
    raise LookupError(f"no graph found in {spec.path or spec.module}")


def _new_store():
    try:
        from langgraph.store.memory import InMemoryStore
    except ImportError:
        return None
    return InMemoryStore()


def _server_runtime(access_context: str, context: Any, store: Any):
    """langgraph-api's ServerRuntime (langgraph_sdk.runtime) when the SDK has it, else None."""
    try:
        from langgraph_sdk.runtime import _ExecutionRuntime, _ReadRuntime
    except ImportError:
        return None
    if access_context == "threads.create_run":
        return _ExecutionRuntime(access_context=access_context, user=None, store=store, context=context)
    return _ReadRuntime(access_context=access_context, user=None, store=store)


def _is_runtime_parameter(fn, parameter: pyinspect.Parameter) -> bool:
    annotation = parameter.annotation
    with contextlib.suppress(Exception):
        import typing

        annotation = typing.get_type_hints(fn).get(parameter.name, annotation)
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return "ServerRuntime" in text or "_ExecutionRuntime" in text or "_ReadRuntime" in text


def factory_arguments(fn, config: dict, runtime: Any) -> dict:
    """Arguments as langgraph-api's factory classification gives them: by annotation, a
    ServerRuntime parameter gets the runtime and the other one the config; without annotations
    one parameter is the config and two are (config, runtime) in that order."""
    params = [
        p
        for p in pyinspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.default is p.empty
    ]
    if len(params) == 0:
        return {}
    if len(params) > 2:
        raise TypeError(f"a graph factory takes 0, 1 or 2 arguments, {fn.__name__} takes {len(params)}")
    runtime_params = [p for p in params if _is_runtime_parameter(fn, p)]
    if len(params) == 1:
        return {params[0].name: runtime if runtime_params else config}
    runtime_param = runtime_params[0] if len(runtime_params) == 1 else params[1]
    config_param = params[0] if runtime_param is params[1] else params[1]
    return {config_param.name: config, runtime_param.name: runtime}


async def resolve_graph(value: Any, stack: contextlib.AsyncExitStack, config: dict, runtime: Any):
    """A compiled graph from whatever the spec points at; context managers stay open on `stack`."""
    StateGraph, Pregel = _graph_types()
    for _ in range(5):
        if isinstance(value, Pregel):
            return value
        if isinstance(value, StateGraph):
            return value.compile()
        if hasattr(value, "__aenter__") and hasattr(value, "__aexit__"):
            value = await stack.enter_async_context(value)
        elif hasattr(value, "__enter__") and hasattr(value, "__exit__"):
            value = stack.enter_context(value)
        elif pyinspect.isawaitable(value):
            value = await value
        elif callable(value):
            value = value(**factory_arguments(value, config, runtime))
        else:
            break
    raise TypeError(f"not a graph or a graph factory: {type(value).__name__}")


class LoadFailure(Exception):
    def __init__(self, info: dict):
        super().__init__(info["message"])
        self.info = info


async def load_graph(
    spec: GraphSpec, root: str, stack, config: dict, access_context: str, context=None, env_example=None, store=None
):
    _network_attempts.clear()
    stage = "import"
    try:
        with socket_guard():
            module = import_target(spec, root)
            stage = "build"
            value = find_value(spec, module)
            return await resolve_graph(value, stack, config, _server_runtime(access_context, context, store))
    except (Exception, NetworkDuringLoad) as e:
        traceback.print_exception(e)
        info = describe_failure(e, root, env_example)
        info["stage"] = stage
        raise LoadFailure(info) from e


# --- inspect ----------------------------------------------------------------------------------


def _source_of(runnable: Any, root: str) -> dict | None:
    candidates = [runnable]
    for attr in ("afunc", "func", "bound"):
        inner = getattr(runnable, attr, None)
        if inner is not None:
            candidates.insert(0, inner)
    for fn in candidates:
        while isinstance(fn, functools.partial):
            fn = fn.func
        fn = pyinspect.unwrap(fn) if callable(fn) else fn
        try:
            path = os.path.realpath(pyinspect.getsourcefile(fn) or "")
            line = pyinspect.getsourcelines(fn)[1]
        except (TypeError, OSError):
            continue
        if path.startswith(root + os.sep) and "site-packages" not in path:
            return {"file": os.path.relpath(path, root), "line": line}
    return None


def describe_graph(spec: GraphSpec, graph, root: str) -> dict:
    drawable = graph.get_graph(xray=True)
    nodes = []
    groups: dict[str, list[str]] = {}
    for node_id, node in drawable.nodes.items():
        parent, _, last = node_id.rpartition(":")
        if parent:
            groups.setdefault(parent, []).append(node_id)
        data = node.data
        nodes.append(
            {
                "id": node_id,
                "name": node.name,
                "start": last == "__start__",
                "end": last == "__end__",
                "subgraph": parent or None,
                "source": _source_of(data, root) if data is not None else None,
                "metadata": to_jsonable(node.metadata, preview=True) if node.metadata else None,
            }
        )
    edges = [
        {
            "source": e.source,
            "target": e.target,
            "conditional": bool(e.conditional),
            "label": None if e.data is None else str(e.data),
        }
        for e in drawable.edges
    ]
    context_schema = None
    with contextlib.suppress(Exception):
        context_schema = to_jsonable(graph.get_context_jsonschema())
    return {
        "id": spec.id,
        "name": getattr(graph, "name", None),
        "nodes": nodes,
        "edges": edges,
        "subgraphs": [{"id": k, "nodes": v} for k, v in groups.items()],
        "context_schema": context_schema,
    }


async def cmd_inspect(args) -> int:
    root = os.path.realpath(args.root)
    specs = [parse_spec(s) for s in args.graph]
    prepare_root(root)
    failed = False
    for spec in specs:
        async with contextlib.AsyncExitStack() as stack:
            try:
                graph = await load_graph(spec, root, stack, {"configurable": {}}, "assistants.read", store=_new_store())
                emit("graph", **describe_graph(spec, graph, root))
            except LoadFailure as e:
                failed = True
                emit("graph_error", id=spec.id, **e.info)
            except Exception as e:  # get_graph itself failed: still the graph's fault
                failed = True
                emit("graph_error", id=spec.id, stage="inspect", **describe_failure(e, root))
    return EXIT_LOAD_FAILED if failed else EXIT_OK


# --- checkpoints --------------------------------------------------------------------------------


class _LocalSerde:
    """The in-memory saver's serializer: langgraph's JsonPlusSerializer, and for a value it cannot
    encode a reference to the object kept in this process. The run goes on as it would without a
    checkpointer; only shipping the checkpoint to the server is then impossible."""

    LOCAL = "superstep-local-object"

    def __init__(self):
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        self.inner = JsonPlusSerializer()
        self.objects: dict[bytes, Any] = {}

    def dumps_typed(self, obj):
        try:
            return self.inner.dumps_typed(obj)
        except Exception:
            key = uuid.uuid4().hex.encode()
            self.objects[key] = obj
            return (self.LOCAL, key)

    def loads_typed(self, data):
        if data[0] == self.LOCAL:
            return self.objects[data[1]]
        return self.inner.loads_typed(data)


def _typed(serde, value) -> list:
    kind, blob = serde.dumps_typed(value)
    return [kind, base64.b64encode(blob).decode("ascii")]


def _untyped(serde, pair):
    return serde.loads_typed((pair[0], base64.b64decode(pair[1])))


def export_checkpoint(saver, thread_id: str) -> tuple[dict | None, str | None, int | None]:
    """The newest checkpoint of each namespace of the thread, with its pending writes, encoded
    with JsonPlusSerializer (base64). Returns (payload, None, step) or (None, reason, step), where
    step is the superstep of the newest root checkpoint: what the saver holds, which may be a
    step behind the stream's event that asked for it."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    strict = JsonPlusSerializer()
    entries = []
    seen_ns = set()
    step = None
    try:
        for item in saver.list({"configurable": {"thread_id": thread_id}}):
            ns = item.config["configurable"].get("checkpoint_ns", "")
            if ns in seen_ns:
                continue
            seen_ns.add(ns)
            if ns == "":
                step = (item.metadata or {}).get("step")
            entries.append(
                {
                    "checkpoint_ns": ns,
                    "checkpoint": _typed(strict, item.checkpoint),
                    "metadata": _typed(strict, item.metadata),
                    "writes": [
                        {"task_id": task_id, "channel": channel, "value": _typed(strict, value)}
                        for task_id, channel, value in item.pending_writes or []
                    ],
                }
            )
    except Exception as e:
        return None, f"state cannot be serialised: {type(e).__name__}: {e}", step
    if not entries:
        return None, "no checkpoint yet", step
    payload = {"format": CHECKPOINT_FORMAT, "thread_id": thread_id, "entries": entries}
    size = len(json.dumps(payload))
    if size > CHECKPOINT_LIMIT_BYTES:
        return None, f"checkpoint is {size} bytes, over the {CHECKPOINT_LIMIT_BYTES} byte (2 MB) limit", step
    return payload, None, step


def import_checkpoint(saver, payload: dict) -> str:
    if payload.get("type") == "checkpoint":
        payload = payload.get("checkpoint") or {}
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise UsageError(f"--checkpoint is not a {CHECKPOINT_FORMAT} checkpoint")
    serde = saver.serde
    thread_id = payload["thread_id"]
    # Parents before children: the root namespace first.
    for entry in sorted(payload["entries"], key=lambda e: e["checkpoint_ns"].count("|") + (e["checkpoint_ns"] != "")):
        checkpoint = _untyped(serde.inner, entry["checkpoint"])
        metadata = _untyped(serde.inner, entry["metadata"])
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": entry["checkpoint_ns"]}}
        stored = saver.put(config, checkpoint, metadata, dict(checkpoint.get("channel_versions", {})))
        by_task: dict[str, list] = {}
        for write in entry["writes"]:
            by_task.setdefault(write["task_id"], []).append((write["channel"], _untyped(serde.inner, write["value"])))
        for task_id, writes in by_task.items():
            saver.put_writes(stored, writes, task_id)
    return thread_id


# --- run ----------------------------------------------------------------------------------------


def _node_id(namespace: tuple, name: str) -> str:
    # A namespace element is "node:task_id"; xray node ids are "parent:child".
    return ":".join([part.split(":")[0] for part in namespace] + [name])


def _interrupts(value) -> list:
    return [
        {"id": getattr(i, "id", None), "value": to_jsonable(getattr(i, "value", i))}
        for i in (value if isinstance(value, list | tuple) else [value])
    ]


async def cmd_run(args) -> int:
    root = os.path.realpath(args.root)
    spec = parse_spec(args.graph)
    raw_input = read_json_argument(args.input, "--input") if args.input is not None else None
    resume = read_json_argument(args.resume, "--resume") if args.resume is not None else None
    checkpoint_payload = read_json_argument("@" + args.checkpoint, "--checkpoint") if args.checkpoint else None
    if resume is not None and checkpoint_payload is None and not args.thread_id:
        raise UsageError("--resume needs --checkpoint (or --thread-id with the graph's own checkpointer)")
    env_example = read_env_names(args.env_example)
    context = None
    graph_input = raw_input
    if isinstance(raw_input, dict) and "__context__" in raw_input:
        graph_input = dict(raw_input)
        context = graph_input.pop("__context__")
    prepare_root(root)

    try:
        from langgraph.checkpoint.memory import InMemorySaver
    except ImportError:  # langgraph before the rename
        from langgraph.checkpoint.memory import MemorySaver as InMemorySaver
    from langgraph.types import Command

    thread_id = args.thread_id or str(uuid.uuid4())
    configurable: dict[str, Any] = {"thread_id": thread_id}
    config: dict[str, Any] = {"configurable": configurable}
    async with contextlib.AsyncExitStack() as stack:
        try:
            # One store for the factory's runtime and the graph, as langgraph dev gives both.
            store = _new_store()
            graph = await load_graph(spec, root, stack, config, "threads.create_run", context, env_example, store)
        except LoadFailure as e:
            emit("error", phase="load", **e.info)
            return EXIT_LOAD_FAILED

        if getattr(graph, "store", None) is None and store is not None:
            graph = graph.copy(update={"store": store})
        own = graph.checkpointer not in (None, True, False) and not isinstance(graph.checkpointer, InMemorySaver)
        saver = None
        if own and checkpoint_payload is not None:
            raise UsageError("--checkpoint is for graphs without a checkpointer of their own; use --thread-id")
        if not own:
            saver = InMemorySaver(serde=_LocalSerde())
            graph = graph.copy(update={"checkpointer": saver})
            if checkpoint_payload is not None:
                try:
                    thread_id = import_checkpoint(saver, checkpoint_payload)
                except UsageError:
                    raise
                except Exception as e:
                    raise UsageError(f"--checkpoint cannot be restored: {type(e).__name__}: {e}") from e
                configurable["thread_id"] = thread_id

        kwargs: dict[str, Any] = {}
        if context is not None:
            if "context" in pyinspect.signature(graph.astream).parameters:
                kwargs["context"] = context
            # Graphs written before the runtime context API read it from configurable.
            if getattr(graph, "context_schema", None) is None and isinstance(context, dict):
                configurable.update(context)
        if "durability" in pyinspect.signature(graph.astream).parameters:
            # Each checkpoint is written before the next superstep starts, so a shipped one is
            # never ahead of what the graph has done.
            kwargs["durability"] = "sync"

        emit("run_started", graph=spec.id, thread_id=thread_id, checkpointer="own" if own else "in_memory", resumed=resume is not None)
        payload = Command(resume=resume) if resume is not None else graph_input
        superstep = 0
        last_step = 0
        pending_interrupts: list = []
        last_shipped = None

        def ship():
            # Called at each root checkpoint event and at the end; the line carries the step of
            # what the saver holds, and is printed only when that changed.
            nonlocal last_shipped
            if saver is None:
                return
            data, reason, step = export_checkpoint(saver, thread_id)
            if data is None:
                if reason != "no checkpoint yet" and last_shipped != (reason, step):
                    emit("checkpoint_unavailable", superstep=step, reason=reason)
                    last_shipped = (reason, step)
                return
            key = json.dumps(data, sort_keys=True)
            if key != last_shipped:
                emit("checkpoint", superstep=step, thread_id=thread_id, checkpoint=data)
                last_shipped = key

        try:
            stream = graph.astream(
                payload,
                config,
                stream_mode=["tasks", "updates", "checkpoints"],
                subgraphs=True,
                **kwargs,
            )
            async for namespace, mode, chunk in stream:
                if mode == "checkpoints":
                    if not namespace:
                        superstep = int((chunk.get("metadata") or {}).get("step", superstep - 1)) + 1
                        ship()
                elif mode == "tasks" and "input" in chunk:
                    node = _node_id(namespace, chunk["name"])
                    last_step = superstep
                    emit("node_started", node=node, task_id=chunk["id"], superstep=superstep,
                         namespace=list(namespace), input=to_jsonable(chunk.get("input"), preview=True))
                elif mode == "tasks":
                    node = _node_id(namespace, chunk["name"])
                    interrupts = chunk.get("interrupts") or []
                    status = "error" if chunk.get("error") else ("interrupted" if interrupts else "ok")
                    emit("node_finished", node=node, task_id=chunk["id"], superstep=superstep,
                         namespace=list(namespace), status=status,
                         output=to_jsonable(chunk.get("result"), preview=True),
                         error=None if not chunk.get("error") else str(chunk.get("error")),
                         interrupts=[to_jsonable(i) for i in interrupts])
                elif mode == "updates" and not namespace and "__interrupt__" in chunk:
                    pending_interrupts.extend(_interrupts(chunk["__interrupt__"]))
        except Exception as e:
            ship()
            emit("error", phase="run", superstep=superstep, **describe_failure(e, root, env_example))
            return EXIT_RUN_FAILED

        ship()
        state = await graph.aget_state(config)
        values = to_jsonable(state.values)
        if state.next or pending_interrupts:
            if not pending_interrupts:
                for task in state.tasks:
                    pending_interrupts.extend(_interrupts(list(task.interrupts)))
            emit("waiting", superstep=last_step, thread_id=thread_id, interrupts=pending_interrupts,
                 next=list(state.next), state=values)
        else:
            emit("run_finished", superstep=last_step, thread_id=thread_id, state=values)
    return EXIT_OK


# --- command line -----------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="runner.py", description="Superstep's runner for imported LangGraph repositories")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    inspect_cmd = sub.add_parser("inspect", help="load graphs and print their structure")
    inspect_cmd.add_argument("--root", required=True)
    inspect_cmd.add_argument("--graph", action="append", required=True)
    run_cmd = sub.add_parser("run", help="run one graph and stream its events")
    run_cmd.add_argument("--root", required=True)
    run_cmd.add_argument("--graph", required=True)
    run_cmd.add_argument("--input", default=None)
    run_cmd.add_argument("--checkpoint", default=None)
    run_cmd.add_argument("--resume", default=None)
    run_cmd.add_argument("--env-example", default=None)
    run_cmd.add_argument("--thread-id", default=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    _claim_stdout()
    if sys.version_info < (3, 11):
        emit("error", phase="runner", kind="internal", error_type="RuntimeError",
             message=f"the runner needs Python 3.11 or newer, this is {sys.version.split()[0]}")
        return EXIT_INTERNAL
    try:
        args = build_parser().parse_args(argv)
        if not os.path.isdir(args.root):
            raise UsageError(f"--root is not a directory: {args.root}")
        if args.command == "run" and args.input is None and args.resume is None:
            raise UsageError("run needs --input (or --resume)")
        command = cmd_inspect if args.command == "inspect" else cmd_run
        return asyncio.run(command(args))
    except UsageError as e:
        emit("error", phase="usage", kind="usage", error_type="UsageError", message=str(e))
        return EXIT_USAGE
    except BaseException as e:  # noqa: BLE001 - the server must always get a line
        if isinstance(e, SystemExit | KeyboardInterrupt):
            raise
        traceback.print_exc()
        emit("error", phase="runner", kind="internal", error_type=type(e).__name__, message=str(e))
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
