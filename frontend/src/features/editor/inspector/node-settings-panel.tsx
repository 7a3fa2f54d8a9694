// Placeholder until this part of the editor is built.
export function NodeSettingsPanel() {
  return null;
}
