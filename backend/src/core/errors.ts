// One catalog of every error the product can answer with. Codes are stable ids that clients
// translate; only api/error-handlers turns an AppError into an HTTP response.

export const CATALOG = {
  // Request shape
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  VALIDATION_FAILED: { status: 422, message: "The request does not match the expected shape." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is larger than the server accepts." },
  UPLOAD_INVALID: {
    status: 400,
    message: "The multipart/form-data body cannot be read (no boundary, or it ends before its closing boundary).",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The request body must be JSON (Content-Type: application/json)." },
  NOT_FOUND: { status: 404, message: "No such route." },
  RATE_LIMITED: { status: 429, message: "Too many requests; wait a moment and try again." },
  RUN_LIMIT_REACHED: {
    status: 429,
    message:
      "You have as many queued and running runs (STUDIO_USER_MAX_QUEUED), or one-node runs executing (STUDIO_USER_MAX_RUNS), as this server allows; wait for some to finish.",
  },
  // Authentication
  AUTH_REQUIRED: { status: 401, message: "Sign in first: send an Authorization: Bearer token." },
  AUTH_INVALID_TOKEN: { status: 401, message: "The token is not valid." },
  AUTH_TOKEN_EXPIRED: { status: 401, message: "The token has expired; sign in again." },
  AUTH_INVALID_CREDENTIALS: { status: 401, message: "Wrong email or password." },
  AUTH_API_KEY_REQUIRED: { status: 401, message: "This route needs an API key: Authorization: Bearer ssk_…" },
  AUTH_SESSION_REQUIRED: { status: 403, message: "This action needs a signed-in user, not an API key." },
  SETUP_ALREADY_DONE: { status: 409, message: "The owner account already exists; sign in instead." },
  SETUP_REQUIRED: { status: 409, message: "Create the owner account first (POST /api/auth/setup)." },
  SIGNUP_DISABLED: { status: 403, message: "Sign-up is disabled on this server (STUDIO_ALLOW_SIGNUP)." },
  EMAIL_TAKEN: { status: 409, message: "An account with this email already exists." },
  // Resources
  WORKFLOW_NOT_FOUND: { status: 404, message: "No such workflow." },
  VERSION_NOT_FOUND: { status: 404, message: "No such workflow version." },
  API_KEY_NOT_FOUND: { status: 404, message: "No such API key." },
  CALLBACK_URL_INVALID: { status: 422, message: "The callback URL must be an http(s) URL whose host resolves." },
  CALLBACK_URL_NOT_ALLOWED: {
    status: 422,
    message:
      "Callbacks to loopback, private, link-local or metadata addresses are refused; details name the address class (STUDIO_EGRESS_ALLOW).",
  },
  CREDENTIAL_NOT_FOUND: { status: 404, message: "No such credential." },
  CREDENTIAL_NAME_TAKEN: { status: 409, message: "You already have a credential with this name." },
  CREDENTIAL_UNREADABLE: {
    status: 500,
    message:
      "The credential cannot be decrypted: the encryption key it was stored with is not loaded (STUDIO_ENCRYPTION_KEY).",
  },
  SCHEDULE_NOT_FOUND: { status: 404, message: "No such schedule." },
  SCHEDULE_CRON_INVALID: { status: 422, message: "The cron expression is not valid." },
  SCHEDULE_INTERVAL_TOO_SHORT: {
    status: 422,
    message: "The schedule would fire more often than this server allows (STUDIO_SCHEDULE_MIN_INTERVAL).",
  },
  SCHEDULE_TIMEZONE_INVALID: {
    status: 422,
    message: "The time zone is not a known IANA time zone (e.g. Asia/Ho_Chi_Minh).",
  },
  RUN_NOT_FOUND: { status: 404, message: "No such run." },
  RUN_NOT_WAITING: { status: 409, message: "The run is not waiting for an answer." },
  RUN_NOT_PAUSED: { status: 409, message: "The run is not paused." },
  RUN_NOT_ACTIVE: { status: 409, message: "The run has already ended." },
  IMPORTED_RUN_NOT_FORKABLE: {
    status: 409,
    message:
      "A run of a workflow made from an imported repository cannot be forked: its state is kept by the graph's own runner.",
  },
  RUN_STILL_RUNNING: {
    status: 409,
    message: "The run is still queued or running; fork it once it has ended, waits for a person or is paused.",
  },
  RUN_FILTER_RANGE_INVALID: { status: 422, message: "The time range ends before it starts (from is after to)." },
  RUNS_NOT_COMPARABLE: { status: 422, message: "Only two runs of the same saved workflow can be compared." },
  RUN_CHECKPOINT_NOT_FOUND: { status: 404, message: "The run has no such superstep or checkpoint." },
  FORK_STATE_INVALID: { status: 422, message: "The edited state does not fit the workflow's state fields." },
  FORK_DOCUMENT_INCOMPATIBLE: {
    status: 422,
    message: "The workflow given for the fork lacks nodes that run next from this checkpoint.",
  },
  FORK_RERUN_INVALID: {
    status: 422,
    message: "A node chosen to run again is not an LLM, Tool, Decision, Send email or Subgraph node of this workflow.",
  },
  NODE_NOT_FOUND: { status: 404, message: "The workflow has no node with this id." },
  NODE_RUN_UNSUPPORTED: {
    status: 422,
    message:
      "This node cannot run alone: only LLM, Tool, Code, Condition, Decision and Send email nodes can; a node inside a For each runs on one item (give `iteration`), and only such a node takes one.",
  },
  PIN_NODE_NOT_FOUND: { status: 422, message: "A pin names a node that is not in the workflow." },
  PIN_NODE_NOT_PINNABLE: {
    status: 422,
    message: "Only LLM, Tool, Code, Send email, Human and Subgraph nodes outside a For each can be pinned.",
  },
  PIN_OUTPUT_INVALID: {
    status: 422,
    message: "A pinned output does not fit what the node writes (its fields and their types).",
  },
  WORKFLOW_VERSION_CONFLICT: {
    status: 409,
    message: "The workflow was saved by someone else since you loaded it; reload and try again.",
  },
  WORKFLOW_INVALID: {
    status: 422,
    message: "The workflow cannot run as it is; details lists each problem.",
  },
  // Runs: the code of an `error` event and of a failed run
  RUN_INPUT_INVALID: { status: 422, message: "The run input does not match the workflow's state fields." },
  RUN_TIMEOUT: { status: 408, message: "One turn of the run ran longer than STUDIO_RUN_TIMEOUT allows." },
  RUN_CANCELLED: { status: 409, message: "The run was cancelled." },
  MAX_SUPERSTEPS: {
    status: 422,
    message: "The run reached the superstep limit (STUDIO_MAX_SUPERSTEPS) without ending.",
  },
  STATE_TOO_LARGE: { status: 422, message: "The run state grew larger than STUDIO_MAX_STATE_BYTES allows." },
  PARALLEL_WRITE_CONFLICT: {
    status: 422,
    message: "Two nodes wrote the same replace field in one superstep; give the field a reducer.",
  },
  LEASE_LOST: { status: 409, message: "Another worker took over this run; this one stopped writing." },
  NODE_FAILED: { status: 500, message: "The node failed." },
  NODE_OUTPUT_INVALID: {
    status: 422,
    message: "A node wrote a value that does not fit the state field (its type, or its reducer).",
  },
  CODE_ERROR: { status: 422, message: "The code raised an error." },
  CODE_TIMEOUT: { status: 422, message: "The code ran longer than STUDIO_CODE_TIMEOUT allows." },
  CODE_MEMORY: { status: 422, message: "The code used more memory than STUDIO_CODE_MEMORY allows." },
  CODE_RESULT_INVALID: {
    status: 422,
    message: "main() must return a JSON object whose keys are declared state fields.",
  },
  PROVIDER_KEY_MISSING: { status: 422, message: "The model provider's API key is not set on this server." },
  LLM_FAILED: { status: 502, message: "The model provider answered with an error." },
  LLM_OUTPUT_INVALID: { status: 502, message: "The model's answer does not have the required shape." },
  EGRESS_REFUSED: {
    status: 403,
    message:
      "The request goes to an address this server does not allow (loopback, private, link-local or metadata); details name the address class.",
  },
  HTTP_TOOL_FAILED: { status: 502, message: "The HTTP request failed." },
  HTTP_TOOL_STATUS: { status: 502, message: "The HTTP request was answered with an error status." },
  HTTP_TOOL_TIMEOUT: { status: 504, message: "The HTTP request took longer than its timeout." },
  HTTP_TOOL_RESPONSE_TOO_LARGE: { status: 502, message: "The HTTP response is larger than max_response_bytes." },
  EMAIL_FAILED: { status: 502, message: "The SMTP server refused or could not be reached." },
  HUMAN_INPUT_INVALID: { status: 422, message: "The answer does not fit the form." },
  HUMAN_WAIT_EXPIRED: { status: 409, message: "Nobody answered before the Human node's timeout; the run expired." },
  SUBGRAPH_FAILED: { status: 500, message: "The subgraph failed." },
  IMPORT_DISABLED: { status: 404, message: "Repository import is off on this server (STUDIO_ENABLE_IMPORT)." },
  IMPORT_NOT_FOUND: { status: 404, message: "No such import." },
  IMPORT_SOURCE_MISSING: {
    status: 422,
    message: "Give either a GitHub URL (JSON: url, branch, subdir) or a zip file (multipart field `file`).",
  },
  IMPORT_URL_INVALID: {
    status: 422,
    message:
      "Only public GitHub repositories over https can be imported: https://github.com/<owner>/<repository>, optionally ending in .git; details say what was wrong.",
  },
  IMPORT_BRANCH_INVALID: { status: 422, message: "The branch is not a branch name git accepts." },
  IMPORT_SUBDIR_INVALID: {
    status: 422,
    message: "The sub-directory must be a relative path inside the repository (no .., no absolute path).",
  },
  IMPORT_SUBDIR_NOT_FOUND: { status: 422, message: "The repository has no such sub-directory." },
  IMPORT_CLONE_FAILED: {
    status: 502,
    message:
      "git could not clone the repository: it may not exist, be private, or have no such branch; details give git's words.",
  },
  IMPORT_ZIP_INVALID: { status: 422, message: "The uploaded file is not a zip archive that can be read." },
  IMPORT_ZIP_UNSAFE_ENTRY: {
    status: 422,
    message:
      "The zip has an entry that would be written outside its folder (.., an absolute path, a drive letter) or is a symlink; nothing was kept.",
  },
  IMPORT_ZIP_TOO_MANY_ENTRIES: { status: 422, message: "The zip has more entries than an import accepts." },
  IMPORT_SOURCE_TOO_LARGE: {
    status: 413,
    message: "The source is larger than STUDIO_IMPORT_MAX_BYTES allows (.git not counted).",
  },
  IMPORT_NO_GRAPH: {
    status: 422,
    message:
      "No LangGraph graph was found: no langgraph.json graphs, and no .py file with StateGraph and x = ….compile(…).",
  },
  IMPORT_GRAPH_JAVASCRIPT: {
    status: 422,
    message: "langgraph.json names JavaScript graphs (.ts, .mts, .js); only Python graphs can be imported.",
  },
  IMPORT_LANGGRAPH_INVALID: {
    status: 422,
    message: "langgraph.json cannot be used (not JSON, no graphs map, or an entry that is not path:variable).",
  },
  IMPORT_LIMIT_REACHED: {
    status: 429,
    message: "You have as many imports uploading or running as this server allows at once; wait for one to finish.",
  },
  IMPORT_INTERRUPTED: { status: 409, message: "Import interrupted by a restart." },
  IMPORT_FAILED: { status: 500, message: "The import failed on the server; its log says where." },
  IMPORT_SANDBOX_UNAVAILABLE: {
    status: 503,
    message: "The import sandbox cannot be used: Docker did not answer or the image is missing; details say why.",
  },
  IMPORT_INSTALL_FAILED: {
    status: 422,
    message:
      "Installing the repository's packages failed; details name the package when pip did, and the install log says why.",
  },
  IMPORT_INSTALL_TIMEOUT: { status: 422, message: "Installing took longer than STUDIO_IMPORT_INSTALL_TIMEOUT allows." },
  IMPORT_INSPECT_FAILED: {
    status: 422,
    message: "No graph of the repository could be loaded in the sandbox; each graph's error names the cause.",
  },
  IMPORT_GRAPH_NOT_FOUND: { status: 404, message: "The import has no graph with this id that loaded." },
  IMPORT_NOT_READY: { status: 409, message: "The import has not finished checking its graphs, or it failed." },
  WORKFLOW_READ_ONLY: {
    status: 409,
    message: "An imported workflow is read-only: its code lives in the repository it came from.",
  },
  SANDBOX_STOPPED: {
    status: 500,
    message: "The sandbox was stopped from outside (time limit or out of memory); details say which.",
  },
  IMPORTED_GRAPH_FAILED: {
    status: 500,
    message: "The imported graph raised an error while running; details give its type, message and location.",
  },
  IMPORTED_GRAPH_LOAD_FAILED: {
    status: 500,
    message: "The imported graph could not be loaded in the sandbox; details name the cause.",
  },
  IMPORTED_ENV_MISSING: {
    status: 422,
    message: "The imported graph needs environment variables the server does not pass in; details name them.",
  },
  // Server
  DATABASE_UNAVAILABLE: { status: 503, message: "The database does not answer." },
  SERVER_BUSY: {
    status: 503,
    message:
      "The server is taking as much work as it can (STUDIO_MAX_QUEUED runs queued, or STUDIO_MAX_IN_FLIGHT requests at once); try again after Retry-After.",
  },
  DATABASE_BUSY: {
    status: 503,
    message:
      "The database stayed locked by another connection longer than STUDIO_DB_BUSY_TIMEOUT_MS; nothing was changed, try again after Retry-After.",
  },
  STORAGE_FULL: {
    status: 507,
    message: "The database's disk is full; nothing was changed. Try again once the operator has freed space.",
  },
  DATABASE_SYNC_FAILED: {
    status: 503,
    message:
      "The disk did not confirm a database write, so the server acknowledges nothing more until it is restarted; the operator must check the disk and restart it. A request refused this way may or may not have been kept: a trigger retried with the same Idempotency-Key is applied once.",
  },
  CONFIG_INVALID: { status: 500, message: "The server configuration is not valid." },
  INTERNAL: { status: 500, message: "Something went wrong on the server." },
} as const satisfies Record<string, { status: number; message: string }>;

// Problems the workflow validator reports, one detail entry each inside WORKFLOW_INVALID.
export const VALIDATION_CATALOG = {
  DOCUMENT_SCHEMA: "The document does not match the workflow schema.",
  NODE_DATA_INVALID: "The node's settings do not match its type.",
  DUPLICATE_NODE_ID: "Two nodes have the same id.",
  DUPLICATE_EDGE_ID: "Two edges have the same id.",
  DUPLICATE_STATE_FIELD: "Two state fields have the same name.",
  RESERVED_NODE_ID: "This node id is reserved.",
  NODE_ID_IS_STATE_FIELD: "A node id cannot equal a state field name.",
  START_MISSING: "The workflow has no Start: add a Start node or an edge from `start`.",
  START_MULTIPLE: "A workflow has exactly one Start node.",
  END_MULTIPLE: "A workflow has at most one End node.",
  EDGE_SOURCE_UNKNOWN: "The edge starts at a node that does not exist.",
  EDGE_TARGET_UNKNOWN: "The edge ends at a node that does not exist.",
  EDGE_INTO_START: "No edge may lead into Start.",
  EDGE_OUT_OF_END: "No edge may leave End.",
  NODE_UNREACHABLE: "No path from Start reaches this node.",
  LOOP_UNGUARDED: "This loop does not pass through a Condition or For each, so it could never stop.",
  ROUTE_NEEDS_EDGES: "This node picks one of its outgoing edges, but it has none.",
  ROUTE_EDGE_UNLABELED: "Every edge leaving a Condition, Decision or For each needs a label.",
  ROUTE_LABEL_DUPLICATE: "Two edges leaving this node have the same label.",
  CONDITION_LABEL_UNKNOWN: "A rule names a label that no outgoing edge has.",
  FOR_EACH_EDGES: "A For each needs exactly one edge labelled `item` (the body) and one labelled `done`.",
  FOR_EACH_BODY_INVALID:
    "The body of a For each is one LLM, Tool, Code, Send email or Subgraph node with no other edges.",
  JOIN_NEEDS_INPUTS: "A Join needs at least two incoming edges.",
  TEMPLATE_INVALID: "A {{…}} reference is not valid: use state.…, item…, index or context.…",
  STATE_REFERENCE_UNKNOWN: "This names a state field that is not declared.",
  ITEM_REFERENCE_OUTSIDE_FOR_EACH: "{{item}} and {{index}} exist only in the body of a For each.",
  PARALLEL_WRITE_NEEDS_REDUCER:
    "Nodes that can run in the same superstep write this field: give it a reducer (append, merge or add).",
  REDUCER_TYPE_MISMATCH: "The reducer does not fit the field's type (append: list, merge: object, add: number).",
  DEFAULT_TYPE_MISMATCH: "The default value does not have the field's type.",
  SUBGRAPH_NOT_FOUND: "The subgraph's workflow version does not exist or is not yours.",
  SUBGRAPH_DEPTH_EXCEEDED: "Subgraphs are nested deeper than STUDIO_MAX_SUBGRAPH_DEPTH allows.",
  SUBGRAPH_CYCLE: "A workflow cannot contain itself as a subgraph.",
  SUBGRAPH_FIELD_UNKNOWN: "The subgraph mapping names a field the child workflow does not declare.",
  SUBGRAPH_LIMIT_EXCEEDED:
    "This workflow uses more distinct subgraph versions (nested ones included) than one validation checks.",
  CODE_MODE_OFF: "Code nodes are turned off on this server (STUDIO_CODE_MODE=off).",
  PROVIDER_NOT_CONFIGURED: "This server has no key for the model provider.",
  SMTP_NOT_CONFIGURED: "Send email needs STUDIO_SMTP_URL on this server, or an SMTP credential.",
  CREDENTIAL_NOT_FOUND: "The credential does not exist or is not yours.",
  CREDENTIAL_TYPE_MISMATCH: "The credential is not of a type this node can use.",
  PROBLEMS_TRUNCATED: "More problems were found than are listed.",
  IMPORTED_NODE_INVALID:
    "A node of an imported workflow is a Code node with data.imported naming the graph's node (or Start or End).",
  IMPORTED_START_END: "An imported workflow has exactly one Start and one End node.",
} as const;
export type ValidationCode = keyof typeof VALIDATION_CATALOG;

export type ErrorCode = keyof typeof CATALOG;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;

  constructor(code: ErrorCode, details?: unknown, message?: string) {
    super(message ?? CATALOG[code].message);
    this.name = "AppError";
    this.code = code;
    this.status = CATALOG[code].status;
    this.details = details ?? null;
  }
}
