// Two LangGraph projects written for the import tests, in the shapes of the repositories the
// seed names: one like langchain-ai/new-langgraph-project (one node, a context TypedDict, runs
// without any key) and one like langchain-ai/react-agent (a `call_model` ↔ `tools` loop whose
// model call needs a provider key that is not set). Only langgraph and langchain-core are used,
// so the sandbox installs them from the offline wheel directory.
import { NEW_PROJECT_GRAPH } from "../backend/test/import-fixtures.js";

const SETUPTOOLS =
  '[build-system]\nrequires = ["setuptools>=73.0.0", "wheel"]\nbuild-backend = "setuptools.build_meta"\n';

/** Shaped like langchain-ai/new-langgraph-project. */
export const NEW_LANGGRAPH_PROJECT: Record<string, string> = {
  "langgraph.json": `${JSON.stringify(
    {
      $schema: "https://langgra.ph/schema.json",
      dependencies: ["."],
      graphs: { agent: "./src/agent/graph.py:graph" },
      env: ".env",
      image_distro: "wolfi",
    },
    null,
    2,
  )}\n`,
  "pyproject.toml": [
    "[project]",
    'name = "agent"',
    'version = "0.0.1"',
    'description = "Starter template for making a new agent LangGraph."',
    'requires-python = ">=3.10"',
    'dependencies = ["langgraph>=1.0.0", "python-dotenv>=1.0.1"]',
    "",
    SETUPTOOLS,
    "[tool.setuptools]",
    'packages = ["langgraph.templates.agent", "agent"]',
    "[tool.setuptools.package-dir]",
    '"langgraph.templates.agent" = "src/agent"',
    '"agent" = "src/agent"',
    "",
  ].join("\n"),
  ".env.example": "# To separate your traces from other application\nLANGSMITH_PROJECT=new-agent\n",
  "src/agent/__init__.py": '"""New LangGraph Agent."""\n\nfrom agent.graph import graph\n\n__all__ = ["graph"]\n',
  "src/agent/graph.py": NEW_PROJECT_GRAPH,
};

/** Shaped like langchain-ai/react-agent: the model node and the tool node in a loop. */
export const REACT_AGENT: Record<string, string> = {
  "langgraph.json": `${JSON.stringify({ dependencies: ["."], graphs: { agent: "./src/react_agent/graph.py:graph" }, env: ".env" }, null, 2)}\n`,
  "pyproject.toml": [
    "[project]",
    'name = "react-agent"',
    'version = "0.0.1"',
    'requires-python = ">=3.10"',
    'dependencies = ["langgraph>=1.0.0", "langchain-core>=0.3", "python-dotenv>=1.0.1"]',
    "",
    SETUPTOOLS,
    "[tool.setuptools]",
    'packages = ["langgraph.templates.react_agent", "react_agent"]',
    "[tool.setuptools.package-dir]",
    '"langgraph.templates.react_agent" = "src/react_agent"',
    '"react_agent" = "src/react_agent"',
    "",
  ].join("\n"),
  ".env.example":
    "# To separate your traces from other application\nLANGSMITH_PROJECT=react-agent\n\n# Add API keys for connecting to LLM providers, data sources, and other integrations here\nOPENAI_API_KEY=...\nTAVILY_API_KEY=...\n",
  "src/react_agent/__init__.py": '"""React Agent."""\n\nfrom react_agent.graph import graph\n\n__all__ = ["graph"]\n',
  "src/react_agent/tools.py": `"""Tools the agent can call."""

from langchain_core.tools import tool


@tool
def search(query: str) -> str:
    """Search for general web results."""
    import os

    return f"results for {query} with key {os.environ['TAVILY_API_KEY'][:3]}"


TOOLS = [search]
`,
  "src/react_agent/graph.py": `"""A ReAct agent: the model calls tools until it answers."""

import os
from typing import Annotated, Literal

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import StateGraph, add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict

from react_agent.tools import TOOLS


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


async def call_model(state: State) -> dict:
    """Call the model (it needs the provider's key)."""
    key = os.environ["OPENAI_API_KEY"]
    return {"messages": [AIMessage(content=f"answered with {key[:3]}")]}


def route_model_output(state: State) -> Literal["__end__", "tools"]:
    last = state["messages"][-1]
    return "tools" if getattr(last, "tool_calls", None) else "__end__"


builder = StateGraph(State)
builder.add_node(call_model)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge("__start__", "call_model")
builder.add_conditional_edges("call_model", route_model_output)
builder.add_edge("tools", "call_model")
graph = builder.compile(name="ReAct Agent")
`,
};
