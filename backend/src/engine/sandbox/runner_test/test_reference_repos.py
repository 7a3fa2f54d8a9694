"""Fixture repositories shaped like the two reference projects of the import feature:
langchain-ai/new-langgraph-project (runs without any key) and langchain-ai/react-agent (shows its
call_model <-> tools loop; running it without a key names the key)."""

from __future__ import annotations

import json

from conftest import run_runner

NEW_PROJECT = {
    "langgraph.json": json.dumps(
        {"dependencies": ["."], "graphs": {"agent": "./src/agent/graph.py:graph"}, "env": ".env"}
    ),
    ".env.example": "# To separate your traces from other application\nLANGSMITH_PROJECT=new-agent\n",
    "src/agent/__init__.py": "",
    "src/agent/graph.py": """
    from __future__ import annotations

    from dataclasses import dataclass
    from typing import Any, Dict

    from langgraph.graph import StateGraph
    from langgraph.runtime import Runtime
    from typing_extensions import TypedDict


    class Context(TypedDict):
        my_configurable_param: str


    @dataclass
    class State:
        changeme: str = "example"


    async def call_model(state: State, runtime: Runtime[Context]) -> Dict[str, Any]:
        param = (runtime.context or {}).get("my_configurable_param")
        return {"changeme": f"output from call_model. Configured with {param}"}


    graph = (
        StateGraph(State, context_schema=Context)
        .add_node(call_model)
        .add_edge("__start__", "call_model")
        .compile(name="New Graph")
    )
    """,
}


def test_new_langgraph_project_shape_inspects_as_one_node(repo):
    root = repo(NEW_PROJECT)
    result = run_runner("inspect", "--root", str(root), "--graph", "agent=./src/agent/graph.py:graph")
    assert result.code == 0, result.stderr
    graph = result.one("graph")
    assert graph["name"] == "New Graph"
    assert [n["id"] for n in graph["nodes"]] == ["__start__", "call_model", "__end__"]
    call_model = graph["nodes"][1]
    assert call_model["source"] == {"file": "src/agent/graph.py", "line": 20}
    assert {(e["source"], e["target"]) for e in graph["edges"]} == {("__start__", "call_model"), ("call_model", "__end__")}
    assert "my_configurable_param" in graph["context_schema"]["properties"]


def test_new_langgraph_project_shape_runs_without_any_key(repo):
    root = repo(NEW_PROJECT)
    result = run_runner(
        "run", "--root", str(root), "--graph", "agent=./src/agent/graph.py:graph",
        "--input", json.dumps({"changeme": "hi", "__context__": {"my_configurable_param": "from the studio"}}),
        "--env-example", str(root / ".env.example"),
    )
    assert result.code == 0, result.stderr
    assert [(n["node"], n["superstep"]) for n in result.of("node_started")] == [("call_model", 1)]
    assert result.one("node_started")["input"] == {"changeme": "hi"}
    finished = result.one("node_finished")
    assert finished["status"] == "ok"
    expected = "output from call_model. Configured with from the studio"
    assert finished["output"] == {"changeme": expected}
    assert result.lines[-1] == {
        "type": "run_finished", "superstep": 1, "thread_id": result.one("run_started")["thread_id"],
        "state": {"changeme": expected},
    }


REACT_AGENT = {
    "langgraph.json": json.dumps({"dependencies": ["."], "graphs": {"agent": "./src/react_agent/graph.py:graph"}}),
    ".env.example": "TAVILY_API_KEY=...\nANTHROPIC_API_KEY=...\nFIREWORKS_API_KEY=...\nOPENAI_API_KEY=...\nLANGSMITH_PROJECT=react-agent\n",
    "pyproject.toml": '[project]\nname = "react-agent"\nversion = "0.0.1"\n',
    "src/react_agent/__init__.py": "",
    # Stands in for the provider SDK: it fails the way openai's client does without its key.
    "src/react_agent/provider.py": """
    import os

    class OpenAIError(Exception):
        pass

    def chat(messages):
        if not os.environ.get("OPENAI_API_KEY"):
            raise OpenAIError(
                "The api_key client option must be set either by passing api_key to the client "
                "or by setting the OPENAI_API_KEY environment variable"
            )
        raise AssertionError("the tests never reach a provider")
    """,
    "src/react_agent/context.py": """
    from dataclasses import dataclass

    @dataclass(kw_only=True)
    class Context:
        model: str = "openai/gpt-4o-mini"
        max_search_results: int = 10
    """,
    "src/react_agent/tools.py": """
    from langchain_core.tools import tool

    @tool
    def search(query: str) -> str:
        \"\"\"Search for general web results.\"\"\"
        return "no results"

    TOOLS = [search]
    """,
    "src/react_agent/graph.py": """
    from typing import Annotated, Literal, Sequence

    from dataclasses import dataclass, field
    from langchain_core.messages import AIMessage, AnyMessage
    from langgraph.graph import StateGraph, add_messages
    from langgraph.prebuilt import ToolNode
    from langgraph.runtime import Runtime

    from react_agent.context import Context
    from react_agent.provider import chat
    from react_agent.tools import TOOLS


    @dataclass
    class State:
        messages: Annotated[Sequence[AnyMessage], add_messages] = field(default_factory=list)


    async def call_model(state: State, runtime: Runtime[Context]):
        return {"messages": [chat(state.messages)]}


    def route_model_output(state: State) -> Literal["__end__", "tools"]:
        last = state.messages[-1]
        if not isinstance(last, AIMessage):
            raise ValueError("expected an AIMessage")
        return "tools" if last.tool_calls else "__end__"


    builder = StateGraph(State, context_schema=Context)
    builder.add_node(call_model)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge("__start__", "call_model")
    builder.add_conditional_edges("call_model", route_model_output)
    builder.add_edge("tools", "call_model")
    graph = builder.compile(name="ReAct Agent")
    """,
}


def test_react_agent_shape_inspects_with_its_loop_and_conditional_edge(repo):
    root = repo(REACT_AGENT)
    result = run_runner("inspect", "--root", str(root), "--graph", "agent=./src/react_agent/graph.py:graph")
    assert result.code == 0, result.stderr
    graph = result.one("graph")
    assert {n["id"] for n in graph["nodes"]} == {"__start__", "call_model", "tools", "__end__"}
    edges = {(e["source"], e["target"]): e["conditional"] for e in graph["edges"]}
    assert edges == {
        ("__start__", "call_model"): False,
        ("call_model", "tools"): True,
        ("call_model", "__end__"): True,
        ("tools", "call_model"): False,
    }
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert nodes["call_model"]["source"] == {"file": "src/react_agent/graph.py", "line": 19}
    # ToolNode is langgraph's own code, not the repository's: no source location in the repo.
    assert nodes["tools"]["source"] is None


def test_react_agent_shape_run_without_a_key_fails_naming_it(repo):
    root = repo(REACT_AGENT)
    result = run_runner(
        "run", "--root", str(root), "--graph", "agent=./src/react_agent/graph.py:graph",
        "--input", json.dumps({"messages": [{"role": "user", "content": "hi"}], "__context__": {}}),
        "--env-example", str(root / ".env.example"),
    )
    assert result.code == 1
    assert [n["node"] for n in result.of("node_started")] == ["call_model"]
    error = result.lines[-1]
    assert error["type"] == "error" and error["phase"] == "run" and error["kind"] == "missing_env"
    assert error["variables"] == ["OPENAI_API_KEY"]
    assert error["message"].startswith("missing environment variable OPENAI_API_KEY")
    assert error["missing_env"] == [
        "TAVILY_API_KEY", "ANTHROPIC_API_KEY", "FIREWORKS_API_KEY", "OPENAI_API_KEY", "LANGSMITH_PROJECT",
    ]
    assert error["location"]["file"] == "src/react_agent/provider.py"
