import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { i18nReady } from "./i18n";
import "./lib/theme";
import "./styles.css";
import { App } from "./app/app";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
i18nReady.then(
  () =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  () => {
    // The texts themselves could not be loaded (the server went away mid-load): say so plainly.
    root.textContent = "Superstep could not load. Check that the server is running, then reload the page.";
  },
);
