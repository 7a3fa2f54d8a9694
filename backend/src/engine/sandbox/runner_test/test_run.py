"""`runner.py run`: node events, context, interrupts, checkpoints shipped and restored in a new
process, and failures."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_runner

COUNTED = """
import os
from typing import Annotated, TypedDict
import operator
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt

def count(name):
    # Every call of a node leaves a line in calls.txt, so a test can tell what ran in which process.
    with open(os.path.join(os.path.dirname(__file__), "calls.txt"), "a") as f:
        f.write(name + "\\n")

class State(TypedDict):
    log: Annotated[list, operator.add]

def draft(state):
    count("draft")
    print("draft writes to stdout, which must not reach the protocol")
    return {"log": ["drafted"]}

def review(state):
    count("review")
    answer = interrupt({"question": "approve?", "log": state["log"]})
    return {"log": [f"review: {answer}"]}

def publish(state):
    count("publish")
    return {"log": ["published"]}

g = StateGraph(State)
g.add_node("draft", draft)
g.add_node("review", review)
g.add_node("publish", publish)
g.add_edge(START, "draft")
g.add_edge("draft", "review")
g.add_edge("review", "publish")
g.add_edge("publish", END)
graph = g.compile()
"""


def calls(root: Path) -> list[str]:
    path = root / "calls.txt"
    return path.read_text().split() if path.exists() else []


def test_interrupt_waits_then_a_new_process_resumes_from_the_checkpoint(repo, tmp_path):
    root = repo({"flow.py": COUNTED})
    first = run_runner("run", "--root", str(root), "--graph", "review flow=./flow.py:graph", "--input", '{"log": []}')
    assert first.code == 0, first.stderr
    assert [line["type"] for line in first.lines][0] == "run_started"
    assert first.lines[-1]["type"] == "waiting"
    waiting = first.lines[-1]
    assert waiting["interrupts"][0]["value"] == {"question": "approve?", "log": ["drafted"]}
    assert waiting["next"] == ["review"] and waiting["state"] == {"log": ["drafted"]}
    started = [(line["node"], line["superstep"]) for line in first.of("node_started")]
    assert started == [("draft", 1), ("review", 2)]
    finished = {line["node"]: line for line in first.of("node_finished")}
    assert finished["draft"]["status"] == "ok" and finished["draft"]["output"] == {"log": ["drafted"]}
    assert finished["review"]["status"] == "interrupted"
    assert calls(root) == ["draft", "review"]

    # The last checkpoint line carries the interrupt; the server would store it and start a new
    # container with it.
    checkpoint_line = first.of("checkpoint")[-1]
    assert checkpoint_line["checkpoint"]["format"] == "superstep-runner-checkpoint/1"
    root_entry = next(e for e in checkpoint_line["checkpoint"]["entries"] if e["checkpoint_ns"] == "")
    assert any(w["channel"] == "__interrupt__" for w in root_entry["writes"])
    saved = tmp_path / "checkpoint.json"
    saved.write_text(json.dumps(checkpoint_line))

    second = run_runner(
        "run", "--root", str(root), "--graph", "review flow=./flow.py:graph",
        "--checkpoint", str(saved), "--resume", '"yes"',
    )
    assert second.code == 0, second.stderr
    assert second.one("run_started")["resumed"] is True
    assert second.one("run_started")["thread_id"] == first.one("run_started")["thread_id"]
    # draft is not run again; review re-runs from its top (LangGraph's resume), then publish.
    assert [line["node"] for line in second.of("node_started")] == ["review", "publish"]
    assert calls(root) == ["draft", "review", "review", "publish"]
    finished = second.lines[-1]
    assert finished["type"] == "run_finished"
    assert finished["state"] == {"log": ["drafted", "review: yes", "published"]}


def test_a_checkpoint_of_a_finished_superstep_continues_without_rerunning_it(repo, tmp_path):
    root = repo({"flow.py": COUNTED})
    first = run_runner("run", "--root", str(root), "--graph", "f=./flow.py:graph", "--input", '{"log": []}')
    # The checkpoint after superstep 1 (draft done, review next): as after a crash mid-run.
    after_draft = next(line for line in first.of("checkpoint") if line["superstep"] == 1)
    saved = tmp_path / "after-draft.json"
    saved.write_text(json.dumps(after_draft["checkpoint"]))
    (root / "calls.txt").unlink()

    again = run_runner("run", "--root", str(root), "--graph", "f=./flow.py:graph", "--checkpoint", str(saved), "--input", "null")
    assert again.code == 0, again.stderr
    assert [line["node"] for line in again.of("node_started")] == ["review"]
    assert calls(root) == ["review"]
    assert again.lines[-1]["type"] == "waiting"


def test_user_prints_go_to_stderr_not_the_protocol(repo):
    root = repo({"flow.py": COUNTED})
    result = run_runner("run", "--root", str(root), "--graph", "f=./flow.py:graph", "--input", '{"log": []}')
    # run_runner parses every stdout line as JSON: a print would have failed it.
    assert "draft writes to stdout" in result.stderr
    assert all(isinstance(line, dict) for line in result.lines)


def test_resume_without_a_checkpoint_is_a_usage_error(repo):
    root = repo({"flow.py": COUNTED})
    result = run_runner("run", "--root", str(root), "--graph", "f=./flow.py:graph", "--resume", '"yes"')
    assert result.code == 2 and "--resume needs --checkpoint" in result.one("error")["message"]
    bad = run_runner("run", "--root", str(root), "--graph", "f=./flow.py:graph", "--input", "{not json")
    assert bad.code == 2 and "--input is not valid JSON" in bad.one("error")["message"]


STATEFUL = """
from typing import Any, TypedDict
from langgraph.graph import StateGraph, START, END

class Handle:
    # Not serialisable: a live client kept in the state.
    def __init__(self):
        import threading
        self.lock = threading.Lock()

class State(TypedDict, total=False):
    size: int
    blob: str
    handle: Any

def fill(state):
    return {"blob": "x" * state["size"]}

def connect(state):
    return {"handle": Handle()}

big = StateGraph(State)
big.add_node("fill", fill)
big.add_edge(START, "fill")
big.add_edge("fill", END)
big = big.compile()

live = StateGraph(State)
live.add_node("connect", connect)
live.add_edge(START, "connect")
live.add_edge("connect", END)
live = live.compile()
"""


def test_a_checkpoint_over_2_mb_is_unavailable_and_the_run_still_finishes(repo):
    root = repo({"g.py": STATEFUL})
    result = run_runner("run", "--root", str(root), "--graph", "big=./g.py:big", "--input", json.dumps({"size": 3_000_000}))
    assert result.code == 0, result.stderr
    unavailable = result.one("checkpoint_unavailable")
    assert "over the 2097152 byte (2 MB) limit" in unavailable["reason"]
    assert unavailable["superstep"] == 1
    assert len(result.one("run_finished")["state"]["blob"]) == 3_000_000
    # Before the big value the checkpoint was small enough to ship (the input's checkpoint, -1,
    # is shipped too when the saver holds it by the time its event arrives).
    shipped = [line["superstep"] for line in result.of("checkpoint")]
    assert shipped and set(shipped) <= {-1, 0}


def test_state_that_cannot_be_serialised_is_unavailable_and_the_run_still_finishes(repo):
    root = repo({"g.py": STATEFUL})
    result = run_runner("run", "--root", str(root), "--graph", "live=./g.py:live", "--input", "{}")
    assert result.code == 0, result.stderr
    reason = result.one("checkpoint_unavailable")["reason"]
    assert reason.startswith("state cannot be serialised") and "Handle" in reason
    assert result.one("run_finished")["state"]["handle"]["__type__"] == "Handle"


def test_a_node_that_raises_ends_in_an_error_line_with_its_location(repo):
    root = repo(
        {
            "g.py": """
            from typing import TypedDict
            from langgraph.graph import StateGraph, START, END

            class S(TypedDict):
                n: int

            def divide(state):
                return {"n": 10 // state["n"]}

            g = StateGraph(S)
            g.add_node("divide", divide)
            g.add_edge(START, "divide")
            g.add_edge("divide", END)
            graph = g.compile()
            """
        }
    )
    result = run_runner("run", "--root", str(root), "--graph", "d=./g.py:graph", "--input", '{"n": 0}')
    assert result.code == 1
    error = result.lines[-1]
    assert error["type"] == "error" and error["phase"] == "run"
    assert error["error_type"] == "ZeroDivisionError"
    assert error["location"] == {"file": "g.py", "line": 8, "function": "divide"}
    assert result.one("node_finished")["status"] == "error"


def test_context_reaches_an_old_style_graph_through_configurable(repo):
    root = repo(
        {
            "g.py": """
            from typing import TypedDict
            from langchain_core.runnables import RunnableConfig
            from langgraph.graph import StateGraph, START, END

            class S(TypedDict, total=False):
                reply: str

            def answer(state, config: RunnableConfig):
                return {"reply": "model=" + config["configurable"]["model"]}

            g = StateGraph(S)
            g.add_node("answer", answer)
            g.add_edge(START, "answer")
            g.add_edge("answer", END)
            graph = g.compile()
            """
        }
    )
    result = run_runner(
        "run", "--root", str(root), "--graph", "old=./g.py:graph", "--input", '{"__context__": {"model": "small"}}'
    )
    assert result.code == 0, result.stderr
    assert result.one("run_finished")["state"] == {"reply": "model=small"}


def test_a_load_failure_in_run_is_an_error_line_with_exit_3(repo):
    root = repo({"g.py": "import os\nKEY = os.environ['TAVILY_API_KEY']\n", ".env.example": "TAVILY_API_KEY=\nLANGSMITH_PROJECT=demo\n"})
    result = run_runner(
        "run", "--root", str(root), "--graph", "g=./g.py:graph", "--input", "{}", "--env-example", str(root / ".env.example"),
        env={"LANGSMITH_PROJECT": "set"},
    )
    assert result.code == 3
    error = result.one("error")
    assert error["phase"] == "load" and error["kind"] == "missing_env"
    assert error["variables"] == ["TAVILY_API_KEY"] and error["missing_env"] == ["TAVILY_API_KEY"]


NESTED = """
import os
from typing import Annotated, TypedDict
import operator
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt

def count(name):
    with open(os.path.join(os.path.dirname(__file__), "calls.txt"), "a") as f:
        f.write(name + "\\n")

class State(TypedDict):
    log: Annotated[list, operator.add]

def ask(state):
    count("ask")
    return {"log": [interrupt("name?")]}

inner = StateGraph(State)
inner.add_node("ask", ask)
inner.add_edge(START, "ask")
inner.add_edge("ask", END)

def prepare(state):
    count("prepare")
    return {"log": ["prepared"]}

outer = StateGraph(State)
outer.add_node("prepare", prepare)
outer.add_node("form", inner.compile())
outer.add_edge(START, "prepare")
outer.add_edge("prepare", "form")
outer.add_edge("form", END)
graph = outer.compile()
"""


def test_an_interrupt_inside_a_subgraph_resumes_in_a_new_process(repo, tmp_path):
    root = repo({"nested.py": NESTED})
    first = run_runner("run", "--root", str(root), "--graph", "n=./nested.py:graph", "--input", '{"log": []}')
    assert first.code == 0, first.stderr
    assert first.lines[-1]["type"] == "waiting"
    assert first.lines[-1]["interrupts"][0]["value"] == "name?"
    assert [line["node"] for line in first.of("node_started")] == ["prepare", "form", "form:ask"]
    checkpoint = first.of("checkpoint")[-1]
    assert {e["checkpoint_ns"].split(":")[0] for e in checkpoint["checkpoint"]["entries"]} == {"", "form"}
    saved = tmp_path / "c.json"
    saved.write_text(json.dumps(checkpoint))
    second = run_runner("run", "--root", str(root), "--graph", "n=./nested.py:graph", "--checkpoint", str(saved), "--resume", '"Ana"')
    assert second.code == 0, second.stderr
    assert calls(root) == ["prepare", "ask", "ask"]
    assert second.lines[-1]["type"] == "run_finished"
    # The subgraph returns its whole state, which the parent's add reducer appends again.
    assert second.lines[-1]["state"] == {"log": ["prepared", "prepared", "Ana"]}


FILE_SAVER = """
import os
import pickle
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

PATH = os.path.join(os.path.dirname(__file__), "saver.pickle")


class FileSaver(BaseCheckpointSaver):
    # A persistent saver of the repository's own (as a SQLite or PostgreSQL one would be): it keeps
    # its checkpoints in a file, so a second process finds them by thread id.
    def __init__(self):
        super().__init__()
        self.inner = InMemorySaver()
        if os.path.exists(PATH):
            with open(PATH, "rb") as f:
                storage, writes, blobs = pickle.load(f)
            for thread, namespaces in storage.items():
                for ns, checkpoints in namespaces.items():
                    self.inner.storage[thread][ns].update(checkpoints)
            self.inner.writes.update(writes)
            self.inner.blobs.update(blobs)

    def _save(self):
        storage = {t: {ns: dict(c) for ns, c in nss.items()} for t, nss in self.inner.storage.items()}
        with open(PATH, "wb") as f:
            pickle.dump((storage, dict(self.inner.writes), dict(self.inner.blobs)), f)

    def get_tuple(self, config):
        return self.inner.get_tuple(config)

    def list(self, config, **kwargs):
        return self.inner.list(config, **kwargs)

    def put(self, *args):
        stored = self.inner.put(*args)
        self._save()
        return stored

    def put_writes(self, *args, **kwargs):
        self.inner.put_writes(*args, **kwargs)
        self._save()

    async def aget_tuple(self, config):
        return self.get_tuple(config)

    async def alist(self, config, **kwargs):
        for item in self.list(config, **kwargs):
            yield item

    async def aput(self, *args):
        return self.put(*args)

    async def aput_writes(self, *args, **kwargs):
        return self.put_writes(*args, **kwargs)

    def get_next_version(self, current, channel):
        return self.inner.get_next_version(current, channel)
"""


def test_a_graph_with_its_own_persistent_checkpointer_keeps_it(repo, tmp_path):
    root = repo(
        {
            "saver.py": FILE_SAVER,
            "flow.py": COUNTED.replace(
                "graph = g.compile()", "from saver import FileSaver\ngraph = g.compile(checkpointer=FileSaver())"
            ),
        }
    )
    args = ["run", "--root", str(root), "--graph", "f=./flow.py:graph", "--thread-id", "t-1"]
    first = run_runner(*args, "--input", '{"log": []}')
    assert first.code == 0, first.stderr
    assert first.one("run_started")["checkpointer"] == "own"
    assert first.of("checkpoint") == [] and first.lines[-1]["type"] == "waiting"
    # A new process finds the run in the graph's own saver by thread id.
    second = run_runner(*args, "--resume", '"yes"')
    assert second.code == 0, second.stderr
    assert calls(root) == ["draft", "review", "review", "publish"]
    assert second.lines[-1]["state"] == {"log": ["drafted", "review: yes", "published"]}
    # A checkpoint of ours cannot be forced onto a graph that has its own saver.
    (tmp_path / "c.json").write_text("{}")
    refused = run_runner(*args, "--checkpoint", str(tmp_path / "c.json"), "--resume", '"no"')
    assert refused.code == 2 and "use --thread-id" in refused.one("error")["message"]


def test_a_factory_gets_the_execution_runtime_and_the_graph_a_store(repo):
    root = repo(
        {
            "g.py": """
            from typing import TypedDict
            from langgraph.graph import StateGraph, START, END
            from langgraph.runtime import Runtime
            from langgraph_sdk.runtime import ServerRuntime

            class S(TypedDict, total=False):
                reply: str
                stored: dict

            def make_graph(config, runtime: ServerRuntime):
                # Only a run has an execution runtime, carrying the run's context.
                greeting = runtime.execution_runtime.context["greeting"]

                def greet(state, runtime: Runtime):
                    runtime.store.put(("notes",), "last", {"greeting": greeting})
                    return {"reply": greeting, "stored": runtime.store.get(("notes",), "last").value}

                g = StateGraph(S)
                g.add_node("greet", greet)
                g.add_edge(START, "greet")
                g.add_edge("greet", END)
                return g.compile()
            """
        }
    )
    result = run_runner("run", "--root", str(root), "--graph", "f=./g.py:make_graph", "--input", '{"__context__": {"greeting": "xin chào"}}')
    assert result.code == 0, result.stderr
    assert result.one("run_finished")["state"] == {"reply": "xin chào", "stored": {"greeting": "xin chào"}}
