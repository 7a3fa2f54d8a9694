"""`runner.py inspect`: every shape of graph value `langgraph dev` accepts, the xray structure,
and load failures with their cause named."""

from __future__ import annotations

import json

import pytest
from conftest import run_runner, write_repo

STATE = """
from typing import TypedDict
from langgraph.graph import StateGraph, START, END

class State(TypedDict):
    text: str

def shout(state: State) -> dict:
    return {"text": state["text"].upper()}

def builder() -> StateGraph:
    g = StateGraph(State)
    g.add_node("shout", shout)
    g.add_edge(START, "shout")
    g.add_edge("shout", END)
    return g
"""

# One repository with every shape; each factory writes what it was given to calls.jsonl.
SHAPES = {
    "common.py": STATE
    + """
import json, os
def record(**fields):
    with open(os.path.join(os.path.dirname(__file__), "calls.jsonl"), "a") as f:
        f.write(json.dumps(fields) + "\\n")
""",
    "mypkg/__init__.py": "",
    "mypkg/compiled.py": """
from common import builder
graph = builder().compile()
""",
    "bare.py": """
from common import builder
workflow = builder()
""",
    "factories.py": """
import contextlib
from langgraph_sdk.runtime import ServerRuntime
from common import builder, record

def zero():
    record(shape="zero")
    return builder().compile()

def one(config):
    record(shape="one", configurable="configurable" in config)
    return builder().compile()

def two(config, runtime):
    record(shape="two", configurable="configurable" in config, runtime=type(runtime).__name__,
           access=getattr(runtime, "access_context", None))
    return builder()

def runtime_only(runtime: ServerRuntime):
    record(shape="runtime_only", runtime=type(runtime).__name__)
    return builder().compile()

def two_reversed(runtime: ServerRuntime, config):
    record(shape="two_reversed", runtime=type(runtime).__name__, configurable="configurable" in config)
    return builder().compile()

async def async_zero():
    record(shape="async_zero")
    return builder().compile()

async def async_one(config):
    record(shape="async_one", configurable="configurable" in config)
    return builder()

@contextlib.asynccontextmanager
async def managed(config):
    record(shape="managed", phase="enter")
    try:
        yield builder().compile()
    finally:
        record(shape="managed", phase="exit")
""",
}

SPECS = {
    "module var": "mypkg.compiled:graph",
    "bare graph": "./bare.py:workflow",
    "zero": "./factories.py:zero",
    "one": "./factories.py:one",
    "two": "./factories.py:two",
    "runtime only": "./factories.py:runtime_only",
    "two reversed": "./factories.py:two_reversed",
    "async zero": "./factories.py:async_zero",
    "async one": "./factories.py:async_one",
    "async context manager": "./factories.py:managed",
}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    root = write_repo(tmp_path_factory.mktemp("shapes"), SHAPES)
    args = ["inspect", "--root", str(root)]
    for graph_id, target in SPECS.items():
        args += ["--graph", f"{graph_id}={target}"]
    result = run_runner(*args)
    calls = [json.loads(line) for line in (root / "calls.jsonl").read_text().splitlines()]
    return result, calls


def test_every_shape_loads_and_inspect_exits_zero(shapes):
    result, _ = shapes
    assert result.code == 0, result.stderr
    assert result.of("graph_error") == []
    # Graph ids with spaces come back as given, one line each, in order.
    assert [g["id"] for g in result.of("graph")] == list(SPECS)


@pytest.mark.parametrize("graph_id", list(SPECS))
def test_shape_gives_its_nodes_edges_and_source(shapes, graph_id):
    result, _ = shapes
    graph = next(g for g in result.of("graph") if g["id"] == graph_id)
    by_id = {n["id"]: n for n in graph["nodes"]}
    assert set(by_id) == {"__start__", "shout", "__end__"}
    assert by_id["__start__"]["start"] and by_id["__end__"]["end"]
    assert not by_id["shout"]["start"] and not by_id["shout"]["end"]
    # The node's function lives in common.py: `def shout` is line 7 of the fixture.
    assert by_id["shout"]["source"] == {"file": "common.py", "line": 7}
    assert {(e["source"], e["target"], e["conditional"]) for e in graph["edges"]} == {
        ("__start__", "shout", False),
        ("shout", "__end__", False),
    }


def test_factories_get_config_and_server_runtime_like_langgraph_api(shapes):
    _, calls = shapes
    by_shape = {}
    for call in calls:
        by_shape.setdefault(call["shape"], []).append(call)
    assert by_shape["zero"] == [{"shape": "zero"}]
    assert by_shape["one"] == [{"shape": "one", "configurable": True}]
    assert by_shape["two"] == [
        {"shape": "two", "configurable": True, "runtime": "_ReadRuntime", "access": "assistants.read"}
    ]
    assert by_shape["runtime_only"] == [{"shape": "runtime_only", "runtime": "_ReadRuntime"}]
    assert by_shape["two_reversed"] == [{"shape": "two_reversed", "runtime": "_ReadRuntime", "configurable": True}]
    assert by_shape["async_zero"] == [{"shape": "async_zero"}]
    assert by_shape["async_one"] == [{"shape": "async_one", "configurable": True}]
    # The context manager is entered for inspect and left afterwards.
    assert by_shape["managed"] == [{"shape": "managed", "phase": "enter"}, {"shape": "managed", "phase": "exit"}]


def test_subgraph_nodes_are_grouped_under_their_parent(repo):
    root = repo(
        {
            "g.py": """
            from typing import TypedDict
            from langgraph.graph import StateGraph, START, END

            class S(TypedDict):
                n: int

            def step(s): return {"n": s["n"] + 1}
            def check(s): return {"n": s["n"]}

            inner = StateGraph(S)
            inner.add_node("step", step)
            inner.add_node("check", check)
            inner.add_edge(START, "step")
            inner.add_edge("step", "check")
            inner.add_edge("check", END)

            outer = StateGraph(S)
            outer.add_node("prepare", step)
            outer.add_node("research", inner.compile())
            outer.add_edge(START, "prepare")
            outer.add_edge("prepare", "research")
            outer.add_edge("research", END)
            graph = outer.compile()
            """
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "nested graph=./g.py:graph")
    assert result.code == 0, result.stderr
    graph = result.one("graph")
    ids = {n["id"] for n in graph["nodes"]}
    assert {"prepare", "research:step", "research:check"} <= ids
    assert "research" not in ids  # xray replaces the subgraph node by its content
    assert graph["subgraphs"] == [{"id": "research", "nodes": [i for i in [n["id"] for n in graph["nodes"]] if i.startswith("research:")]}]
    step = next(n for n in graph["nodes"] if n["id"] == "research:step")
    assert step["subgraph"] == "research" and step["source"] == {"file": "g.py", "line": 7}
    edges = {(e["source"], e["target"]) for e in graph["edges"]}
    assert ("prepare", "research:step") in edges and ("research:step", "research:check") in edges


def test_network_at_load_is_named_connect(repo):
    root = repo(
        {
            "g.py": """
            import socket
            # A client that connects while the module is imported (here to loopback only).
            socket.socket().connect(("127.0.0.1", 9))
            graph = None
            """
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "net=./g.py:graph")
    assert result.code == 3
    error = result.one("graph_error")
    assert error["id"] == "net" and error["kind"] == "network"
    assert "tried to reach the network while loading" in error["message"]
    assert error["location"] == {"file": "g.py", "line": 3, "function": "<module>"}


def test_network_at_load_is_named_even_when_the_library_swallows_it(repo):
    root = repo(
        {
            "g.py": """
            import socket
            def make_client():
                try:
                    socket.getaddrinfo("localhost", 443)
                except BaseException as e:
                    raise RuntimeError("Connection error.") from None
            def factory():
                make_client()
            """
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "net=./g.py:factory")
    error = result.one("graph_error")
    assert result.code == 3 and error["kind"] == "network"
    assert "tried to reach the network while loading" in error["message"] and "localhost" in error["message"]
    assert error["error_type"] == "RuntimeError" and error["stage"] == "build"


def test_missing_environment_variable_at_load_is_named(repo):
    root = repo(
        {
            "g.py": """
            import os
            API_KEY = os.environ["ACME_API_KEY"]
            """
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "acme=./g.py:graph")
    error = result.one("graph_error")
    assert result.code == 3 and error["kind"] == "missing_env"
    assert error["variables"] == ["ACME_API_KEY"]
    assert error["location"] == {"file": "g.py", "line": 2, "function": "<module>"}


def test_provider_api_key_error_at_load_names_the_variable(repo):
    root = repo(
        {
            "provider.py": """
            import os
            class OpenAIError(Exception):
                pass
            class Client:
                def __init__(self):
                    if not os.environ.get("OPENAI_API_KEY"):
                        raise OpenAIError("The api_key client option must be set either by passing api_key "
                                          "to the client or by setting the OPENAI_API_KEY environment variable")
            """,
            "g.py": """
            from provider import Client
            client = Client()
            """,
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "agent=./g.py:graph")
    error = result.one("graph_error")
    assert error["kind"] == "missing_env" and error["variables"] == ["OPENAI_API_KEY"]
    assert error["error_type"] == "OpenAIError"
    # The innermost frame in the repository: the SDK-like module raising it.
    assert error["location"]["file"] == "provider.py" and error["location"]["line"] == 7


def test_a_graph_that_raises_at_import_gives_type_message_and_line(repo):
    root = repo(
        {
            "ok.py": "from langgraph.graph import StateGraph\n",
            "broken.py": """
            from typing import TypedDict

            def helper():
                raise ValueError("bad prompt template")

            helper()
            """,
        }
    )
    result = run_runner(
        "inspect", "--root", str(root), "--graph", "broken one=./broken.py:graph", "--graph", "missing=./nowhere.py:graph"
    )
    assert result.code == 3
    broken, missing = result.of("graph_error")
    assert broken["id"] == "broken one" and broken["stage"] == "import"
    assert broken["error_type"] == "ValueError" and broken["message"] == "bad prompt template"
    assert broken["location"] == {"file": "broken.py", "line": 4, "function": "helper"}
    assert missing["error_type"] == "FileNotFoundError" and "nowhere.py" in missing["message"]


def test_a_value_that_is_not_a_graph_is_refused(repo):
    root = repo({"g.py": "graph = 42\n"})
    result = run_runner("inspect", "--root", str(root), "--graph", "n=./g.py:graph", "--graph", "v=./g.py:absent")
    not_graph, absent = result.of("graph_error")
    assert result.code == 3
    assert not_graph["error_type"] == "TypeError" and "not a graph" in not_graph["message"]
    assert absent["error_type"] == "LookupError" and "'absent' is not defined" in absent["message"]


def test_bad_arguments_are_a_usage_error(repo):
    root = repo({"g.py": ""})
    result = run_runner("inspect", "--root", str(root), "--graph", "no-equals-sign")
    assert result.code == 2
    assert result.one("error")["kind"] == "usage"


def test_dotenv_in_the_root_is_loaded_before_the_graph(repo):
    root = repo(
        {
            ".env": "ACME_API_KEY=from-dotenv\n",
            "g.py": """
            import os
            from common import builder
            assert os.environ["ACME_API_KEY"] == "from-dotenv"
            graph = builder().compile()
            """,
            "common.py": STATE,
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "env=./g.py:graph")
    assert result.code == 0, result.stderr
    assert result.one("graph")["id"] == "env"


def test_a_graph_whose_get_graph_fails_is_reported_at_the_inspect_stage(repo):
    root = repo(
        {
            "g.py": """
            from common import builder
            graph = builder().compile()
            def broken(*args, **kwargs):
                raise RuntimeError("cannot draw")
            graph.get_graph = broken
            """,
            "common.py": STATE,
        }
    )
    result = run_runner("inspect", "--root", str(root), "--graph", "draw=./g.py:graph")
    error = result.one("graph_error")
    assert result.code == 3 and error["stage"] == "inspect" and error["message"] == "cannot draw"
    assert error["location"] == {"file": "g.py", "line": 4, "function": "broken"}


def test_a_syntax_error_in_the_repository_gives_its_file_and_line(repo):
    root = repo({"pkg/__init__.py": "", "pkg/nodes.py": "def broken(:\n    pass\n", "g.py": "from pkg.nodes import broken\n"})
    result = run_runner("inspect", "--root", str(root), "--graph", "syntax=./g.py:graph")
    error = result.one("graph_error")
    assert result.code == 3 and error["error_type"] == "SyntaxError" and error["stage"] == "import"
    assert error["location"] == {"file": "pkg/nodes.py", "line": 1, "function": None}
