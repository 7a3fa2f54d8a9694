// Finds UI text written straight into components instead of coming from the locale files: JSX
// text with letters, and string literals that end up on screen or in a screen reader (children
// expressions, and text props such as aria-label, title, placeholder). A literal inside a call
// (t("key"), cn("flex"), …) or used as a condition (code === "X") is not text, so it is not flagged.
// Used by locales.test.ts; parsing with TypeScript keeps it exact where a regex would guess.
import ts from "typescript";

export interface HardCodedText {
  line: number;
  text: string;
  where: "text" | "child" | `prop ${string}`;
}

/** Props whose value is read by people or by assistive technology. */
const TEXT_PROPS =
  /^(aria-(label|description|placeholder|roledescription|valuetext)|title|placeholder|alt|label|description|hint|submitLabel|message)$/;
const LETTER = /\p{L}/u;

/** String literals of `node` in the positions whose value is what gets rendered. */
function renderedLiterals(node: ts.Expression, out: ts.Node[]): void {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node);
  else if (ts.isTemplateExpression(node)) {
    out.push(node.head);
    for (const span of node.templateSpans) out.push(span.literal);
  } else if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    renderedLiterals(node.expression, out);
  } else if (ts.isConditionalExpression(node)) {
    renderedLiterals(node.whenTrue, out);
    renderedLiterals(node.whenFalse, out);
  } else if (ts.isBinaryExpression(node)) {
    const operator = node.operatorToken.kind;
    if (operator === ts.SyntaxKind.AmpersandAmpersandToken) renderedLiterals(node.right, out);
    else if (operator === ts.SyntaxKind.BarBarToken || operator === ts.SyntaxKind.QuestionQuestionToken) {
      renderedLiterals(node.left, out);
      renderedLiterals(node.right, out);
    } else if (operator === ts.SyntaxKind.PlusToken) {
      renderedLiterals(node.left, out);
      renderedLiterals(node.right, out);
    }
  } else if (ts.isArrayLiteralExpression(node)) {
    for (const element of node.elements) renderedLiterals(element, out);
  }
  // Calls, identifiers, property reads, JSX elements (visited on their own): not literal text.
}

function literalText(node: ts.Node, source: ts.SourceFile): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) return node.text;
  return node.getText(source);
}

/** Every hard-coded UI text in a .tsx source. */
export function findHardCodedText(code: string, fileName = "component.tsx"): HardCodedText[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: HardCodedText[] = [];
  const report = (node: ts.Node, text: string, where: HardCodedText["where"]) => {
    if (!LETTER.test(text)) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ line: line + 1, text: text.trim(), where });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) report(node, node.text, "text");
    else if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) {
      const literals: ts.Node[] = [];
      renderedLiterals(node.expression, literals);
      for (const literal of literals) report(literal, literalText(literal, source), "child");
    } else if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(source);
      if (TEXT_PROPS.test(name)) {
        const literals: ts.Node[] = [];
        if (ts.isStringLiteral(node.initializer)) literals.push(node.initializer);
        else if (ts.isJsxExpression(node.initializer) && node.initializer.expression) {
          renderedLiterals(node.initializer.expression, literals);
        }
        for (const literal of literals) report(literal, literalText(literal, source), `prop ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** String literals of a .ts/.tsx source that look like translation keys ("a.b.c"). */
export function translationKeyLiterals(code: string, fileName: string): string[] {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, kind);
  const keys: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      /^[a-z][A-Za-z]*(\.[A-Za-z0-9_-]+)+$/.test(node.text)
    ) {
      keys.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return keys;
}
