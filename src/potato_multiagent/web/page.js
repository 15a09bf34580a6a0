/*
 * page.js: the entry of the core's part of the page's bundle (bundling.py). It makes the runtime
 * (widget.js, with everything it imports) the page's one global, `PotatoMultiagent`, and starts it.
 * That global is how the other parts of the bundle, each built apart (the trace view, each type),
 * reach the one runtime: their imports of 'potato-multiagent' read it (build_web.mjs), so a page
 * joins only the parts its config uses and still runs one runtime. Loaded twice (a second copy of
 * the bundle), the first runtime stays, and the second copy's parts run on it.
 */
import * as core from './widget.js';

if (!globalThis.PotatoMultiagent) {
  globalThis.PotatoMultiagent = core;
  core.start();
}
