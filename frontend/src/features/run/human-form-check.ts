// The check the server makes of an answer to a Human node's form, from its source: the form shows
// the same problems before sending, and a refusal cannot disagree with it.
export { checkHumanInput, type FormProblem } from "../../../../backend/src/engine/nodes/human-form.js";
