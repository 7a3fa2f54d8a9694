// Repositories for the install, check and ready steps, in the shapes imports meet: a pyproject in a
// src layout with several graphs (a file spec and a module spec, a factory, a subgraph, an id with
// a space, the react-agent loop, a graph raising at import, one needing a key while it is built),
// a flat-layout package setuptools refuses, requirements.txt only, and a pin no index has.
import { NEW_PROJECT_FILES } from "./zip-fixture.js";

const SETUPTOOLS = '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n';

/** langchain-ai/react-agent's shape: call_model ↔ tools with a conditional edge; the key is read only when it runs. */
export const REACT_AGENT_GRAPH = `"""A ReAct agent: the model calls tools until it answers."""
import os
from typing import Literal

from typing_extensions import TypedDict
from langgraph.graph import StateGraph
from langgraph.prebuilt import ToolNode


class State(TypedDict, total=False):
    messages: list
    steps: int


def search(query: str) -> str:
    """Searches the web."""
    return query


async def call_model(state: State) -> dict:
    """Calls the model; it needs OPENAI_API_KEY only when it runs."""
    key = os.environ["OPENAI_API_KEY"]
    return {"messages": [key], "steps": state.get("steps", 0) + 1}


def route_model_output(state: State) -> Literal["__end__", "tools"]:
    return "tools" if state.get("steps", 0) < 2 else "__end__"


builder = StateGraph(State)
builder.add_node(call_model)
builder.add_node("tools", ToolNode([search]))
builder.add_edge("__start__", "call_model")
builder.add_conditional_edges("call_model", route_model_output)
builder.add_edge("tools", "call_model")
graph = builder.compile(name="ReAct Agent")
`;

/** langchain-ai/new-langgraph-project's graph: one node, a context schema, no key needed. */
export const NEW_PROJECT_GRAPH = `"""LangGraph single-node graph template."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict

from typing_extensions import TypedDict
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime


class Context(TypedDict):
    my_configurable_param: str


@dataclass
class State:
    changeme: str = "example"


async def call_model(state: State, runtime: Runtime[Context]) -> Dict[str, Any]:
    """Process input and returns output."""
    return {
        "changeme": "output from call_model. "
        f"Configured with {(runtime.context or {}).get('my_configurable_param')}"
    }


graph = (
    StateGraph(State, context_schema=Context)
    .add_node(call_model)
    .add_edge("__start__", "call_model")
    .compile(name="New Graph")
)
`;

export const MANY_GRAPHS_FILES: Record<string, string> = {
  ...NEW_PROJECT_FILES,
  "src/agent/graph.py": NEW_PROJECT_GRAPH,
  "langgraph.json": JSON.stringify({
    dependencies: ["."],
    graphs: {
      agent: "./src/agent/graph.py:graph",
      "react agent": "./src/react_agent/graph.py:graph",
      "by module": "react_agent.graph:graph",
      factory: "./src/agent/factory.py:make_graph",
      nested: "./src/agent/nested.py:graph",
      broken: "./src/agent/broken.py:graph",
      "needs key": "./src/agent/needs_key.py:make_graph",
    },
  }),
  "pyproject.toml": `[project]\nname = "agent"\nversion = "0.0.1"\ndependencies = [\n  "langgraph>=0.2",  # the graph library\n]\n\n${SETUPTOOLS}`,
  "src/react_agent/__init__.py": "",
  "src/react_agent/graph.py": REACT_AGENT_GRAPH,
  "src/agent/factory.py":
    "from langgraph.graph import StateGraph\n\n\ndef made(state):\n    return state\n\n\ndef make_graph(config):\n    builder = StateGraph(dict)\n    builder.add_node('made', made)\n    builder.add_edge('__start__', 'made')\n    return builder.compile()\n",
  "src/agent/nested.py":
    "from typing_extensions import TypedDict\nfrom langgraph.graph import StateGraph\n\n\nclass S(TypedDict, total=False):\n    x: int\n\n\ndef inner_step(state: S) -> dict:\n    return {'x': 1}\n\n\ndef outer_step(state: S) -> dict:\n    return {'x': 2}\n\n\nsub = StateGraph(S)\nsub.add_node('inner_step', inner_step)\nsub.add_edge('__start__', 'inner_step')\ninner = sub.compile()\n\nbuilder = StateGraph(S)\nbuilder.add_node('outer_step', outer_step)\nbuilder.add_node('child', inner)\nbuilder.add_edge('__start__', 'outer_step')\nbuilder.add_edge('outer_step', 'child')\ngraph = builder.compile()\n",
  "src/agent/broken.py": "raise RuntimeError('this module cannot be imported')\n",
  "src/agent/needs_key.py":
    "import os\n\nfrom langgraph.graph import StateGraph\n\n\ndef make_graph():\n    key = os.environ['ACME_API_KEY']\n    builder = StateGraph(dict)\n    builder.add_node('keyed', lambda s: {'key': key})\n    builder.add_edge('__start__', 'keyed')\n    return builder.compile()\n",
};

/** Two top-level packages and no packages list: setuptools refuses the flat layout. */
export const FLAT_LAYOUT_FILES: Record<string, string> = {
  "langgraph.json": JSON.stringify({ graphs: { flat: "./agent/graph.py:graph" } }),
  "pyproject.toml": `[project]\nname = "flat"\nversion = "0.1.0"\ndependencies = ['langgraph']\n\n${SETUPTOOLS}`,
  "agent/__init__.py": "",
  "agent/graph.py":
    "from langgraph.graph import StateGraph\n\nfrom helpers.steps import step\n\nbuilder = StateGraph(dict)\nbuilder.add_node('step', step)\nbuilder.add_edge('__start__', 'step')\ngraph = builder.compile()\n",
  "helpers/__init__.py": "",
  "helpers/steps.py": "def step(state):\n    return state\n",
};

/** requirements.txt only, no langgraph.json: the graph is found by the scan. */
export const REQUIREMENTS_FILES: Record<string, string> = {
  "requirements.txt": "langgraph\n",
  "app.py":
    "from langgraph.graph import StateGraph\n\n\ndef hello(state):\n    return state\n\n\nbuilder = StateGraph(dict)\nbuilder.add_node('hello', hello)\nbuilder.add_edge('__start__', 'hello')\napp = builder.compile()\n",
};

/** A pinned version no index has. */
export const MISSING_PIN_FILES: Record<string, string> = {
  "requirements.txt": "langgraph\nsuperstep-no-such-package==9.9.9\n",
  "app.py": REQUIREMENTS_FILES["app.py"] as string,
};

/** Its only graph raises while its module is imported: no graph loads. */
export const NOTHING_LOADS_FILES: Record<string, string> = {
  "requirements.txt": "langgraph\n",
  "app.py": `raise ValueError("no graph today")\n\n${REQUIREMENTS_FILES["app.py"] as string}`,
};
